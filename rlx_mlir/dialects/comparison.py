"""Comparisons, logical ops and the boolean reductions: every result is `i1`, PyTorch's bool.

- `rlx.eq`, `ne`, `lt`, `le`, `gt`, `ge` [eq.Tensor, ...]: PyTorch-broadcast operands
  (`elementwise.broadcast_shape`) of one element type, float, signless integer or i1.
  Floats compare as IEEE ordered comparisons (false when either side is NaN), except `ne`,
  which is unordered (NaN != NaN is true), and -0.0 == 0.0; integers compare signed
  (PyTorch's int32/int64), i1 as bool (false < true).
- `rlx.logical_and`, `logical_or`, `logical_xor` [logical_and, ...], broadcast as above,
  and `rlx.logical_not`: any element type, read as "nonzero is true" (NaN and -0.0 are
  nonzero and zero, as `bool(x)`).
- `rlx.any`, `rlx.all` over `dims` (sorted, unique, non-negative; empty or left out: every
  dim) with `keepdim` [any.dims, all.dims]: any element type, nonzero is true; an empty
  extent gives any = false and all = true. The empty dims is ATen's `dim=None`
  (`torch.any(x)`): ATen 2.13 reads an empty LIST as no dim at all (an elementwise bool,
  `rlx.ne %x, 0` for the importer).

PyTorch's type promotion is the importer's job: both operands of a binary op already have
one element type. The results carry no cotangent (autodiff's rules give none).
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Commutative
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.canonicalization import CommutativeCanonicalization
from rlx_mlir.dialects.elementwise import REDUCTION_FORMAT, _Reduction, broadcast_shape
from rlx_mlir.dialects.properties import ANY_TENSOR, I1, bool_property, sizes_property
from rlx_mlir.dialects.tensors import shape_of, tensor_type


def is_comparable(element: Attribute) -> bool:
    """A float or a signless integer of any width (i1, PyTorch's bool, included)."""
    return isinstance(element, AnyFloat) or (
        isinstance(element, IntegerType) and element.signedness.data == Signedness.SIGNLESS
    )


class _BooleanResult(RlxOpBase):
    """An op whose operands share one float or signless integer element type and whose result is i1."""

    result = result_def(ANY_TENSOR)

    def expect_operand_element_type(self, *operands: SSAValue) -> Attribute:
        element = tensor_type(operands[0]).element_type
        for value in operands[1:]:
            other = tensor_type(value).element_type
            if other != element:
                raise VerifyException(f"expected both operands to have one element type, got {element} and {other}")
        if not is_comparable(element):
            raise VerifyException(f"expected a floating-point or signless integer element type, got {element}")
        result = tensor_type(self.result).element_type
        if result != I1:
            raise VerifyException(f"expected the result to have element type i1 (PyTorch's bool), got {result}")
        return element


# -- comparisons and binary logical ops ---------------------------------------------------


class BinaryPredicateOp(_BooleanResult):
    """`result = lhs OP rhs`, PyTorch-broadcast, an i1 result."""

    lhs = operand_def(ANY_TENSOR)
    rhs = operand_def(ANY_TENSOR)

    assembly_format = f"$lhs `,` $rhs {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.expect_operand_element_type(self.lhs, self.rhs)
        self.expect_result_shape(broadcast_shape([shape_of(self.lhs), shape_of(self.rhs)], ["lhs", "rhs"]))


class CompareOp(BinaryPredicateOp):
    """A comparison: IEEE ordered for floats (`ne` unordered), signed for integers, bool for i1."""


@rlx_op_definition
class EqOp(CompareOp):
    """`lhs == rhs` [eq.Tensor]: false at NaN, -0.0 == 0.0."""

    name = "rlx.eq"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class NeOp(CompareOp):
    """`lhs != rhs` [ne.Tensor]: true at NaN."""

    name = "rlx.ne"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class LtOp(CompareOp):
    """`lhs < rhs` [lt.Tensor]."""

    name = "rlx.lt"


@rlx_op_definition
class LeOp(CompareOp):
    """`lhs <= rhs` [le.Tensor]."""

    name = "rlx.le"


@rlx_op_definition
class GtOp(CompareOp):
    """`lhs > rhs` [gt.Tensor]."""

    name = "rlx.gt"


@rlx_op_definition
class GeOp(CompareOp):
    """`lhs >= rhs` [ge.Tensor]."""

    name = "rlx.ge"


COMPARE_OPS = (EqOp, NeOp, LtOp, LeOp, GtOp, GeOp)


class LogicalBinaryOp(BinaryPredicateOp):
    """`bool(lhs) OP bool(rhs)`, nonzero being true."""


@rlx_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """`lhs != 0 and rhs != 0` [logical_and]."""

    name = "rlx.logical_and"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """`lhs != 0 or rhs != 0` [logical_or]."""

    name = "rlx.logical_or"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class LogicalXorOp(LogicalBinaryOp):
    """`(lhs != 0) != (rhs != 0)` [logical_xor]."""

    name = "rlx.logical_xor"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


LOGICAL_BINARY_OPS = (LogicalAndOp, LogicalOrOp, LogicalXorOp)


@rlx_op_definition
class LogicalNotOp(_BooleanResult):
    """`input == 0` [logical_not], any element type, result shape = input shape."""

    name = "rlx.logical_not"

    input = operand_def(ANY_TENSOR)

    assembly_format = f"$input {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.expect_operand_element_type(self.input)
        self.expect_result_shape(shape_of(self.input))


# -- boolean reductions -------------------------------------------------------------------


class BooleanReductionOp(_Reduction, _BooleanResult):
    """`OP over dims of bool(input)`; an empty `dims` reduces every dim (ATen's empty list)."""

    input = operand_def(ANY_TENSOR)
    dims = sizes_property(default=())
    keepdim = bool_property(default=False)

    assembly_format = REDUCTION_FORMAT.replace("`dims` $dims", "(`dims` $dims^)?")

    def reduced_dims(self) -> tuple[int, ...]:
        return self.dims or tuple(range(len(shape_of(self.input))))

    def verify_shapes(self) -> None:
        self.expect_operand_element_type(self.input)
        if shape_of(self.input):
            self.verify_reduction()
        elif self.dims:
            raise VerifyException(f"expected no 'dims' for a 0-d input, got {list(self.dims)}")
        else:
            self.expect_result_shape(())


@rlx_op_definition
class AnyOp(BooleanReductionOp):
    """`any(input != 0)` over dims [any.dims]: false over an empty extent."""

    name = "rlx.any"


@rlx_op_definition
class AllOp(BooleanReductionOp):
    """`all(input != 0)` over dims [all.dims]: true over an empty extent."""

    name = "rlx.all"


FORWARD_OPS: tuple = (*COMPARE_OPS, *LOGICAL_BINARY_OPS, LogicalNotOp, AnyOp, AllOp)
BACKWARD_OPS: tuple = ()
