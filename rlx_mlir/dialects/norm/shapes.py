"""What every norm op's verifier asks of its shapes: a value's shape by its name, an
expected shape with the reason in the message, and ATen's refusal of an empty input."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import RlxOpBase
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of


class NormOpBase(RlxOpBase):
    """Shape checks the norm ops share; every value is named as in the op's definition."""

    def shape_named(self, name: str) -> tuple[int, ...]:
        return shape_of(getattr(self, name))

    def expect_shape(self, name: str, expected: Sequence[int], why: str) -> None:
        value = getattr(self, name)
        got = shape_of(value)
        if tuple(got) != tuple(expected):
            element = value.type.element_type
            raise VerifyException(
                f"expected the {name} to be tensor<{format_shape(expected)}x{element}> ({why}), got {value.type}"
            )

    def expect_nonempty(self, name: str) -> None:
        shape = self.shape_named(name)
        if any(d == 0 for d in shape if not is_dynamic(d)):
            raise VerifyException(
                f"expected the {name} to have at least one element (ATen rejects an empty input), "
                f"got {getattr(self, name).type}"
            )
