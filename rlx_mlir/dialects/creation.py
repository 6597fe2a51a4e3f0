"""Creation and conversion: tensors made from properties, and element type casts.

- `rlx.cast` [_to_copy with a dtype]: each element converted to the result's element type,
  the shape kept. float <-> float rounds to nearest even (extf/truncf); float -> integer
  truncates toward zero (fptosi); integer -> float is sitofp; integer -> integer
  sign-extends or wraps (extsi/trunci); anything -> i1 is `x != 0` (NaN is true, as in
  PyTorch); i1 -> a number is 0 or 1. A float that is NaN or out of the integer's range
  has no defined integer in PyTorch (C++'s conversion is undefined behaviour there); ours
  is LLVM's fptosi, which leaves it undefined too (x86 gives the "integer indefinite",
  INT_MIN of the width).

    %y = rlx.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf64>

- `rlx.arange` [arange.start_step]: `start + i * step` for i < ceil((end - start) / step),
  the length PyTorch computes (in double for a float result, in exact integers for an
  integer one), which the verifier checks against the declared 1-D result; each value is
  formed in f64 (i64 for integers) and then converted, as ATen's scalar loop does.
- `rlx.full` [full, full_like, scalar_tensor]: every element `value`; the result's dynamic
  dims take their sizes from index operands, in order, as `tensor.empty` does.

    %r = rlx.arange end 1.0 step 0.1 : tensor<10xf32>
    %f = rlx.full(%n) value 0.0 : (index) -> tensor<?x3xf32>
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import AnyFloat, IndexType
from xdsl.irdl import operand_def, result_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import ANY_TENSOR, float_property
from rlx_mlir.dialects.selection import expect_scalar_fits, is_data_element
from rlx_mlir.dialects.tensors import is_dynamic, shape_of, tensor_type


@rlx_op_definition
class CastOp(RlxOpBase):
    """`result[*i] = (T) input[*i]` [_to_copy(dtype=T)], T the result's element type."""

    name = "rlx.cast"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$input {SIGNATURE}"

    def verify_shapes(self) -> None:
        for name in ("input", "result"):
            element = tensor_type(getattr(self, name)).element_type
            if not is_data_element(element):
                raise VerifyException(
                    f"expected the {name} to have a floating-point, signless integer (i8 or wider) or i1 "
                    f"element type, got {element}"
                )
        self.expect_result_shape(shape_of(self.input))


def arange_length(start: float, end: float, step: float, integral: bool) -> int:
    """PyTorch's arange length: ceil((end - start) / step), in integers for an integer dtype."""
    if integral:
        start, end, step = int(start), int(end), int(step)
        return -((start - end) // step)  # ceil division, exact
    return math.ceil((end - start) / step)


@rlx_op_definition
class ArangeOp(RlxOpBase):
    """`result[i] = start + i * step` [arange.start_step], i < ceil((end - start) / step)."""

    name = "rlx.arange"

    start = float_property(0.0)
    end = float_property()
    step = float_property(1.0)
    result = result_def(ANY_TENSOR)

    assembly_format = "(`start` $start^)? `end` $end (`step` $step^)? attr-dict-with-keyword `:` type($result)"

    def batched_values(self) -> set[str]:
        return set()  # the length is the properties'

    def verify_shapes(self) -> None:
        element = tensor_type(self.result).element_type
        if not is_data_element(element, bool_allowed=False):
            raise VerifyException(
                "expected a floating-point or signless integer (i8 or wider) element type, "
                f"got {element}"
            )
        start, end, step = self.start, self.end, self.step
        if not all(math.isfinite(v) for v in (start, end, step)):
            raise VerifyException(f"expected finite start, end and step, got {start}, {end} and {step}")
        if step == 0:
            raise VerifyException("expected a non-zero step")
        for name, value in (("start", start), ("end", end), ("step", step)):
            expect_scalar_fits(name, value, element)
        length = arange_length(start, end, step, not isinstance(element, AnyFloat))
        if length < 0:
            raise VerifyException(
                "expected end - start to have the sign of step "
                "(ATen's 'upper bound and larger bound inconsistent with step sign'), "
                f"got start {start}, end {end}, step {step}"
            )
        self.expect_result_shape((length,))


@rlx_op_definition
class FullOp(RlxOpBase):
    """`result[*i] = value` [full, full_like, scalar_tensor]; `sizes` are the dynamic dims'."""

    name = "rlx.full"

    sizes = var_operand_def(IndexType)
    value = float_property()
    result = result_def(ANY_TENSOR)

    assembly_format = f"(`(` $sizes^ `)`)? `value` $value {SIGNATURE}"

    def verify_shapes(self) -> None:
        element = tensor_type(self.result).element_type
        if not is_data_element(element):
            raise VerifyException(
                "expected a floating-point, signless integer (i8 or wider) or i1 element type, "
                f"got {element}"
            )
        if not math.isnan(self.value):
            expect_scalar_fits("value", self.value, element)
        dynamic = sum(is_dynamic(d) for d in shape_of(self.result))
        if len(self.sizes) != dynamic:
            raise VerifyException(
                f"expected one index operand per dynamic dimension of the result ({dynamic}), got {len(self.sizes)}"
            )


FORWARD_OPS: tuple = (CastOp, ArangeOp, FullOp)
BACKWARD_OPS: tuple = ()
