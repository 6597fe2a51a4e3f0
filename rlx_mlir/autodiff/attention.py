"""VJP rules of the attention ops.

`rlx.attention`'s VJP of its output is ATen's own gradient op, `rlx.attention_backward`,
which reads the forward's output and logsumexp (the flash backward recomputes the
weights from them). Not yet differentiable, each refused with a located diagnostic rather
than a wrong derivative:
- a cotangent of the logsumexp result (a graph that uses logsumexp itself, or the second
  order, where the backward's logsumexp operand receives one);
- `rlx.attention_backward` itself (the second order).
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import is_zero, vjp_rule
from rlx_mlir.dialects import rlx
from rlx_mlir.ir import DiagnosticError, format_location


@vjp_rule(rlx.AttentionOp)
def attention(b, op, out_bar, lse_bar):
    """(out, lse) = attention(q, k, v[, mask]): (q, k, v[, bias])_bar = attention_backward(out_bar,
    q, k, v, out, lse[, mask]); a boolean mask gets no cotangent."""
    if not is_zero(lse_bar):
        raise DiagnosticError(
            f"'{op.name}' op has no VJP rule for a cotangent of its logsumexp: autodiff cannot "
            "differentiate a use of the logsumexp result",
            format_location(op),
        )
    q, k, v = op.query, op.key, op.value
    grads = b.build_many(
        rlx.AttentionBackwardOp, [out_bar, q, k, v, op.output, op.logsumexp, op.mask],
        [q.type, k.type, v.type, op.mask.type if op.is_bias() else None],
        scale=op.scale, is_causal=op.is_causal, window=op.window,
    )
    if op.mask is None:
        return grads
    return (*grads[:3], grads[3] if op.is_bias() else None)


@vjp_rule(rlx.AttentionBackwardOp)
def attention_backward(b, op, *_bars):
    """Not yet: the second order of attention is refused (module docstring)."""
    raise DiagnosticError(
        f"'{op.name}' op has no VJP rule yet: autodiff cannot differentiate attention twice",
        format_location(op),
    )
