"""VJP rules of the selection ops: each passes the cotangent through where it selected.

    z = where(c, a, b):      a_bar = sum_to(where(c, z_bar, 0)),  b_bar = sum_to(where(c, 0, z_bar))
    z = masked_fill(a, m):   a_bar = where(m, 0, z_bar) = masked_fill(z_bar, m, 0)
    z = clamp(a):            a_bar = clamp_backward(z_bar, a)
    dx = clamp_backward(dy, x): linear in dy (dy_bar = clamp_backward(dx_bar, x)); 0 in x
    z = tril(a) / triu(a):   a_bar = tril(z_bar) / triu(z_bar), the same diagonal

The masks (i1) and integer data carry no cotangent.
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(rlx.WhereOp)
def where(b, op, z_bar):
    """Each branch gets the cotangent where it was chosen, summed back over its broadcast
    (z_bar has the broadcast shape, so the condition broadcasts to it)."""
    chosen = b.build(rlx.WhereOp, [op.condition, z_bar, b.scalar(0.0, z_bar)], z_bar)
    other = b.build(rlx.MaskedFillOp, [z_bar, op.condition], z_bar, value=0.0)
    return None, b.sum_to(chosen, op.input), b.sum_to(other, op.other)


@vjp_rule(rlx.MaskedFillOp)
def masked_fill(b, op, z_bar):
    return b.build(rlx.MaskedFillOp, [z_bar, op.mask], z_bar, value=0.0), None


@vjp_rule(rlx.ClampOp)
def clamp(b, op, z_bar):
    return (b.like(op, rlx.ClampBackwardOp, [z_bar, op.input], z_bar),)


@vjp_rule(rlx.ClampBackwardOp)
def clamp_backward(b, op, dx_bar):
    """Linear in dy with the same mask; piecewise constant in x."""
    return b.like(op, rlx.ClampBackwardOp, [dx_bar, op.input], dx_bar), None


@vjp_rule(rlx.TrilOp, rlx.TriuOp)
def triangle(b, op, z_bar):
    return (b.like(op, type(op), [z_bar], z_bar),)
