"""JVP rules of layer norm and RMS norm (the other norms and the norms' gradients have none yet).

Over the normalized axes (means kept as size-1 axes, so they broadcast back):

    layer norm:  mean_dot = mean(x_dot),   rstd_dot = -rstd^2 mean(xhat x_dot),
                 xhat = (x - mean) rstd,   xhat_dot = rstd (x_dot - mean_dot) + xhat rstd_dot / rstd,
                 y = xhat w + b:           y_dot = xhat_dot w + xhat w_dot + b_dot
    RMS norm:    rstd_dot = -rstd^3 mean(x x_dot),
                 y = x rstd w:             y_dot = (x_dot rstd + x rstd_dot) w + x rstd w_dot

(rstd = (var + eps)^(-1/2), so rstd_dot = -rstd^3 var_dot / 2, and var_dot = 2 mean((x - mean) x_dot).)
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, total
from rlx_mlir.dialects import rlx


def _mean_over_normalized(b, op, value, like):
    """mean of `value` over the op's normalized axes, kept, of `like`'s (a statistic's) type."""
    rank = len(value.type.get_shape())
    dims = list(range(rank - op.normalized_rank, rank))
    return b.build(rlx.MeanOp, [value], like, dims=dims, keepdim=True)


@jvp_rule(rlx.LayerNormOp)
def layer_norm(b, op, x_dot, w_dot, b_dot):
    x, w, _ = op.operands
    y, mean, rstd = op.results
    xhat = b.mul(b.sub(x, mean), rstd)
    if x_dot is None:
        xhat_dot = mean_dot = rstd_dot = None
    else:
        mean_dot = _mean_over_normalized(b, op, x_dot, mean)
        spread = _mean_over_normalized(b, op, b.mul(xhat, x_dot), rstd)  # mean(xhat x_dot) = -rstd_dot / rstd^2
        rstd_dot = b.neg(b.mul(b.mul(rstd, rstd), spread))
        xhat_dot = b.sub(b.mul(b.sub(x_dot, mean_dot), rstd), b.mul(xhat, b.mul(rstd, spread)))
    y_dot = total(b, [xhat_dot and b.mul(xhat_dot, w), w_dot and b.mul(xhat, w_dot), b_dot], y)
    return y_dot, mean_dot, rstd_dot


@jvp_rule(rlx.RmsNormOp)
def rms_norm(b, op, x_dot, w_dot=None):
    x, w = op.input, op.weight
    y, rstd = op.results
    xhat = b.mul(x, rstd)
    if x_dot is None:
        xhat_dot = rstd_dot = None
    else:
        rstd_dot = b.neg(b.mul(b.mul(rstd, b.mul(rstd, rstd)), _mean_over_normalized(b, op, b.mul(x, x_dot), rstd)))
        xhat_dot = b.add(b.mul(x_dot, rstd), b.mul(x, rstd_dot))
    scaled = xhat_dot if w is None or xhat_dot is None else b.mul(xhat_dot, w)
    y_dot = total(b, [scaled, w_dot and b.mul(xhat, w_dot)], y)
    return y_dot, rstd_dot
