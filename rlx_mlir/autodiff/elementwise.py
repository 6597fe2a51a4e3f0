"""VJP rules of the elementwise ops, the reductions and addmm.

A binary op broadcasts its operands (PyTorch's rule), so each operand's cotangent is the
result-shaped product summed back to the operand's shape (`VjpBuilder.sum_to`).

    z = a + b:  a_bar = z_bar,          b_bar = z_bar
    z = a - b:  a_bar = z_bar,          b_bar = -z_bar
    z = a * b:  a_bar = z_bar * b,      b_bar = z_bar * a
    z = a / b:  a_bar = z_bar / b,      b_bar = -(z_bar / b) * z
    z = max(a, b): z_bar to the larger, half to each on a tie (PyTorch's rule)
    exp: z_bar * z   log: z_bar / a   sqrt: z_bar / z * 0.5   rsqrt: -0.5 * z_bar * z^3
    abs: z_bar * sign(a) (0 at 0)      tanh: z_bar * (1 - z^2)   erf: z_bar * 2/sqrt(pi) * exp(-a^2)
    sum/mean over dims: z_bar expanded back (divided by the count for mean)
    addmm: bias_bar = beta * z_bar summed to bias, a_bar = alpha * z_bar b^T, b_bar = alpha * a^T z_bar

The masks of maximum/minimum and abs are `rlx.threshold_backward` (`x <= 0 ? 0 : dy`),
so every rule stays in RLX ops.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType

from rlx_mlir.autodiff.matmul import transposed
from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


def _positive_part(b, z_bar, d):
    """z_bar where d > 0, else 0 (`threshold_backward`)."""
    return b.build(rlx.ThresholdBackwardOp, [z_bar, d], z_bar, threshold=0.0)


def _result_shaped(b, value, like):
    """`value` broadcast to `like`'s shape (the masks need operands of one shape)."""
    return value if value.type == like.type else b.build(rlx.ExpandOp, [value], like)


@vjp_rule(rlx.AddOp)
def add(b, op, z_bar):
    return b.sum_to(z_bar, op.operands[0]), b.sum_to(z_bar, op.operands[1])


@vjp_rule(rlx.SubOp)
def sub(b, op, z_bar):
    return b.sum_to(z_bar, op.operands[0]), b.sum_to(b.neg(z_bar), op.operands[1])


@vjp_rule(rlx.MulOp)
def mul(b, op, z_bar):
    a, c = op.operands
    return b.sum_to(b.mul(z_bar, c), a), b.sum_to(b.mul(z_bar, a), c)


@vjp_rule(rlx.DivOp)
def div(b, op, z_bar):
    a, c = op.operands
    t = b.div(z_bar, c)
    return b.sum_to(t, a), b.sum_to(b.neg(b.mul(t, op.results[0])), c)


def _extremum(b, op, z_bar, first_wins_when_greater: bool):
    a, c = op.operands
    z = op.results[0]
    a_minus_c = _result_shaped(b, b.sub(a, c), z)
    c_minus_a = b.neg(a_minus_c)
    greater, smaller = _positive_part(b, z_bar, a_minus_c), _positive_part(b, z_bar, c_minus_a)
    half_tie = b.mul(b.sub(b.sub(z_bar, greater), smaller), b.scalar(0.5, z_bar))
    to_a, to_c = (greater, smaller) if first_wins_when_greater else (smaller, greater)
    return b.sum_to(b.add(to_a, half_tie), a), b.sum_to(b.add(to_c, half_tie), c)


@vjp_rule(rlx.MaximumOp)
def maximum(b, op, z_bar):
    """z = max(a, b): the cotangent goes to the larger operand, half to each on a tie."""
    return _extremum(b, op, z_bar, True)


@vjp_rule(rlx.MinimumOp)
def minimum(b, op, z_bar):
    """z = min(a, b): the cotangent goes to the smaller operand, half to each on a tie."""
    return _extremum(b, op, z_bar, False)


@vjp_rule(rlx.NegOp)
def neg(b, op, z_bar):
    return (b.neg(z_bar),)


@vjp_rule(rlx.ExpOp)
def exp(b, op, z_bar):
    return (b.mul(z_bar, op.results[0]),)


@vjp_rule(rlx.LogOp)
def log(b, op, z_bar):
    return (b.div(z_bar, op.operands[0]),)


@vjp_rule(rlx.SqrtOp)
def sqrt(b, op, z_bar):
    """z = sqrt(a): a_bar = z_bar / (2 z)."""
    return (b.mul(b.div(z_bar, op.results[0]), b.scalar(0.5, z_bar)),)


@vjp_rule(rlx.RsqrtOp)
def rsqrt(b, op, z_bar):
    """z = a^(-1/2): a_bar = -0.5 z_bar z^3."""
    z = op.results[0]
    return (b.mul(b.mul(z_bar, b.mul(z, b.mul(z, z))), b.scalar(-0.5, z_bar)),)


@vjp_rule(rlx.AbsOp)
def abs_(b, op, z_bar):
    """z = |a|: a_bar = z_bar * sign(a), 0 at a = 0 (PyTorch's sgn)."""
    a = op.operands[0]
    return (b.sub(_positive_part(b, z_bar, a), _positive_part(b, z_bar, b.neg(a))),)


@vjp_rule(rlx.TanhOp)
def tanh(b, op, z_bar):
    """z = tanh(a): a_bar = z_bar (1 - z^2) = z_bar - z_bar z z."""
    z = op.results[0]
    return (b.sub(z_bar, b.mul(b.mul(z_bar, z), z)),)


@vjp_rule(rlx.ErfOp)
def erf(b, op, z_bar):
    """z = erf(a): a_bar = z_bar * 2/sqrt(pi) * exp(-a^2)."""
    a = op.operands[0]
    density = b.unary(rlx.ExpOp, b.neg(b.mul(a, a)))
    return (b.mul(b.mul(z_bar, density), b.scalar(2 / math.sqrt(math.pi), z_bar)),)


def _expanded_back(b, op, z_bar):
    """z_bar of a reduction over `dims`, broadcast back to the input's shape."""
    x = op.operands[0]
    shape = list(x.type.get_shape())
    dims = op.dims
    kept = TensorType(x.type.element_type, [1 if axis in dims else size for axis, size in enumerate(shape)])
    if z_bar.type != kept:
        z_bar = b.build(rlx.ReshapeOp, [z_bar], kept)
    return b.build(rlx.ExpandOp, [z_bar], x), math.prod(shape[axis] for axis in dims)


@vjp_rule(rlx.SumOp)
def sum_(b, op, z_bar):
    """z = sum(a, dims): a_bar = z_bar broadcast over dims."""
    return (_expanded_back(b, op, z_bar)[0],)


@vjp_rule(rlx.MeanOp)
def mean(b, op, z_bar):
    """z = mean(a, dims): a_bar = z_bar broadcast over dims, divided by their count."""
    spread, count = _expanded_back(b, op, z_bar)
    return (b.mul(spread, b.scalar(1 / count, z_bar)),)


@vjp_rule(rlx.AddmmOp)
def addmm(b, op, z_bar):
    """z = beta * bias + alpha * (a @ c)."""
    bias, a, c = op.operands
    beta, alpha = op.beta, op.alpha
    scaled = lambda v, s: v if s == 1.0 else b.mul(v, b.scalar(s, v))  # noqa: E731
    bias_bar = b.sum_to(scaled(z_bar, beta), bias)
    a_bar = scaled(b.build(rlx.MatmulOp, [z_bar, transposed(b, c)], a), alpha)
    c_bar = scaled(b.build(rlx.MatmulOp, [transposed(b, a), z_bar], c), alpha)
    return bias_bar, a_bar, c_bar
