"""JVP rules of the selection ops: each passes the tangent through where it selected.

    z = where(c, a, b):        z_dot = where(c, a_dot, b_dot), 0 for a branch without one
    z = masked_fill(a, m, v):  z_dot = masked_fill(a_dot, m, 0)
    clamp, clamp_backward:     elementwise, their VJP's diagonal Jacobian (`rules.diagonal`)
    z = tril(a) / triu(a):     linear, the same op of a_dot
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import diagonal, jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.WhereOp)
def where(b, op, _condition_dot, a_dot, c_dot):
    if a_dot is None and c_dot is None:
        return (None,)
    z = op.results[0]
    branches = [dot or b.scalar(0.0, z) for dot in (a_dot, c_dot)]
    return (b.build(rlx.WhereOp, [op.condition, *branches], z),)


@jvp_rule(rlx.MaskedFillOp)
def masked_fill(b, op, a_dot, _mask_dot):
    return (a_dot and b.build(rlx.MaskedFillOp, [a_dot, op.mask], op.results[0], value=0.0),)


jvp_rule(rlx.ClampOp, rlx.ClampBackwardOp)(diagonal)


@jvp_rule(rlx.TrilOp, rlx.TriuOp)
def triangle(b, op, a_dot):
    return (product_rule(b, op, a_dot),)
