"""JVP rules of the elementwise ops, the reductions and addmm.

A binary op broadcasts its operands (PyTorch's rule), so each operand's tangent is
broadcast to the result's shape (`rules.total`).

    z = a + b:  z_dot = a_dot + b_dot           z = a - b:  z_dot = a_dot - b_dot
    z = a * b:  z_dot = a_dot b + a b_dot       z = a / b:  z_dot = (a_dot - z b_dot) / b
    z = max(a, b): the tangent of the larger, their mean on a tie (PyTorch's rule)
    unary f (exp, log, sqrt, rsqrt, abs, tanh, erf, neg): z_dot = f'(a) a_dot, the VJP's
    diagonal Jacobian (`rules.diagonal`)
    sum/mean over dims: linear, the same reduction of a_dot
    addmm: z_dot = beta bias_dot + alpha (a_dot c + a c_dot)
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Operation

from rlx_mlir.autodiff.forward.rules import broadcast_to, diagonal, jvp_rule, product_rule, total
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.AddOp)
def add(b, op, a_dot, c_dot):
    return (total(b, [a_dot, c_dot], op.results[0]),)


@jvp_rule(rlx.SubOp)
def sub(b, op, a_dot, c_dot):
    return (total(b, [a_dot, c_dot and b.neg(c_dot)], op.results[0]),)


@jvp_rule(rlx.MulOp)
def mul(b, op, a_dot, c_dot):
    return (product_rule(b, op, a_dot, c_dot),)


@jvp_rule(rlx.DivOp)
def div(b, op, a_dot, c_dot):
    """z = a / c: z_dot = a_dot / c - z c_dot / c."""
    a, c = op.operands
    z = op.results[0]
    terms = [a_dot and b.div(a_dot, c), c_dot and b.neg(b.div(b.mul(z, c_dot), c))]
    return (total(b, terms, z),)


def _extremum(b, op, a_dot, c_dot, beats: type[Operation]):
    """z_dot = a_dot where a beats c, c_dot where c beats a, (a_dot + c_dot) / 2 on a tie
    (a 0-d zero standing for a tangent that is None)."""
    a, c = op.operands
    z = op.results[0]
    a_dot, c_dot = broadcast_to(b, a_dot, z), broadcast_to(b, c_dot, z)
    zero = b.scalar(0.0, z)
    mask = TensorType(i1, z.type.get_shape())
    a_beats, c_beats = b.build(beats, [a, c], mask), b.build(beats, [c, a], mask)
    tie = b.mul(total(b, [a_dot, c_dot], z), b.scalar(0.5, z))
    return (b.build(rlx.WhereOp, [a_beats, a_dot or zero, b.build(rlx.WhereOp, [c_beats, c_dot or zero, tie], z)], z),)


@jvp_rule(rlx.MaximumOp)
def maximum(b, op, a_dot, c_dot):
    return _extremum(b, op, a_dot, c_dot, rlx.GtOp)


@jvp_rule(rlx.MinimumOp)
def minimum(b, op, a_dot, c_dot):
    return _extremum(b, op, a_dot, c_dot, rlx.LtOp)


jvp_rule(rlx.NegOp, rlx.ExpOp, rlx.LogOp, rlx.SqrtOp, rlx.RsqrtOp, rlx.AbsOp, rlx.TanhOp, rlx.ErfOp)(diagonal)


@jvp_rule(rlx.SumOp, rlx.MeanOp)
def reduction(b, op, a_dot):
    """Linear: the same reduction of the tangent."""
    return (product_rule(b, op, a_dot),)


@jvp_rule(rlx.AddmmOp)
def addmm(b, op, bias_dot, a_dot, c_dot):
    """z = beta bias + alpha a c: z_dot = beta bias_dot + alpha (a_dot c + a c_dot)."""
    bias, a, c = op.operands
    z = op.results[0]
    scaled = lambda v, s: v if v is None or s == 1.0 else b.mul(v, b.scalar(s, v))  # noqa: E731
    products = [a_dot and b.build(rlx.MatmulOp, [a_dot, c], z), c_dot and b.build(rlx.MatmulOp, [a, c_dot], z)]
    return (total(b, [scaled(bias_dot, op.beta), scaled(total(b, products, z), op.alpha)], z),)
