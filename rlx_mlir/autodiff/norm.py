"""VJP rules of the normalizations (batch, layer, RMS and group norm) and of their gradient
ops, so that a normalized net can be differentiated to any order.

The forward ops (`batch_norm`, `layer_norm`) return their saved statistics (mean and
invstd/rstd) beside y. The first-order VJP of y is ATen's gradient op
(`batch_norm_backward`, `layer_norm_backward`), which reads those statistics as operands;
differentiating that VJP again sends cotangents to the statistics, so the forward rules
carry them back to x too (mean and invstd are functions of x):

    mean = sum x / n:                 x_bar += mean_bar / n
    invstd = (sum (x - mean)^2 / n + eps)^(-1/2):
                                      x_bar += -invstd_bar * invstd^2 * xhat / n

(n the count of values each statistic reduces; for batch norm per channel, for layer norm
per row, for group norm per (sample, group): group norm's rules are layer norm's on the
view [N, G, C/G, prod(spatial)], `_Grouped`). Eval-mode batch norm's statistics are
constants: its VJP is `batch_norm_inference_backward`, linear in the incoming cotangent. The gradient ops' own rules treat every operand as independent (the chain rule
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
    per row; w per normalized position): `_row_gradient_vjp`."""
    dy, x, mean, rstd, w = op.operands
    m = math.prod(w.type.get_shape())
    return _row_gradient_vjp(b, dy, x, mean, rstd, w, m, gx_bar, gw_bar, gb_bar)


def _row_gradient_vjp(b, dy, x, mean, rstd, w, m, gx_bar, gw_bar, gb_bar):
    """The VJP of layer norm's gradient (and group norm's, on its grouped view), rows of m
    values: mean and rstd broadcast per row, w (None: ones) per position of a row, sum_r
    over a row (`sum_to` mean's shape), sum_o over everything but w's axes:

        xhat = (x - mean) rstd,  g = dy w,  M1 = sum_r g / m,  M2 = sum_r g xhat / m
        gx = rstd (g - M1 - xhat M2),  gw = sum_o dy xhat,  gb = sum_o dy

    With a = gx_bar:

        M1_bar = -rstd sum_r a,   M2_bar = -rstd sum_r(a xhat)
        g_bar = rstd a + M1_bar/m + M2_bar xhat/m
        xhat_bar = -rstd a M2 + M2_bar g/m + gw_bar dy
        dy_bar = g_bar w + gw_bar xhat + gb_bar,   w_bar = sum_o g_bar dy
        x_bar = rstd xhat_bar,   mean_bar = -sum_r x_bar
        rstd_bar = sum_r(a (g - M1 - xhat M2)) + sum_r(xhat_bar (x - mean))

    Returns (dy, x, mean, rstd)_bar, then w_bar when there is a w.
    """
    m = b.scalar(float(m), x)
    row = lambda v: b.sum_to(v, mean)  # noqa: E731  sum over the normalized axes, mean's shape
    centered = b.sub(x, mean)
    xhat = b.mul(centered, rstd)
    g = dy if w is None else b.mul(dy, w)
    m2 = b.div(row(b.mul(g, xhat)), m)
    a = gx_bar
    m1_bar = b.neg(b.mul(rstd, row(a)))
    m2_bar = b.neg(b.mul(rstd, row(b.mul(a, xhat))))
    g_bar = b.binary(rlx.AddOp, b.binary(rlx.AddOp, b.mul(rstd, a), b.div(m1_bar, m)), b.div(b.mul(m2_bar, xhat), m))
    xhat_bar = b.binary(
        rlx.AddOp, b.sub(b.div(b.mul(m2_bar, g), m), b.mul(b.mul(rstd, a), m2)), b.mul(gw_bar, dy)
    )
    dy_bar = b.binary(rlx.AddOp, b.binary(rlx.AddOp, g_bar if w is None else b.mul(g_bar, w), b.mul(gw_bar, xhat)), gb_bar)
    w_bar = None if w is None else b.sum_to(b.mul(g_bar, dy), w)
    x_bar = b.mul(xhat_bar, rstd)
    mean_bar = b.neg(row(x_bar))
    residual = b.sub(b.sub(g, b.div(row(g), m)), b.mul(xhat, m2))
    rstd_bar = b.binary(rlx.AddOp, row(b.mul(a, residual)), row(b.mul(xhat_bar, centered)))
    return (dy_bar, x_bar, mean_bar, rstd_bar) + (() if w is None else (w_bar,))


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
    """y = (x - rm) * invstd * w + bias per channel (axis 1), invstd = 1/sqrt(rv + eps):
    (x, w, bias)_bar = batch_norm_inference_backward(y_bar, x, rm, rv, w), ATen's eval-mode
    gradient. The running statistics get no cotangent (ATen's eval-mode batch norm)."""
    x, w, bias, rm, rv = op.operands
    x_bar, w_bar, bias_bar = b.build_many(
        rlx.BatchNormInferenceBackwardOp, [y_bar, x, rm, rv, w], [x.type, w.type, bias.type], eps=op.eps,
    )
    return x_bar, w_bar, bias_bar, None, None


@vjp_rule(rlx.BatchNormInferenceBackwardOp)
def batch_norm_inference_backward(b, op, gx_bar, gw_bar, gb_bar):
    """(gx, gw, gb) = batch_norm_inference_backward(dy, x, rm, rv, w?), per channel (sums
    over all axes but 1), invstd = (rv + eps)^(-1/2), xhat = (x - rm) invstd, w = 1 when absent:

        gx = dy w invstd,  gw = sum dy xhat,  gb = sum dy

    linear in dy; with a = gx_bar:

        dy_bar = a w invstd + gw_bar xhat + gb_bar
        x_bar = gw_bar dy invstd,   rm_bar = -sum x_bar,   w_bar = invstd sum(a dy)
        invstd_bar = w sum(a dy) + sum(gw_bar dy (x - rm)),   rv_bar = -invstd^3 / 2 invstd_bar
    """
    dy, x, rm, rv, w = op.grad_output, op.input, op.running_mean, op.running_var, op.weight
    c = _PerChannel(b, x, rm)
    invstd = c.column(b.unary(rlx.RsqrtOp, b.binary(rlx.AddOp, rv, b.scalar(op.eps, rv))))
    centered = b.sub(x, c.column(rm))
    scale = invstd if w is None else b.mul(c.column(w), invstd)
    gw_bar, gb_bar = c.column(gw_bar), c.column(gb_bar)
    dy_bar = b.binary(rlx.AddOp, b.binary(rlx.AddOp, b.mul(gx_bar, scale), b.mul(gw_bar, b.mul(centered, invstd))), gb_bar)
    dy_gw = b.mul(gw_bar, dy)
    x_bar = b.mul(dy_gw, invstd)
    rm_bar = c.vector(b.neg(c.sum(x_bar)))
    a_dy = c.sum(b.mul(gx_bar, dy))
    invstd_bar = b.binary(rlx.AddOp, a_dy if w is None else b.mul(c.column(w), a_dy), c.sum(b.mul(dy_gw, centered)))
    cube = b.mul(invstd, b.mul(invstd, invstd))
    rv_bar = c.vector(b.mul(invstd_bar, b.mul(cube, b.scalar(-0.5, x))))
    bars = (dy_bar, x_bar, rm_bar, rv_bar)
    return bars if w is None else (*bars, c.vector(b.mul(invstd, a_dy)))


class _Grouped:
    """Group norm's grouped view of x [N, C, *spatial] for its rules: [N, G, C/G, S]
    (S = prod(spatial)), where mean and rstd [N, G] are [N, G, 1, 1] and a [C] vector is
    [G, C/G, 1], so that each broadcasts as layer norm's rows and weight do."""

    def __init__(self, b, x, groups):
        self.b = b
        shape, element = x.type.get_shape(), x.type.element_type
        n, channels = shape[0], shape[1]
        spatial = math.prod(shape[2:])
        self.x_type = x.type
        self.view_type = TensorType(element, [n, groups, channels // groups, spatial])
        self.stat_type = TensorType(element, [n, groups, 1, 1])
        self.column_type = TensorType(element, [groups, channels // groups, 1])
        self.m = channels // groups * spatial

    def _reshape(self, value, type_):
        if value is None or value.type == type_:
            return value
        return self.b.zeros(type_) if is_zero(value) else self.b.build(rlx.ReshapeOp, [value], type_)

    def view(self, value):
        return self._reshape(value, self.view_type)

    def stat(self, value):
        return self._reshape(value, self.stat_type)

    def column(self, value):
        return self._reshape(value, self.column_type)

    def back(self, value, like):
        return self._reshape(value, like.type)


@vjp_rule(rlx.GroupNormOp)
def group_norm(b, op, y_bar, mean_bar, rstd_bar):
    """(y, mean, rstd) = group_norm(x, w?, bias?): (x, w, bias)_bar = group_norm_backward(y_bar,
    x, mean, rstd, w?), plus the statistics' cotangents carried to x (module docstring),
    each group being a row of m = C/G * prod(spatial) values."""
    x, w, bias = op.input, op.weight, op.bias
    channels = TensorType(x.type.element_type, [x.type.get_shape()[1]])
    x_bar, w_bar, b_bar = b.build_many(
        rlx.GroupNormBackwardOp, [y_bar, x, op.mean, op.rstd, w], [x.type, channels, channels], groups=op.groups,
    )
    if not (is_zero(mean_bar) and is_zero(rstd_bar)):
        v = _Grouped(b, x, op.groups)
        x_bar = v.back(
            _statistics_to_input(b, v.view(x_bar), v.view(x), v.stat(op.mean), v.stat(op.rstd), mean_bar, rstd_bar, v.m, v.stat),
            x,
        )
    return (x_bar, *(() if w is None else (w_bar,)), *(() if bias is None else (b_bar,)))


@vjp_rule(rlx.GroupNormBackwardOp)
def group_norm_backward(b, op, gx_bar, gw_bar, gb_bar):
    """(gx, gw, gb) = group_norm_backward(dy, x, mean, rstd, w?): layer norm's gradient on
    the grouped view (`_Grouped`), whose rows are the groups and whose w is per channel;
    its VJP is `_row_gradient_vjp` there, read back in the operands' shapes."""
    dy, x, mean, rstd, w = op.grad_output, op.input, op.mean, op.rstd, op.weight
    v = _Grouped(b, x, op.groups)
    bars = _row_gradient_vjp(
        b, v.view(dy), v.view(x), v.stat(mean), v.stat(rstd), v.column(w), v.m,
        v.view(gx_bar), v.column(gw_bar), v.column(gb_bar),
    )
    like = (dy, x, mean, rstd) + (() if w is None else (w,))
    return tuple(v.back(bar, value) for bar, value in zip(bars, like))
