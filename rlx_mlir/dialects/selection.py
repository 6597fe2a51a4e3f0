"""Selection: ops that pick each result element from their operands or a constant.

Each op is one ATen op of PyTorch 2.13, with ATen's operand order:
- `rlx.where` [where.self]: `condition ? input : other`, the three PyTorch-broadcast
  (`broadcast_shape`); the condition is i1 (PyTorch's bool).
- `rlx.masked_fill` [masked_fill.Scalar]: `mask ? value : input`; the mask (i1)
  broadcasts to the input's shape, `value` is a property.
- `rlx.clamp` [clamp]: `min(max(input, min), max)` with either bound left out (an absent
  bound is infinite); `rlx.clamp_backward` is its gradient (ATen's clamp_backward
  formula, `grad * (min <= input <= max)`).
- `rlx.tril` / `rlx.triu` [tril, triu]: the lower / upper triangle of the last two dims
  from `diagonal` on, zero elsewhere, any number of leading batch dims.

    %y = rlx.where %c, %x, %zero : (tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    %z = rlx.clamp %x min 0.0 max 6.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>

The data may be float, signless integer or (except for clamp, which ATen refuses on bool)
i1, one element type for the data operands and the result. Scalar properties are f64,
as ATen's `Scalar`s are; on an integer tensor they must be integers of its range (ATen
would promote the result to float otherwise), which f64 holds exactly up to 2**53.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.elementwise import broadcast_shape, is_signless_integer
from rlx_mlir.dialects.properties import ANY_TENSOR, FLOAT_TENSOR, I1, float_property, int_property
from rlx_mlir.dialects.tensors import shape_of, tensor_type


def is_data_element(type_: Attribute, bool_allowed: bool = True) -> bool:
    """A float, a signless integer of 8 bits or more, or (when ATen allows it) i1."""
    return isinstance(type_, AnyFloat) or is_signless_integer(type_) or (bool_allowed and type_ == I1)


def expect_data_element_types(op: RlxOpBase, names: tuple[str, ...], bool_allowed: bool = True) -> Attribute:
    """The one element type of the values `names` (operands, then "result"), checked."""
    values = [(name, getattr(op, name)) for name in names]
    element = tensor_type(values[0][1]).element_type
    for name, value in values[1:]:
        other = tensor_type(value).element_type
        if other != element:
            raise VerifyException(
                f"expected the {names[0]} and the {name} to have one element type, got {element} and {other}"
            )
    if not is_data_element(element, bool_allowed):
        kinds = "a floating-point or signless integer (i8 or wider)" + (" or i1" if bool_allowed else "")
        raise VerifyException(f"expected {kinds} element type, got {element}")
    return element


def expect_i1(op: RlxOpBase, name: str) -> None:
    element = tensor_type(getattr(op, name)).element_type
    if element != I1:
        raise VerifyException(f"expected the {name} to have element type i1 (PyTorch's bool), got {element}")


def expect_scalar_fits(name: str, value: float, element: Attribute) -> None:
    """A float `Scalar` property on a tensor of `element`: on an integer tensor, an integer of its range."""
    if isinstance(element, AnyFloat) or name in ("min", "max") and math.isinf(value):
        return  # an infinite bound is an absent one
    width = element.width.data if isinstance(element, IntegerType) else 64
    low, high = (0, 1) if element == I1 else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    if not math.isfinite(value) or value != int(value) or not low <= value <= high:
        raise VerifyException(
            f"expected '{name}' to be an integer in [{low}, {high}] for element type {element}, "
            f"got {value}"
        )


@rlx_op_definition
class WhereOp(RlxOpBase):
    """`result = condition ? input : other` [where.self], the three broadcast together."""

    name = "rlx.where"

    condition = operand_def(ANY_TENSOR)
    input = operand_def(ANY_TENSOR)
    other = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$condition `,` $input `,` $other {SIGNATURE}"

    def verify_shapes(self) -> None:
        expect_i1(self, "condition")
        expect_data_element_types(self, ("input", "other", "result"))
        names = ("condition", "input", "other")
        self.expect_result_shape(broadcast_shape([shape_of(getattr(self, n)) for n in names], names))


@rlx_op_definition
class MaskedFillOp(RlxOpBase):
    """`result = mask ? value : input` [masked_fill.Scalar]; the mask broadcasts to the input."""

    name = "rlx.masked_fill"

    input = operand_def(ANY_TENSOR)
    mask = operand_def(ANY_TENSOR)
    value = float_property()
    result = result_def(ANY_TENSOR)

    assembly_format = f"$input `,` $mask `value` $value {SIGNATURE}"

    def verify_shapes(self) -> None:
        expect_i1(self, "mask")
        element = expect_data_element_types(self, ("input", "result"))
        expect_scalar_fits("value", self.value, element)
        shape = shape_of(self.input)
        if broadcast_shape([shape, shape_of(self.mask)], ["input", "mask"]) != shape:
            raise VerifyException(
                "expected the mask to broadcast to the input's shape, "
                f"got {self.mask.type} and {self.input.type}"
            )
        self.expect_result_shape(shape)


CLAMP_RANGE = "(`min` $min^)? (`max` $max^)?"
"""The custom form of clamp's bounds, each left out when absent (infinite)."""


class _ClampRange(RlxOpBase):
    """clamp's bounds: either may be absent (infinite), not both; no NaN."""

    BOOL_ALLOWED: ClassVar[bool] = False

    min = float_property(-math.inf)
    max = float_property(math.inf)

    def verify_bounds(self, element: Attribute) -> None:
        low, high = self.min, self.max
        if math.isnan(low) or math.isnan(high):
            raise VerifyException(f"expected bounds that are not NaN, got min {low} and max {high}")
        if low == -math.inf and high == math.inf:
            raise VerifyException("expected at least one of 'min' and 'max' (ATen refuses a clamp without bounds)")
        expect_scalar_fits("min", low, element)
        expect_scalar_fits("max", high, element)


@rlx_op_definition
class ClampOp(_ClampRange):
    """`result = min(max(input, min), max)` [clamp]: NaN stays NaN; min > max gives max."""

    name = "rlx.clamp"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$input {CLAMP_RANGE} {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.verify_bounds(expect_data_element_types(self, ("input", "result"), bool_allowed=False))
        self.expect_result_shape(shape_of(self.input))


@rlx_op_definition
class ClampBackwardOp(_ClampRange, RlxOp):
    """`grad_input = min <= input <= max ? grad_output : 0` (ATen's clamp_backward): both ends
    inclusive, 0 at a NaN input and everywhere when min > max."""

    name = "rlx.clamp_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $input {CLAMP_RANGE} {SIGNATURE}"

    def verify_shapes(self) -> None:
        shape = shape_of(self.input)
        if shape_of(self.grad_output) != shape:
            raise VerifyException(
                "expected the grad_output to have the input's shape, "
                f"got {self.grad_output.type} and {self.input.type}"
            )
        self.verify_bounds(tensor_type(self.input).element_type)
        self.expect_result_shape(shape)


class TriangleOp(RlxOpBase):
    """The triangle of the last two dims [i, j] bounded by `j - i` against `diagonal`."""

    input = operand_def(ANY_TENSOR)
    diagonal = int_property(0)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$input (`diagonal` $diagonal^)? {SIGNATURE}"

    def verify_shapes(self) -> None:
        expect_data_element_types(self, ("input", "result"))
        shape = shape_of(self.input)
        if len(shape) < 2:
            raise VerifyException(
                "expected the input to have rank at least 2 (a matrix, or a batch of them), "
                f"got {self.input.type}"
            )
        self.expect_result_shape(shape)


@rlx_op_definition
class TrilOp(TriangleOp):
    """`result[..., i, j] = j - i <= diagonal ? input[..., i, j] : 0` [tril]."""

    name = "rlx.tril"


@rlx_op_definition
class TriuOp(TriangleOp):
    """`result[..., i, j] = j - i >= diagonal ? input[..., i, j] : 0` [triu]."""

    name = "rlx.triu"


FORWARD_OPS: tuple = (WhereOp, MaskedFillOp, ClampOp, TrilOp, TriuOp)
BACKWARD_OPS: tuple = (ClampBackwardOp,)
