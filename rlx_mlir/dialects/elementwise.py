"""Elementwise arithmetic, reductions and addmm of the PyTorch import.

- Binary ops with PyTorch broadcasting (`rlx.add`, `sub`, `mul`, `div`, `maximum`,
  `minimum`): shapes align at their trailing dims, a missing or size-1 dim expands, and the
  result type is the broadcast shape (`broadcast_shape`). The importer passes a Python
  scalar as a 0-d operand (`arith.constant dense<2.0> : tensor<f32>`), which broadcasts to
  anything. One element type for both operands and the result; integers (two's
  complement, wrapping as PyTorch's int64 does) except for `div`, which is IEEE float
  division (x/0 = inf, 0/0 = nan). `maximum`/`minimum` propagate NaN, as torch.maximum.
- Unary float ops, result shape = operand shape: `rlx.neg`, `exp`, `log`, `sqrt`,
  `rsqrt`, `abs`, `tanh`, `erf`.
- Reductions `rlx.sum` and `rlx.mean` over `dims` (sorted, unique, non-negative, as the
  importer normalizes ATen's list), with `keepdim`; the result may be 0-d. `mean` divides
  by the product of the reduced sizes (NaN for an empty reduction, as PyTorch).
- `rlx.addmm`: `beta * bias + alpha * (lhs @ rhs)`, bias broadcastable to [M, N].

Only the leading (batch) dimension of the result may be dynamic, and only where every
operand that has that dimension has it dynamic or static 1 (`broadcast_shape` says why
otherwise); the importer emits static shapes only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, IntegerType, Signedness
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Commutative
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.canonicalization import CommutativeCanonicalization
from rlx_mlir.dialects.properties import (
    ANY_TENSOR,
    FLOAT_TENSOR,
    bool_property,
    float_property,
    sizes_property,
)
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of, tensor_type

Shape = tuple[int, ...]


# -- shared shape questions (verifiers and patterns ask these) ----------------------------


def broadcast_shape(shapes: Sequence[Shape], names: Sequence[str]) -> Shape:
    """PyTorch's broadcast of `shapes`: trailing dims align, size-1 and missing dims expand.

    A dynamic size (`?`) may only be the leading dim of the result, and every operand that
    has that dim must have it dynamic or 1: a static size n != 1 against `?` would be right
    only if `?` is 1 or n at run time, which the lowering cannot know.
    """
    rank = max((len(s) for s in shapes), default=0)
    result: list[int] = []
    for axis in range(rank):
        present = [(name, s[axis - rank + len(s)]) for s, name in zip(shapes, names) if axis - rank + len(s) >= 0]
        dynamic = [name for name, size in present if is_dynamic(size)]
        static = [(name, size) for name, size in present if not is_dynamic(size)]
        described = " and ".join(format_shape(s) or "a 0-d tensor" for s in shapes)
        if dynamic:
            if axis != 0:
                raise VerifyException(
                    f"expected a dynamic size only in the leading (batch) dimension of the result, got "
                    f"{described}: the {dynamic[0]}'s dynamic dimension is the result's dimension {axis}"
                )
            wide = [(name, size) for name, size in static if size != 1]
            if wide:
                raise VerifyException(
                    f"expected the {wide[0][0]} to have a dynamic or size-1 leading dimension where the "
                    f"{dynamic[0]} has a dynamic one (broadcasting ? against {wide[0][1]} depends on "
                    f"the run-time size), got {described}"
                )
            result.append(DYNAMIC_INDEX)
            continue
        sizes = {size for _, size in static if size != 1}
        if len(sizes) > 1:
            raise VerifyException(
                f"expected shapes that broadcast (equal, 1 or missing in each dimension, aligned at the "
                f"trailing end), got {described}"
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def reduced_shape(shape: Shape, dims: Sequence[int], keepdim: bool) -> Shape:
    """`shape` without the `dims` (or with them as size 1 when `keepdim`)."""
    if keepdim:
        return tuple(1 if axis in dims else size for axis, size in enumerate(shape))
    return tuple(size for axis, size in enumerate(shape) if axis not in dims)


def is_signless_integer(type_: Attribute) -> bool:
    """An integer element type RLX does arithmetic on: signless and at least 8 bits wide
    (i1 is PyTorch's bool, whose `+` is a logical or, not `arith.addi`)."""
    return (
        isinstance(type_, IntegerType)
        and type_.signedness.data == Signedness.SIGNLESS
        and type_.width.data > 1
    )


class _TypedArithmetic(RlxOpBase):
    """An op on `ANY_TENSOR` values that ties their element types itself.

    `INTEGERS` says whether an integer element type is allowed besides the floats.
    """

    INTEGERS: ClassVar[bool] = True

    def expect_one_element_type(self) -> Attribute:
        named = self.named_values()
        element = tensor_type(named[0][1]).element_type
        for name, value in named[1:]:
            other = tensor_type(value).element_type
            if other != element:
                raise VerifyException(
                    f"expected all operands and the result to have one element type, got {element} and {other}"
                )
        if isinstance(element, AnyFloat):
            return element
        if self.INTEGERS and is_signless_integer(element):
            return element
        if self.INTEGERS:
            raise VerifyException(
                f"expected a floating-point or signless integer (i8 or wider) element type, got {element}"
            )
        raise VerifyException(f"expected a floating-point element type ({self.name} is float only), got {element}")


# -- binary ops -----------------------------------------------------------------------


class BinaryOp(_TypedArithmetic):
    """`result = lhs OP rhs`, PyTorch-broadcast (`broadcast_shape`)."""

    lhs = operand_def(ANY_TENSOR)
    rhs = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$lhs `,` $rhs {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.expect_one_element_type()
        shape = broadcast_shape([shape_of(self.lhs), shape_of(self.rhs)], ["lhs", "rhs"])
        self.expect_result_shape(shape)


@rlx_op_definition
class AddOp(BinaryOp):
    """`lhs + rhs` [add.Tensor with alpha 1]; integers wrap."""

    name = "rlx.add"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class SubOp(BinaryOp):
    """`lhs - rhs` [sub.Tensor with alpha 1]."""

    name = "rlx.sub"


@rlx_op_definition
class MulOp(BinaryOp):
    """`lhs * rhs` [mul.Tensor]."""

    name = "rlx.mul"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class DivOp(BinaryOp):
    """`lhs / rhs` [div.Tensor], IEEE division: x/0 = +-inf, 0/0 = nan; float only
    (PyTorch's true division of integers returns floats, which the importer converts)."""

    name = "rlx.div"
    INTEGERS: ClassVar[bool] = False


@rlx_op_definition
class MaximumOp(BinaryOp):
    """`max(lhs, rhs)` [maximum]: NaN if either is NaN."""

    name = "rlx.maximum"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


@rlx_op_definition
class MinimumOp(BinaryOp):
    """`min(lhs, rhs)` [minimum]: NaN if either is NaN."""

    name = "rlx.minimum"
    traits = traits_def(Commutative(), CommutativeCanonicalization())


BINARY_OPS = (AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp)


# -- unary ops ------------------------------------------------------------------------


class UnaryOp(RlxOp):
    """`result[i] = f(input[i])`, any rank (0-d included), one float type."""

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.expect_result_shape(shape_of(self.input))


@rlx_op_definition
class NegOp(UnaryOp):
    """`-x` [neg]."""

    name = "rlx.neg"


@rlx_op_definition
class ExpOp(UnaryOp):
    """`e**x` [exp]."""

    name = "rlx.exp"


@rlx_op_definition
class LogOp(UnaryOp):
    """`ln x` [log]: -inf at 0, nan below."""

    name = "rlx.log"


@rlx_op_definition
class SqrtOp(UnaryOp):
    """`sqrt(x)` [sqrt]: nan below 0, -0 at -0."""

    name = "rlx.sqrt"


@rlx_op_definition
class RsqrtOp(UnaryOp):
    """`1 / sqrt(x)` [rsqrt]: inf at 0."""

    name = "rlx.rsqrt"


@rlx_op_definition
class AbsOp(UnaryOp):
    """`|x|` [abs]."""

    name = "rlx.abs"


@rlx_op_definition
class TanhOp(UnaryOp):
    """`tanh(x)` [tanh]."""

    name = "rlx.tanh"


@rlx_op_definition
class ErfOp(UnaryOp):
    """`erf(x)` [erf]."""

    name = "rlx.erf"


UNARY_OPS = (NegOp, ExpOp, LogOp, SqrtOp, RsqrtOp, AbsOp, TanhOp, ErfOp)


# -- reductions -----------------------------------------------------------------------


REDUCTION_FORMAT = f"$input `dims` $dims (`keepdim` $keepdim^)? {SIGNATURE}"


class _Reduction:
    """`dims` (non-empty, sorted, unique, within the rank) and `keepdim` (false)."""

    def reduced_dims(self) -> tuple[int, ...]:
        return self.dims  # type: ignore[attr-defined]

    def verify_reduction(self) -> None:
        shape = shape_of(self.input)  # type: ignore[attr-defined]
        dims = self.reduced_dims()
        if not dims:
            raise VerifyException("expected 'dims' to name at least one dimension (all of them for ATen's empty list)")
        if list(dims) != sorted(set(dims)):
            raise VerifyException(f"expected 'dims' to be sorted and unique, got {list(dims)}")
        if dims[0] < 0 or dims[-1] >= len(shape):
            raise VerifyException(
                f"expected 'dims' within [0, {len(shape)}) (the input's rank {len(shape)}, "
                f"negative dims normalized), got {list(dims)}"
            )
        self.expect_result_shape(reduced_shape(shape, dims, self.keepdim))  # type: ignore[attr-defined]


@rlx_op_definition
class SumOp(_Reduction, _TypedArithmetic):
    """`sum over dims of input` [sum.dim_IntList]; floats or integers (of one type, in and out)."""

    name = "rlx.sum"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dims = sizes_property()
    keepdim = bool_property(default=False)

    assembly_format = REDUCTION_FORMAT

    def verify_shapes(self) -> None:
        self.expect_one_element_type()
        self.verify_reduction()


@rlx_op_definition
class MeanOp(_Reduction, RlxOp):
    """`sum over dims of input / prod(reduced sizes)` [mean.dim]; float only, NaN if empty."""

    name = "rlx.mean"

    input = operand_def(FLOAT_TENSOR)
    dims = sizes_property()
    keepdim = bool_property(default=False)

    assembly_format = REDUCTION_FORMAT

    def verify_shapes(self) -> None:
        self.verify_reduction()


# -- addmm ----------------------------------------------------------------------------


@rlx_op_definition
class AddmmOp(RlxOp):
    """`beta * bias + alpha * (lhs @ rhs)` [addmm]: lhs [M, K], rhs [K, N], bias
    broadcastable to [M, N]. With beta 0 the bias is not read, with alpha 0 the product is
    not computed (PyTorch ignores their NaNs and infs)."""

    name = "rlx.addmm"

    bias = operand_def(FLOAT_TENSOR)
    lhs = operand_def(FLOAT_TENSOR)
    rhs = operand_def(FLOAT_TENSOR)
    beta = float_property(default=1.0)
    alpha = float_property(default=1.0)

    assembly_format = f"$bias `,` $lhs `,` $rhs (`beta` $beta^)? (`alpha` $alpha^)? {SIGNATURE}"

    def batched_values(self) -> set[str]:
        # The rows M of lhs and the result may be dynamic, and so the bias's where it has them.
        return {"bias", "lhs", "result"}

    def verify_shapes(self) -> None:
        m, k = self.shape_of(1, 2)
        k2, n = self.shape_of(2, 2)
        if k != k2:
            raise VerifyException(
                f"expected the contraction sizes to agree: lhs {self.lhs.type} has {k} columns, "
                f"rhs {self.rhs.type} has {k2} rows"
            )
        bias = shape_of(self.bias)
        if len(bias) > 2:
            raise VerifyException(f"expected the bias to have rank 0, 1 or 2 (broadcast to [M, N]), got {self.bias.type}")
        self.shape_of(-1, 2)
        self.expect_result_shape((m, n))
        try:
            broadcast = broadcast_shape([bias, (m, n)], ["bias", "product"])
        except VerifyException:
            broadcast = None
        if broadcast != (m, n):
            raise VerifyException(
                f"expected the bias to broadcast to the product's shape {format_shape((m, n))}, got {self.bias.type}"
            )


FORWARD_OPS: tuple = (*BINARY_OPS, *UNARY_OPS, SumOp, MeanOp, AddmmOp)
BACKWARD_OPS: tuple = ()
