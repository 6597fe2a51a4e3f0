"""Elementwise arithmetic and the reductions (`rlx.sum`, `rlx.mean`), as in `dialects/elementwise`.

Binary ops take one element type: a Python scalar operand becomes a 0-d constant that
the op broadcasts, and a tensor of another element type is converted (PyTorch's type
promotion).
"""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import dims_of
from rlx_mlir.torch.aten.table import ConverterTable, one_op
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def binary(e: Emitter, node, op, a, b):
    """`op`(a, b) in the result's element type. PyTorch promotes mixed operands (an integer
    count divided into a float sum, as cross-entropy's label smoothing does) and computes in
    the result's dtype: a tensor operand of another element type is converted to it."""
    ty = e.type_of(node)
    return e.emit(op, [e.promoted(a, ty.element_type), e.promoted(b, ty.element_type)], ty)


def scaled(e: Emitter, node, b, alpha):
    """`alpha * b` for ATen's `alpha` argument (left alone when it is 1)."""
    if alpha == 1:
        return b
    if isinstance(b, (int, float)):
        return b * alpha
    return binary(e, node, rlx.MulOp, b, alpha)


@converts(aten.add.Tensor, aten.add.Scalar)
def add(e: Emitter, node, a, b, alpha=1):
    return binary(e, node, rlx.AddOp, a, scaled(e, node, b, alpha))


@converts(aten.sub.Tensor, aten.sub.Scalar)
def sub(e: Emitter, node, a, b, alpha=1):
    return binary(e, node, rlx.SubOp, a, scaled(e, node, b, alpha))


@converts(aten.rsub.Scalar, aten.rsub.Tensor)
def rsub(e: Emitter, node, a, b, alpha=1):
    """`b - alpha * a`."""
    return binary(e, node, rlx.SubOp, b, scaled(e, node, a, alpha))


@converts(aten.mul.Tensor, aten.mul.Scalar)
def mul(e: Emitter, node, a, b):
    return binary(e, node, rlx.MulOp, a, b)


@converts(aten.div.Tensor, aten.div.Scalar)
def div(e: Emitter, node, a, b):
    return binary(e, node, rlx.DivOp, a, b)


@converts(aten.maximum.default)
def maximum(e: Emitter, node, a, b):
    return binary(e, node, rlx.MaximumOp, a, b)


@converts(aten.minimum.default)
def minimum(e: Emitter, node, a, b):
    return binary(e, node, rlx.MinimumOp, a, b)


for _aten_op, _rlx_op in {
    aten.neg.default: rlx.NegOp, aten.exp.default: rlx.ExpOp, aten.log.default: rlx.LogOp,
    aten.sqrt.default: rlx.SqrtOp, aten.rsqrt.default: rlx.RsqrtOp, aten.abs.default: rlx.AbsOp,
    aten.tanh.default: rlx.TanhOp, aten.erf.default: rlx.ErfOp,
}.items():
    CONVERTERS[_aten_op] = one_op(_rlx_op)


@converts(aten.reciprocal.default)
def reciprocal(e: Emitter, node, x):
    return binary(e, node, rlx.DivOp, 1.0, x)


@converts(aten.pow.Tensor_Scalar)
def pow_scalar(e: Emitter, node, x, exponent):
    """`x ** c`. The exponents ATen's CPU kernel computes without `pow` exactly as it does: 2
    and 3 as products, 0.5 and -0.5 as (r)sqrt, -1 and -2 as quotients; 1 is x. Other
    integers (|c| <= 64) by repeated squaring (`integer_power`), within a few ulps of
    `std::pow` times log2(c); any other c as `exp(c * log(x))`, which is NaN for x < 0 as
    `pow` is, 0 or inf at x = 0, and has a relative error of about |c log x| ulps (the
    backward of `x ** c` is `c * x ** (c - 1) * dy`, another power)."""
    ty = e.type_of(node)
    if exponent == 1:
        return x
    if exponent in (2, 3, -2):
        square = e.emit(rlx.MulOp, [x, x], ty)
        if exponent == 3:
            return e.emit(rlx.MulOp, [square, x], ty)
        return square if exponent == 2 else binary(e, node, rlx.DivOp, 1.0, square)
    if exponent == 0.5:
        return e.emit(rlx.SqrtOp, [x], ty)
    if exponent == -0.5:
        return e.emit(rlx.RsqrtOp, [x], ty)
    if exponent == -1:
        return binary(e, node, rlx.DivOp, 1.0, x)
    if exponent == 0:
        return e.constant(1, ty)
    if float(exponent).is_integer() and abs(exponent) <= 64:
        power = integer_power(e, ty, x, abs(int(exponent)))
        return power if exponent > 0 else binary(e, node, rlx.DivOp, 1.0, power)
    return e.emit(rlx.ExpOp, [binary(e, node, rlx.MulOp, e.emit(rlx.LogOp, [x], ty), float(exponent))], ty)


def integer_power(e: Emitter, ty, x, n: int):
    """`x ** n` for an integer n >= 1 by repeated squaring (log2(n) squarings and at most as
    many products: the IR grows with the exponent's bits, never with the data), so that a
    negative base keeps its sign as PyTorch's integer powers do."""
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else e.emit(rlx.MulOp, [result, square], ty)
        n >>= 1
        if n:
            square = e.emit(rlx.MulOp, [square, square], ty)
    return result


@converts(aten.tanh_backward.default)
def tanh_backward(e: Emitter, node, grad_output, output):
    """`dx = dy * (1 - y * y)`, y the tanh output. `1 - y * y` has y's shape: under
    `torch.func`'s vmap, dy may carry batch dims that y lacks (broadcast by the last mul)."""
    one_minus_y2 = e.emit(rlx.SubOp, [e.scalar(1.0, e.element(output)), e.emit(rlx.MulOp, [output, output],
                                                                                output.type)], output.type)
    return e.emit(rlx.MulOp, [grad_output, one_minus_y2], e.type_of(node))


@converts(aten.sign.default, aten.sgn.default)
def sign(e: Emitter, node, x):
    """`sign(x)` (abs's backward is `dy * sign(x)`): 1 where x > 0, -1 where x < 0, 0 at 0,
    as `threshold_backward(1, x, 0) - threshold_backward(1, -x, 0)` (the step of x and of -x).
    A NaN gives 0 here where PyTorch gives NaN."""
    ty = e.type_of(node)
    one = e.constant(1, ty)
    positive = e.emit(rlx.ThresholdBackwardOp, [one, x], ty, threshold=0.0)
    negative = e.emit(rlx.ThresholdBackwardOp, [one, e.emit(rlx.NegOp, [x], ty)], ty, threshold=0.0)
    return e.emit(rlx.SubOp, [positive, negative], ty)


def reduction(e: Emitter, node, op, x, dims, keepdim, dtype):
    """`op` over `dims` in the result's element type: ATen converts the input to `dtype` first,
    and sums a bool or integer tensor as int64 (cross-entropy's label smoothing counts the
    targets that are not ignored)."""
    x = e.cast(x, e.type_of(node).element_type)
    rank = len(e.shape(x))
    if rank == 0:
        return x
    return e.emit(op, [x], e.type_of(node), dims=dims_of(dims, rank), keepdim=bool(keepdim))


@converts(aten.sum.dim_IntList)
def sum_dims(e: Emitter, node, x, dim, keepdim=False, dtype=None):
    return reduction(e, node, rlx.SumOp, x, dim, keepdim, dtype)


@converts(aten.sum.default)
def sum_all(e: Emitter, node, x, dtype=None):
    return reduction(e, node, rlx.SumOp, x, None, False, dtype)


@converts(aten.mean.dim)
def mean_dims(e: Emitter, node, x, dim, keepdim=False, dtype=None):
    return reduction(e, node, rlx.MeanOp, x, dim, keepdim, dtype)


@converts(aten.mean.default)
def mean_all(e: Emitter, node, x, dtype=None):
    return reduction(e, node, rlx.MeanOp, x, None, False, dtype)


@converts(aten.linalg_vector_norm.default)
def vector_norm(e: Emitter, node, x, ord=2, dim=None, keepdim=False, dtype=None):
    """`||x||_2 = sqrt(sum(x * x))` and `||x||_1 = sum(|x|)` over `dim` (a gradient penalty's
    norm; PyTorch's core table keeps the op whole). Other orders are refused."""
    ty = e.type_of(node.args[0])
    if ord == 2:
        return e.emit(rlx.SqrtOp, [reduction(e, node, rlx.SumOp, e.emit(rlx.MulOp, [x, x], ty), dim, keepdim, dtype)],
                      e.type_of(node))
    if ord == 1:
        return reduction(e, node, rlx.SumOp, e.emit(rlx.AbsOp, [x], ty), dim, keepdim, dtype)
    raise e.fail(f"linalg_vector_norm of order {ord}: RLX's import takes the orders 1 and 2")
