"""VJP rules of the normalizations (batch, layer and RMS norm) and of their gradient ops,
so that a normalized net can be differentiated to any order.

The forward ops (`batch_norm`, `layer_norm`) return their saved statistics (mean and
invstd/rstd) beside y. The first-order VJP of y is ATen's gradient op
(`batch_norm_backward`, `layer_norm_backward`), which reads those statistics as operands;
differentiating that VJP again sends cotangents to the statistics, so the forward rules
carry them back to x too (mean and invstd are functions of x):

    mean = sum x / n:                 x_bar += mean_bar / n
    invstd = (sum (x - mean)^2 / n + eps)^(-1/2):
                                      x_bar += -invstd_bar * invstd^2 * xhat / n

(n the count of values each statistic reduces; for batch norm per channel, for layer norm
per row). The gradient ops' own rules treat every operand as independent (the chain rule
through the statistics is the forward rules' business), so each rule is exact for any
operands. The updated running statistics of `batch_norm` are optimizer state, not
differentiable results (as in ATen), and the running statistics get no cotangent.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType

from rlx_mlir.autodiff.rules import is_zero, vjp_rule
from rlx_mlir.dialects import rlx


class _PerChannel:
    """Batch norm's per-channel algebra on x [N, C, *spatial]: a [C] vector as [C, 1, ...]
    broadcasts against x, and `sum` reduces an x-shaped value over all but the channels."""

    def __init__(self, b, x, channel_vector):
        self.b, self.x = b, x
        shape = x.type.get_shape()
        self.n = math.prod(shape) // shape[1]
        self.column_type = TensorType(x.type.element_type, [shape[1], *([1] * (len(shape) - 2))])
        self.vector_type = channel_vector.type
        self.template = self.column(channel_vector)

    def column(self, vector):
        """[C] -> [C, 1, ...]."""
        return vector if vector.type == self.column_type else self.b.build(rlx.ReshapeOp, [vector], self.column_type)

    def sum(self, value):
        """sum over N and the spatial axes, as a [C, 1, ...] column."""
        return self.b.sum_to(value, self.template)

    def vector(self, column):
        """[C, 1, ...] -> [C]."""
        return column if column.type == self.vector_type else self.b.build(rlx.ReshapeOp, [column], self.vector_type)


@vjp_rule(rlx.BatchNormOp)
def batch_norm(b, op, y_bar, mean_bar, invstd_bar, *_running_bars):
    """(y, mean, invstd, ...) = batch_norm(x, w, bias, rm, rv):
    (x, w, bias)_bar = batch_norm_backward(y_bar, x, w, mean, invstd), plus the statistics'
    cotangents carried to x (module docstring)."""
    x, w, bias = op.operands[:3]
    mean, invstd = op.results[1], op.results[2]
    x_bar, w_bar, b_bar = b.build_many(
        rlx.BatchNormBackwardOp, [y_bar, x, w, mean, invstd], [x.type, w.type, bias.type],
        eps=op.eps,
    )
    c = _PerChannel(b, x, w)
    x_bar = _statistics_to_input(b, x_bar, x, c.column(mean), c.column(invstd), mean_bar, invstd_bar, c.n, c.column)
    return x_bar, w_bar, b_bar, None, None


@vjp_rule(rlx.LayerNormOp)
def layer_norm(b, op, y_bar, mean_bar, rstd_bar):
    """(y, mean, rstd) = layer_norm(x, w, bias): (x, w, bias)_bar = layer_norm_backward(y_bar, x,
    mean, rstd, w), plus the statistics' cotangents carried to x (module docstring)."""
    x, w, bias = op.operands
    mean, rstd = op.results[1], op.results[2]
    x_bar, w_bar, b_bar = b.build_many(rlx.LayerNormBackwardOp, [y_bar, x, mean, rstd, w], [x.type, w.type, bias.type])
    m = math.prod(w.type.get_shape())
    x_bar = _statistics_to_input(b, x_bar, x, mean, rstd, mean_bar, rstd_bar, m, lambda v: v)
    return x_bar, w_bar, b_bar


@vjp_rule(rlx.RmsNormOp)
def rms_norm(b, op, y_bar, rstd_bar):
    """(y, rstd) = rms_norm(x, w?): (x, w?)_bar = rms_norm_backward(y_bar, x, rstd, w?), plus
    rstd's cotangent carried to x: rstd = (sum x^2 / m + eps)^(-1/2) per row, so
    x_bar += -rstd_bar * rstd^2 * xhat / m with xhat = x * rstd."""
    x, w = op.input, op.weight
    k = op.normalized_rank
    weights = [] if w is None else [w]
    bars = b.build_many(
        rlx.RmsNormBackwardOp, [y_bar, x, op.rstd, w], [x.type, None if w is None else w.type], normalized_rank=k,
    )
    x_bar = bars[0]
    if not is_zero(rstd_bar):
        rstd = op.rstd
        m = math.prod(x.type.get_shape()[len(x.type.get_shape()) - k:])
        xhat = b.mul(x, rstd)
        coefficient = b.div(b.mul(rstd_bar, b.mul(rstd, rstd)), b.scalar(float(m), x))
        x_bar = b.sub(x_bar, b.mul(xhat, coefficient))
    return (x_bar, *bars[1:]) if weights else (x_bar,)


def _statistics_to_input(b, x_bar, x, mean, invstd, mean_bar, invstd_bar, n, broadcastable):
    """x_bar + mean_bar / n - invstd_bar * invstd^2 * xhat / n, the zero terms left out."""
    if not is_zero(mean_bar):
        x_bar = b.binary(rlx.AddOp, x_bar, b.div(broadcastable(mean_bar), b.scalar(float(n), x)))
    if not is_zero(invstd_bar):
        xhat = b.mul(b.sub(x, mean), invstd)
        coefficient = b.div(b.mul(broadcastable(invstd_bar), b.mul(invstd, invstd)), b.scalar(float(n), x))
        x_bar = b.sub(x_bar, b.mul(xhat, coefficient))
    return x_bar


@vjp_rule(rlx.BatchNormBackwardOp)
def batch_norm_backward(b, op, gx_bar, gw_bar, gb_bar):
    """(gx, gw, gb) = batch_norm_backward(dy, x, w, mean, invstd), per channel over n values:

        xhat = (x - mean) invstd,  u = invstd w,  S1 = sum dy,  S2 = sum dy xhat
        gx = u (dy - S1/n - xhat S2/n),  gw = S2,  gb = S1

    With a = gx_bar and r = dy - S1/n - xhat S2/n (so gx = u r):

        S1_bar = gb_bar - u sum(a)/n,   S2_bar = gw_bar - u sum(a xhat)/n
        dy_bar = u a + S1_bar + S2_bar xhat
        xhat_bar = S2_bar dy - u a S2/n
        x_bar = invstd xhat_bar,   mean_bar = -sum x_bar
        w_bar = invstd sum(a r),   invstd_bar = w sum(a r) + sum(xhat_bar (x - mean))
    """
    dy, x, w, mean, invstd = op.operands
    c = _PerChannel(b, x, w)
    n = b.scalar(float(c.n), x)
    mean_c, invstd_c, w_c = c.column(mean), c.column(invstd), c.column(w)
    centered = b.sub(x, mean_c)
    xhat = b.mul(centered, invstd_c)
    u = b.mul(invstd_c, w_c)
    s1 = c.sum(dy)
    s2 = c.sum(b.mul(dy, xhat))
    a = gx_bar
    r = b.sub(b.sub(dy, b.div(s1, n)), b.mul(xhat, b.div(s2, n)))
    s1_bar = b.sub(c.column(gb_bar), b.div(b.mul(u, c.sum(a)), n))
    s2_bar = b.sub(c.column(gw_bar), b.div(b.mul(u, c.sum(b.mul(a, xhat))), n))
    ua = b.mul(u, a)
    dy_bar = b.binary(rlx.AddOp, b.binary(rlx.AddOp, ua, s1_bar), b.mul(s2_bar, xhat))
    xhat_bar = b.sub(b.mul(s2_bar, dy), b.mul(ua, b.div(s2, n)))
    x_bar = b.mul(xhat_bar, invstd_c)
    mean_bar = c.vector(b.neg(c.sum(x_bar)))
    ar = c.sum(b.mul(a, r))
    w_bar = c.vector(b.mul(invstd_c, ar))
    invstd_bar = c.vector(b.binary(rlx.AddOp, b.mul(w_c, ar), c.sum(b.mul(xhat_bar, centered))))
    return dy_bar, x_bar, w_bar, mean_bar, invstd_bar


@vjp_rule(rlx.LayerNormBackwardOp)
def layer_norm_backward(b, op, gx_bar, gw_bar, gb_bar):
    """(gx, gw, gb) = layer_norm_backward(dy, x, mean, rstd, w), rows of m values (mean, rstd
    per row; w per normalized position; sum_r over a row, sum_o over the rows):

        xhat = (x - mean) rstd,  g = dy w,  M1 = sum_r g / m,  M2 = sum_r g xhat / m
        gx = rstd (g - M1 - xhat M2),  gw = sum_o dy xhat,  gb = sum_o dy

    With a = gx_bar:

        M1_bar = -rstd sum_r a,   M2_bar = -rstd sum_r(a xhat)
        g_bar = rstd a + M1_bar/m + M2_bar xhat/m
        xhat_bar = -rstd a M2 + M2_bar g/m + gw_bar dy
        dy_bar = g_bar w + gw_bar xhat + gb_bar,   w_bar = sum_o g_bar dy
        x_bar = rstd xhat_bar,   mean_bar = -sum_r x_bar
        rstd_bar = sum_r(a (g - M1 - xhat M2)) + sum_r(xhat_bar (x - mean))
    """
    dy, x, mean, rstd, w = op.operands
    m = b.scalar(float(math.prod(w.type.get_shape())), x)
    row = lambda v: b.sum_to(v, mean)  # noqa: E731  sum over the normalized axes, mean's shape
    centered = b.sub(x, mean)
    xhat = b.mul(centered, rstd)
    g = b.mul(dy, w)
    m2 = b.div(row(b.mul(g, xhat)), m)
    a = gx_bar
    m1_bar = b.neg(b.mul(rstd, row(a)))
    m2_bar = b.neg(b.mul(rstd, row(b.mul(a, xhat))))
    g_bar = b.binary(rlx.AddOp, b.binary(rlx.AddOp, b.mul(rstd, a), b.div(m1_bar, m)), b.div(b.mul(m2_bar, xhat), m))
    xhat_bar = b.binary(
        rlx.AddOp, b.sub(b.div(b.mul(m2_bar, g), m), b.mul(b.mul(rstd, a), m2)), b.mul(gw_bar, dy)
    )
    dy_bar = b.binary(rlx.AddOp, b.binary(rlx.AddOp, b.mul(g_bar, w), b.mul(gw_bar, xhat)), gb_bar)
    w_bar = b.sum_to(b.mul(g_bar, dy), w)
    x_bar = b.mul(xhat_bar, rstd)
    mean_bar = b.neg(row(x_bar))
    residual = b.sub(b.sub(g, b.div(row(g), m)), b.mul(xhat, m2))
    rstd_bar = b.binary(rlx.AddOp, row(b.mul(a, residual)), row(b.mul(xhat_bar, centered)))
    return dy_bar, x_bar, mean_bar, rstd_bar, w_bar


@vjp_rule(rlx.RmsNormBackwardOp)
def rms_norm_backward(b, op, gx_bar, gw_bar=None):
    """(gx, gw?) = rms_norm_backward(dy, x, rstd, w?), rows of m values (rstd per row; w per
    normalized position, 1 without one; sum_r over a row, sum_o over the rows):

        xhat = x rstd,  g = dy w,  M2 = sum_r g xhat / m
        gx = rstd (g - xhat M2),  gw = sum_o dy xhat

    layer_norm_backward's rule without the mean; with a = gx_bar:

        M2_bar = -rstd sum_r(a xhat)
        g_bar = rstd a + M2_bar xhat/m
        xhat_bar = -rstd a M2 + M2_bar g/m + gw_bar dy
        dy_bar = g_bar w + gw_bar xhat,   w_bar = sum_o g_bar dy
        x_bar = rstd xhat_bar
        rstd_bar = sum_r(a (g - xhat M2)) + sum_r(xhat_bar x)
    """
    dy, x, rstd, w = op.grad_output, op.input, op.rstd, op.weight
    k = op.normalized_rank
    shape = x.type.get_shape()
    m = b.scalar(float(math.prod(shape[len(shape) - k:])), x)
    row = lambda v: b.sum_to(v, rstd)  # noqa: E731  sum over the normalized axes, rstd's shape
    xhat = b.mul(x, rstd)
    g = dy if w is None else b.mul(dy, w)
    m2 = b.div(row(b.mul(g, xhat)), m)
    a = gx_bar
    m2_bar = b.neg(b.mul(rstd, row(b.mul(a, xhat))))
    g_bar = b.binary(rlx.AddOp, b.mul(rstd, a), b.div(b.mul(m2_bar, xhat), m))
    xhat_bar = b.sub(b.div(b.mul(m2_bar, g), m), b.mul(b.mul(rstd, a), m2))
    dy_bar = g_bar if w is None else b.mul(g_bar, w)
    if not is_zero(gw_bar):
        xhat_bar = b.binary(rlx.AddOp, xhat_bar, b.mul(gw_bar, dy))
        dy_bar = b.binary(rlx.AddOp, dy_bar, b.mul(gw_bar, xhat))
    x_bar = b.mul(xhat_bar, rstd)
    rstd_bar = b.binary(rlx.AddOp, row(b.mul(a, b.sub(g, b.mul(xhat, m2)))), row(b.mul(xhat_bar, x)))
    if w is None:
        return dy_bar, x_bar, rstd_bar
    return dy_bar, x_bar, rstd_bar, b.sum_to(b.mul(g_bar, dy), w)


@vjp_rule(rlx.BatchNormInferenceOp)
def batch_norm_inference(b, op, y_bar):
    """y = (x - rm) * inv * w + bias, inv = rsqrt(rv + eps), per channel (axis 1):
    x_bar = y_bar w inv, w_bar = sum(y_bar (x - rm) inv), bias_bar = sum(y_bar) over all but
    the channels. The running statistics get no cotangent (ATen's eval-mode batch norm)."""
    x, w, bias, rm, rv = op.operands
    rank = len(x.type.get_shape())
    per_channel = TensorType(x.type.element_type, [w.type.get_shape()[0], *([1] * (rank - 2))])
    as_channels = lambda v: b.build(rlx.ReshapeOp, [v], per_channel)  # noqa: E731  [C] -> [C, 1, ...]
    inv = as_channels(b.unary(rlx.RsqrtOp, b.binary(rlx.AddOp, rv, b.scalar(op.eps, rv))))
    w_c = as_channels(w)
    xhat = b.mul(b.sub(x, as_channels(rm)), inv)
    x_bar = b.mul(y_bar, b.mul(w_c, inv))
    w_bar = b.build(rlx.ReshapeOp, [b.sum_to(b.mul(y_bar, xhat), w_c)], w)
    bias_bar = b.build(rlx.ReshapeOp, [b.sum_to(y_bar, w_c)], bias)
    return x_bar, w_bar, bias_bar, None, None
