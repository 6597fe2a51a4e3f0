"""JVP rules of the attention ops, composed from RLX ops as their reverse rules are.

`autodiff.attention.Composition` writes attention's math per (batch, head), the rows
flattened into `rlx.matmul`'s batch; the tangents are pushed forward through it:

    t = scale q k^T [+ bias] (-inf where a key is not attended),  P = exp(t - lse)
    out = P v:       t_dot through the scores' ops,  lse_dot = rowsum(P t_dot)
                     P_dot = P (t_dot - lse_dot),  out_dot = P_dot v + P v_dot
    attention_backward: its dq, dk, dv (and dbias) as `Composition.backward` builds
                     them, every operand's tangent pushed through (`rules.composed`)

t_dot is finite where t is -inf (the bias and the mask carry no -inf tangent), so
P_dot = 0 there, and a row with no attended key (P = 0) has zero tangents, as its
derivatives are zero at every order in the reverse rules. Like those, these materialise
the [B, H, L, S] weights.
"""

from __future__ import annotations

from rlx_mlir.autodiff.attention import Composition
from rlx_mlir.autodiff.forward.rules import composed, jvp_rule, push_forward
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.AttentionOp)
def attention(b, op, *dots):
    v_dot = dots[2]
    c = Composition(b, op)
    t = c.scores()
    (t_dot,) = push_forward(b, c.built(), dict(zip(op.operands, dots)), [t])
    p = c.weights(t, op.logsumexp)
    nh = c.n * c.h
    rows = c.type_(nh, c.l, c.ev)
    lse_dot = p_dot = None
    if t_dot is not None:
        lse_dot = b.build(rlx.SumOp, [b.mul(p, t_dot)], op.logsumexp, dims=[3])
        column = b.build(rlx.ReshapeOp, [lse_dot], c.type_(c.n, c.h, c.l, 1))
        p_dot = b.mul(p, b.sub(t_dot, column))
    out = b.add(  # None (no tangent) is a zero to `add`
        p_dot and b.build(rlx.MatmulOp, [c.rows(p_dot), c.heads(op.value)], rows),
        v_dot and b.build(rlx.MatmulOp, [c.rows(p), c.heads(v_dot)], rows),
    )
    return out and b.build(rlx.ReshapeOp, [out], op.output), lse_dot


@jvp_rule(rlx.AttentionBackwardOp)
def attention_backward(b, op, *dots):
    return composed(b, op, dots, lambda b, op: Composition(b, op).backward())
