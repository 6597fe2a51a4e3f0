"""VJP rules of the normalizations: their ATen gradient ops.

As in ATen's derivatives (derivatives.yaml, `native_batch_norm`, `native_layer_norm`),
only the cotangent of the normalized output flows back: the saved statistics (mean,
invstd/rstd) and the updated running statistics are outputs for the backward op and the
optimizer state, not differentiable results, and their cotangents are ignored. The
running statistics get no cotangent.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(rlx.BatchNormOp)
def batch_norm(b, op, y_bar, *_statistics_bars):
    """(y, mean, invstd, ...) = batch_norm(x, w, b, rm, rv): (x, w, b)_bar = batch_norm_backward(y_bar, x, w, mean, invstd)."""
    x, w, bias = op.operands[:3]
    save_mean, save_invstd = op.results[1], op.results[2]
    x_bar, w_bar, b_bar = b.build_many(
        rlx.BatchNormBackwardOp, [y_bar, x, w, save_mean, save_invstd], [x.type, w.type, bias.type],
        eps=op.geometry_value("eps"),
    )
    return x_bar, w_bar, b_bar, None, None


@vjp_rule(rlx.LayerNormOp)
def layer_norm(b, op, y_bar, *_statistics_bars):
    """(y, mean, rstd) = layer_norm(x, w, b): (x, w, b)_bar = layer_norm_backward(y_bar, x, mean, rstd, w)."""
    x, w, bias = op.operands
    mean, rstd = op.results[1], op.results[2]
    return b.build_many(rlx.LayerNormBackwardOp, [y_bar, x, mean, rstd, w], [x.type, w.type, bias.type])


@vjp_rule(rlx.BatchNormInferenceOp)
def batch_norm_inference(b, op, y_bar):
    """y = (x - rm) * inv * w + bias, inv = rsqrt(rv + eps), per channel (axis 1):
    x_bar = y_bar w inv, w_bar = sum(y_bar (x - rm) inv), bias_bar = sum(y_bar) over all but
    the channels. The running statistics get no cotangent (ATen's eval-mode batch norm)."""
    x, w, bias, rm, rv = op.operands
    rank = len(x.type.get_shape())
    per_channel = TensorType(x.type.element_type, [w.type.get_shape()[0], *([1] * (rank - 2))])
    as_channels = lambda v: b.build(rlx.ReshapeOp, [v], per_channel)  # noqa: E731  [C] -> [C, 1, ...]
    inv = as_channels(b.unary("RsqrtOp", b.binary("AddOp", rv, b.scalar(op.geometry_value("eps"), rv))))
    w_c = as_channels(w)
    xhat = b.mul(b.sub(x, as_channels(rm)), inv)
    x_bar = b.mul(y_bar, b.mul(w_c, inv))
    w_bar = b.build(rlx.ReshapeOp, [b.sum_to(b.mul(y_bar, xhat), w_c)], w)
    bias_bar = b.build(rlx.ReshapeOp, [b.sum_to(y_bar, w_c)], bias)
    return x_bar, w_bar, bias_bar, None, None
