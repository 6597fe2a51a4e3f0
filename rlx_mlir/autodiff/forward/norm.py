"""JVP rules of layer, RMS, group and batch norm, and of their gradient ops.

With E the mean over the statistics' axes (kept as size-1 axes, so it broadcasts back),
xhat = (x - mean) rstd and rstd = (var + eps)^(-1/2), var = E[(x - mean)^2]:

    mean_dot = E[x_dot]
    rstd_dot = -rstd^3 var_dot / 2 = -rstd^2 E[xhat x_dot]        (var_dot = 2 E[(x - mean) x_dot])
    xhat_dot = rstd (x_dot - mean_dot) + xhat rstd_dot / rstd
    y = xhat w + b:   y_dot = xhat_dot w + xhat w_dot + b_dot

Layer norm takes E over its last normalized_rank axes, group norm over each (sample,
group), batch norm over every axis but the channel (per-channel vectors [C] broadcast as
[1, C, 1, ...]); batch norm's updated
running statistics are optimizer state, not differentiable (ATen), and get no tangent.
RMS norm has no mean: rstd = (E[x^2] + eps)^(-1/2), rstd_dot = -rstd^3 E[x x_dot], y = x rstd w.

The gradient ops are linear in dy, but their dependence on x, the weight and the saved
statistics (operands of their own, independent of x at this point) is a long product: each
is written as its formula in RLX ops (`_row_gradients`, `_channel_gradients`), and the
tangents are pushed through that composition (`rules.composed`):

    layer / group norm (rows of m values, sum_r over a row, sum_o over the rows):
        xhat = (x - mean) rstd,  g = dy w
        gx = rstd (g - sum_r g / m - xhat sum_r(g xhat) / m),  gw = sum_o dy xhat,  gb = sum_o dy
    RMS norm: the same without the mean (and without gb)
    batch norm (per channel, n values each, sum_c over all axes but the channel):
        training:  gx = invstd w (dy - sum_c dy / n - xhat sum_c(dy xhat) / n)
        eval:      gx = dy w s with s = (running_var + eps)^(-1/2), xhat = (x - running_mean) s
        gw = sum_c dy xhat,  gb = sum_c dy
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType

from rlx_mlir.autodiff.forward.rules import composed, jvp_rule, total
from rlx_mlir.dialects import rlx


def _averaging(b, dims, kept):
    """E over `dims` of a value, kept as size-1 axes, of type `kept`."""
    return lambda value: b.build(rlx.MeanOp, [value], kept, dims=dims, keepdim=True)


def _standardized(b, x, x_dot, mean, rstd, average):
    """xhat and the tangents (xhat_dot, mean_dot, rstd_dot) of the module docstring, in the
    broadcast shapes of `mean` and `rstd`; the tangents are None without x_dot."""
    xhat = b.mul(b.sub(x, mean), rstd)
    if x_dot is None:
        return xhat, None, None, None
    mean_dot = average(x_dot)
    spread = average(b.mul(xhat, x_dot))  # E[xhat x_dot] = -rstd_dot / rstd^2
    rstd_dot = b.neg(b.mul(b.mul(rstd, rstd), spread))
    xhat_dot = b.sub(b.mul(b.sub(x_dot, mean_dot), rstd), b.mul(xhat, b.mul(rstd, spread)))
    return xhat, xhat_dot, mean_dot, rstd_dot


def _affine(b, y, xhat, xhat_dot, w, w_dot, b_dot):
    """y = xhat w + b: y_dot = xhat_dot w + xhat w_dot + b_dot (w, w_dot, b_dot in broadcast shapes)."""
    return total(b, [xhat_dot and b.mul(xhat_dot, w), w_dot and b.mul(xhat, w_dot), b_dot], y)


@jvp_rule(rlx.LayerNormOp)
def layer_norm(b, op, x_dot, w_dot, b_dot):
    x, w, _ = op.operands
    y, mean, rstd = op.results
    rank = len(x.type.get_shape())
    average = _averaging(b, list(range(rank - op.normalized_rank, rank)), mean.type)
    xhat, xhat_dot, mean_dot, rstd_dot = _standardized(b, x, x_dot, mean, rstd, average)
    return _affine(b, y, xhat, xhat_dot, w, w_dot, b_dot), mean_dot, rstd_dot


@jvp_rule(rlx.BatchNormOp)
def batch_norm(b, op, x_dot, w_dot, b_dot, *_running_dots):
    x = op.input
    y, mean, invstd = op.results[:3]
    rank = len(x.type.get_shape())
    per_channel = _per_channel(b, x)
    average = _averaging(b, [0, *range(2, rank)], _channel_type(x))
    xhat, xhat_dot, mean_dot, invstd_dot = _standardized(b, x, x_dot, per_channel(mean), per_channel(invstd), average)
    y_dot = _affine(b, y, xhat, xhat_dot, per_channel(op.weight), per_channel(w_dot), per_channel(b_dot))
    as_vector = lambda v: v and b.build(rlx.ReshapeOp, [v], mean.type)  # noqa: E731
    return y_dot, as_vector(mean_dot), as_vector(invstd_dot), None, None


@jvp_rule(rlx.BatchNormInferenceOp)
def batch_norm_inference(b, op, x_dot, w_dot, b_dot, *_running_dots):
    """y = (x - m) s w + b with the running statistics m, v and s = (v + eps)^(-1/2), which
    are not differentiated (ATen's eval-mode batch norm, and the VJP rule):
    y_dot = x_dot s w + (x - m) s w_dot + b_dot."""
    x, y = op.input, op.results[0]
    per_channel = _per_channel(b, x)
    s = b.unary(rlx.RsqrtOp, b.binary(rlx.AddOp, per_channel(op.running_var), b.scalar(op.eps, x)))
    terms = [
        x_dot and b.mul(b.mul(x_dot, s), per_channel(op.weight)),
        w_dot and b.mul(b.mul(b.sub(x, per_channel(op.running_mean)), s), per_channel(w_dot)),
        per_channel(b_dot),
    ]
    return (total(b, terms, y),)


@jvp_rule(rlx.GroupNormOp)
def group_norm(b, op, x_dot, *affine_dots):
    """E over each (sample, group): x seen as [N, groups, C / groups * prod(spatial)]."""
    x = op.input
    y, mean, rstd = op.results
    shape = x.type.get_shape()
    element = x.type.element_type
    grouped_type = TensorType(element, [shape[0], op.groups, math.prod(shape[1:]) // op.groups])
    kept = TensorType(element, [shape[0], op.groups, 1])
    grouped = lambda v: v and b.build(rlx.ReshapeOp, [v], grouped_type)  # noqa: E731
    ungrouped = lambda v: v and b.build(rlx.ReshapeOp, [v], x)  # noqa: E731
    per_group = lambda v: b.build(rlx.ReshapeOp, [v], kept)  # noqa: E731
    average = _averaging(b, [2], kept)
    xhat, xhat_dot, mean_dot, rstd_dot = _standardized(b, grouped(x), grouped(x_dot), per_group(mean), per_group(rstd), average)
    xhat, xhat_dot = ungrouped(xhat), ungrouped(xhat_dot)
    if op.weight is None:
        y_dot = xhat_dot
    else:
        w_dot, b_dot = affine_dots
        per_channel = _per_channel(b, x)
        y_dot = _affine(b, y, xhat, xhat_dot, per_channel(op.weight), per_channel(w_dot), per_channel(b_dot))
    as_statistic = lambda v: v and b.build(rlx.ReshapeOp, [v], mean.type)  # noqa: E731
    return y_dot, as_statistic(mean_dot), as_statistic(rstd_dot)


def _channel_type(x) -> TensorType:
    """[1, C, 1, ...]: the shape in which a per-channel vector broadcasts along x's channel axis."""
    shape = x.type.get_shape()
    return TensorType(x.type.element_type, [1, shape[1], *([1] * (len(shape) - 2))])


def _per_channel(b, x):
    """A [C] vector (or None) reshaped to `_channel_type(x)`."""
    return lambda v: v and b.build(rlx.ReshapeOp, [v], _channel_type(x))


@jvp_rule(rlx.RmsNormOp)
def rms_norm(b, op, x_dot, w_dot=None):
    x, w = op.input, op.weight
    y, rstd = op.results
    xhat = b.mul(x, rstd)
    if x_dot is None:
        xhat_dot = rstd_dot = None
    else:
        rank = len(x.type.get_shape())
        square_dot = _averaging(b, list(range(rank - op.normalized_rank, rank)), rstd.type)(b.mul(x, x_dot))
        rstd_dot = b.neg(b.mul(b.mul(rstd, b.mul(rstd, rstd)), square_dot))
        xhat_dot = b.add(b.mul(x_dot, rstd), b.mul(x, rstd_dot))
    scaled = xhat_dot if w is None or xhat_dot is None else b.mul(xhat_dot, w)
    return total(b, [scaled, w_dot and b.mul(xhat, w_dot)], y), rstd_dot


def _row_gradients(b, dy, x, mean, rstd, w, m, sum_over_rows):
    """(gx, gw, gb) of layer norm's gradient (module docstring) on rows of m values, mean and
    rstd broadcasting per row; mean None is RMS norm, w None is ones. `sum_over_rows`
    reduces an x-shaped value to one value per position of a row (gw's type)."""
    count = b.scalar(float(m), x)
    row_mean = lambda v: b.div(b.sum_to(v, rstd), count)  # noqa: E731
    xhat = b.mul(x if mean is None else b.sub(x, mean), rstd)
    g = dy if w is None else b.mul(dy, w)
    centered = g if mean is None else b.sub(g, row_mean(g))
    gx = b.mul(b.sub(centered, b.mul(xhat, row_mean(b.mul(g, xhat)))), rstd)
    return gx, sum_over_rows(b.mul(dy, xhat)), sum_over_rows(dy)


@jvp_rule(rlx.LayerNormBackwardOp)
def layer_norm_backward(b, op, *dots):
    def compose(b, op):
        dy, x, mean, rstd, w = op.operands
        m = math.prod(w.type.get_shape())
        return _row_gradients(b, dy, x, mean, rstd, w, m, lambda v: b.sum_to(v, w))

    return composed(b, op, dots, compose)


@jvp_rule(rlx.RmsNormBackwardOp)
def rms_norm_backward(b, op, *dots):
    def compose(b, op):
        x, w = op.input, op.weight
        shape = x.type.get_shape()
        m = math.prod(shape[len(shape) - op.normalized_rank:])
        gx, gw, _ = _row_gradients(b, op.grad_output, x, None, op.rstd, w, m, lambda v: w and b.sum_to(v, w))
        return (gx,) if w is None else (gx, gw)

    return composed(b, op, dots, compose)


@jvp_rule(rlx.GroupNormBackwardOp)
def group_norm_backward(b, op, *dots):
    """Layer norm's gradient on the view [N, G, C/G, S] (S the spatial size), whose rows are
    the groups: mean and rstd [N, G] as [N, G, 1, 1], a [C] vector as [G, C/G, 1]."""

    def compose(b, op):
        x = op.input
        shape, element = x.type.get_shape(), x.type.element_type
        n, channels, groups = shape[0], shape[1], op.groups
        view = TensorType(element, [n, groups, channels // groups, math.prod(shape[2:])])
        stat = TensorType(element, [n, groups, 1, 1])
        column = TensorType(element, [groups, channels // groups, 1])
        reshape = lambda v, type_: v and b.build(rlx.ReshapeOp, [v], type_)  # noqa: E731
        per_channel = lambda v: reshape(b.build(rlx.SumOp, [v], TensorType(element, [groups, channels // groups]), dims=[0, 3]), op.grad_weight)  # noqa: E731
        gx, gw, gb = _row_gradients(
            b, reshape(op.grad_output, view), reshape(x, view), reshape(op.mean, stat), reshape(op.rstd, stat),
            reshape(op.weight, column), view.get_shape()[2] * view.get_shape()[3], per_channel,
        )
        return reshape(gx, x.type), gw, gb

    return composed(b, op, dots, compose)


def _channel_gradients(b, dy, x, xhat):
    """(gw, gb) = (sum_c dy xhat, sum_c dy) as [C] vectors, and the per-channel sum sum_c
    (as `_channel_type(x)`) for gx."""
    rank = len(x.type.get_shape())
    vector = TensorType(x.type.element_type, [x.type.get_shape()[1]])
    sum_c = lambda v: b.build(rlx.SumOp, [v], _channel_type(x), dims=[0, *range(2, rank)], keepdim=True)  # noqa: E731
    as_vector = lambda v: b.build(rlx.ReshapeOp, [v], vector)  # noqa: E731
    return sum_c, as_vector(sum_c(b.mul(dy, xhat))), as_vector(sum_c(dy))


@jvp_rule(rlx.BatchNormBackwardOp)
def batch_norm_backward(b, op, *dots):
    def compose(b, op):
        dy, x, w, mean, invstd = op.operands
        per_channel = _per_channel(b, x)
        shape = x.type.get_shape()
        count = b.scalar(float(math.prod(shape) // shape[1]), x)
        xhat = b.mul(b.sub(x, per_channel(mean)), per_channel(invstd))
        sum_c, gw, gb = _channel_gradients(b, dy, x, xhat)
        centered = b.sub(b.sub(dy, b.div(sum_c(dy), count)), b.mul(xhat, b.div(sum_c(b.mul(dy, xhat)), count)))
        return b.mul(centered, b.mul(per_channel(invstd), per_channel(w))), gw, gb

    return composed(b, op, dots, compose)


@jvp_rule(rlx.BatchNormInferenceBackwardOp)
def batch_norm_inference_backward(b, op, *dots):
    def compose(b, op):
        dy, x = op.grad_output, op.input
        per_channel = _per_channel(b, x)
        s = per_channel(b.unary(rlx.RsqrtOp, b.binary(rlx.AddOp, op.running_var, b.scalar(op.eps, x))))
        xhat = b.mul(b.sub(x, per_channel(op.running_mean)), s)
        _, gw, gb = _channel_gradients(b, dy, x, xhat)
        scale = s if op.weight is None else b.mul(s, per_channel(op.weight))
        return b.mul(dy, scale), gw, gb

    return composed(b, op, dots, compose)
