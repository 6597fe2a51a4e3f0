"""Questions about ranked tensor types that the verifiers and the rewrite patterns share."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import SSAValue


def is_dynamic(dim: int) -> bool:
    """A `?` dimension (xDSL stores it as DYNAMIC_INDEX; a negative size never occurs otherwise)."""
    return dim == DYNAMIC_INDEX or dim < 0


def tensor_type(value: SSAValue) -> TensorType:
    assert isinstance(value.type, TensorType), f"expected a tensor, got {value.type}"
    return value.type


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tensor_type(value).get_shape()


def format_shape(shape: Sequence[int]) -> str:
    """`2x?x8`, as MLIR writes a shape inside a tensor type."""
    return "x".join("?" if is_dynamic(d) else str(d) for d in shape)
