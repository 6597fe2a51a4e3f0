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
"""

from __future__ import annotations

from xdsl.irdl import operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import ANY_TENSOR
from rlx_mlir.dialects.selection import is_data_element
from rlx_mlir.dialects.tensors import shape_of, tensor_type


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


FORWARD_OPS: tuple = (CastOp,)
BACKWARD_OPS: tuple = ()
