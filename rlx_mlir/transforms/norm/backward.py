"""`decompose-backward` for the norm gradients: batch norm (training and eval), layer norm and RMS norm
(group norm's, which shares layer norm's helpers here, is in `group`).

Both are the same three steps, in the forward lowering's loops (`norm.ChannelLoops`,
`norm.RowLoops`): one reduction with two accumulators (the sum of the incoming gradient
and its dot product with the normalized input), small all-parallel generics on those
statistics, and one all-parallel generic for dx. The normalized input is recomputed from
the saved statistics as `(x - mean) * invstd`, a deviation from the mean, so nothing
cancels as `sum(dy * x) - mean * sum(dy)` would. RMS norm has no mean: its one row sum
is sum(g * xhat), in a generic of its own as layer norm's are.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import norm
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.norm.forward import ChannelLoops, RowLoops, count_of, inverse_sqrt, per_element, scalar


class BatchNormBackwardToLinalg(RewritePattern):
    """native_batch_norm_backward(train=True), n = N * prod(spatial) values per channel c:

        sum_dy[c] = sum_{n, *s} dy
        dot[c]    = sum_{n, *s} dy * (x - mean[c])
        dx[n, c, *s] = (dy - sum_dy[c] / n - (x - mean[c]) * (dot[c] * invstd[c]^2 / n)) * invstd[c] * weight[c]
        dweight[c] = dot[c] * invstd[c],   dbias[c] = sum_dy[c]

    which is `invstd * w / n * (n * dy - sum(dy) - xhat * sum(dy * xhat))` with
    xhat = (x - mean) * invstd, in ATen's (batch_norm_kernel.cpp) grouping.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.BatchNormBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dy, x, element = op.grad_output, op.input, element_type_of(op.input)
        rank = len(shape_of(x))
        loops = ChannelLoops(rank)
        n = count_of(b, x, [0, *range(2, rank)])

        def sums(r: RegionBuilder, dy_, x_, mean_, sum_dy, dot):
            return r.accumulate(sum_dy, dy_), r.accumulate(dot, r.mul(dy_, r.sub(x_, mean_)))

        sum_dy, dot = loops.reduce(b, [dy, x], [op.save_mean], 2, sums, like=x)

        def coefficients(r: RegionBuilder, sum_dy_, dot_, invstd_, w_, *_outs):
            count = scalar(r, n, element)
            mean_dy = r.div(sum_dy_, count)
            projection = r.div(r.mul(dot_, r.mul(invstd_, invstd_)), count)
            return mean_dy, projection, r.mul(invstd_, w_), r.mul(dot_, invstd_)

        mean_dy, projection, scale, dweight = per_element(
            b, [sum_dy, dot, op.save_invstd, op.weight], 4, coefficients
        )
        every = dims_map(rank, lambda d: d)
        channel = dims_map(rank, lambda d: (d[1],))
        dx = b.generic(
            ins=[dy, x, op.save_mean, mean_dy, projection, scale],
            init=b.empty(shape_of(x), element, like=x),
            maps=[every, every, channel, channel, channel, channel, every],
            iterators="p" * rank,
            body=lambda r, dy_, x_, m_, mdy_, p_, s_, _out: r.mul(
                r.sub(r.sub(dy_, mdy_), r.mul(r.sub(x_, m_), p_)), s_
            ),
        )
        rewriter.replace(op, [], [dx, dweight, sum_dy])


class BatchNormInferenceBackwardToLinalg(RewritePattern):
    """native_batch_norm_backward(train=False): the running statistics are constants.

        sum_dy[c] = sum_{n, *s} dy,   dot[c] = sum_{n, *s} dy * (x - running_mean[c])
        invstd[c] = 1 / sqrt(running_var[c] + eps),   scale[c] = invstd[c] * weight[c]
        dx[n, c, *s] = dy * scale[c]
        dweight[c] = dot[c] * invstd[c],   dbias[c] = sum_dy[c]

    without a weight, scale is invstd.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.BatchNormInferenceBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dy, x, element, eps = op.grad_output, op.input, element_type_of(op.input), op.eps
        rank = len(shape_of(x))

        def sums(r: RegionBuilder, dy_, x_, mean_, sum_dy, dot):
            return r.accumulate(sum_dy, dy_), r.accumulate(dot, r.mul(dy_, r.sub(x_, mean_)))

        sum_dy, dot = ChannelLoops(rank).reduce(b, [dy, x], [op.running_mean], 2, sums, like=x)
        weights = [] if op.weight is None else [op.weight]

        def coefficients(r: RegionBuilder, var_, dot_, *rest):
            *w_, _scale, _dweight = rest
            invstd = inverse_sqrt(r, r.add(var_, r.constant(eps, element)))
            return (r.mul(invstd, w_[0]) if w_ else invstd), r.mul(dot_, invstd)

        scale, dweight = per_element(b, [op.running_var, dot, *weights], 2, coefficients)
        every = dims_map(rank, lambda d: d)
        channel = dims_map(rank, lambda d: (d[1],))
        dx = b.generic(
            ins=[dy, scale],
            init=b.empty(shape_of(x), element, like=x),
            maps=[every, channel, every],
            iterators="p" * rank,
            body=lambda r, dy_, s_, _out: r.mul(dy_, s_),
        )
        rewriter.replace(op, [], [dx, dweight, sum_dy])


def centered_row_gradient(
    b: TensorBuilder, loops: RowLoops, dy: SSAValue, x: SSAValue, mean: SSAValue, rstd: SSAValue,
    weight: SSAValue | None, stat_maps: tuple[AffineMap, AffineMap], weight_maps: tuple[AffineMap, AffineMap],
    one_pass: bool = False,
) -> SSAValue:
    """dx = rstd * (g - mean_g - xhat * mean_gx) of layer and group norm, over `loops`' rows of x:

        xhat = (x - mean) * rstd,   g = dy * weight (dy without one)
        mean_g[o] = sum_{*j} g / m,   mean_gx[o] = sum_{*j} g * xhat / m

    mean and rstd are read through `stat_maps` and the weight through `weight_maps`, each
    pair (in the reduction's loops, in x's own loops). Two single-sum generics, not one
    with two results: with both accumulators in one loop LLVM kept it scalar (measured;
    presumably it could not prove the two apart), alone each is vectorized with a partial
    sum per lane (17.6 -> 7.8 ms at 25088x96). `one_pass` sums both in one generic all
    the same: IREE's llvm-cpu rejects a lone sum of dy * weight whose weight shares a row
    axis with dy (group norm's [G, C/G]: "'vector.contract' op invalid accumulator/result
    vector shape", measured), and accepts the two sums together.
    """
    element, m = element_type_of(x), loops.row_size(x)
    weights = [] if weight is None else [weight]
    stat, stat_at_x = stat_maps

    def gradient_of_y(r: RegionBuilder, dy_, *w_):
        return r.mul(dy_, w_[0]) if w_ else dy_

    def sum_of_g(r: RegionBuilder, dy_, *w_and_acc):
        *w_, acc = w_and_acc
        return r.accumulate(acc, gradient_of_y(r, dy_, *w_))

    def sum_of_g_xhat(r: RegionBuilder, dy_, x_, mean_, rstd_, *w_and_acc):
        *w_, acc = w_and_acc
        return r.accumulate(acc, r.mul(gradient_of_y(r, dy_, *w_), normalized(r, x_, mean_, rstd_)))

    def both_sums(r: RegionBuilder, dy_, x_, mean_, rstd_, *w_and_accs):
        *w_, acc_g, acc_gx = w_and_accs
        g = gradient_of_y(r, dy_, *w_)
        return r.accumulate(acc_g, g), r.accumulate(acc_gx, r.mul(g, normalized(r, x_, mean_, rstd_)))

    weight_in_loops = [weight_maps[0]] * len(weights)
    centered_maps = [loops.x(), loops.x(), stat, stat, *weight_in_loops]
    if one_pass:
        sum_g, sum_gx = loops.reduce_rows(b, x, [dy, x, mean, rstd, *weights], centered_maps, 2, both_sums)
    else:
        sum_g = loops.reduce_rows(b, x, [dy, *weights], [loops.x(), *weight_in_loops], 1, sum_of_g)
        sum_gx = loops.reduce_rows(b, x, [dy, x, mean, rstd, *weights], centered_maps, 1, sum_of_g_xhat)
    mean_g, mean_gx = per_element(
        b, [sum_g, sum_gx], 2,
        lambda r, g_, gx_, *_outs: (r.div(g_, r.constant(m, element)), r.div(gx_, r.constant(m, element))),
        like=x,
    )
    every, row, _ = loops.over_x()

    def grad_input(r: RegionBuilder, dy_, x_, mean_, rstd_, *rest):
        *w_, mg_, mgx_, _out = rest
        g = gradient_of_y(r, dy_, *w_)
        return r.mul(rstd_, r.sub(r.sub(g, mg_), r.mul(normalized(r, x_, mean_, rstd_), mgx_)))

    return b.generic(
        ins=[dy, x, mean, rstd, *weights, mean_g, mean_gx],
        init=b.empty(shape_of(x), element, like=x),
        maps=[every, every, stat_at_x, stat_at_x, *[weight_maps[1]] * len(weights), row, row, every],
        iterators="p" * len(shape_of(x)),
        body=grad_input,
    )


def normalized(r: RegionBuilder, x_: SSAValue, mean_: SSAValue, rstd_: SSAValue) -> SSAValue:
    """xhat = (x - mean) * rstd, recomputed from the saved statistics."""
    return r.mul(r.sub(x_, mean_), rstd_)


def affine_gradients(
    b: TensorBuilder, dy: SSAValue, x: SSAValue, mean: SSAValue, rstd: SSAValue, stat_at_x: AffineMap,
    column: AffineMap, column_shape: Sequence[int], iterators: str,
) -> tuple[SSAValue, SSAValue]:
    """dweight = sum dy * xhat and dbias = sum dy over the loops of x that `column` leaves
    out (`iterators` marks them R): one generic over x's own loops with both sums."""
    every = dims_map(len(shape_of(x)), lambda d: d)
    inits = [b.full(column_shape, element_type_of(x), 0.0) for _ in range(2)]

    def column_sums(r: RegionBuilder, dy_, x_, mean_, rstd_, dw, db):
        return r.add(dw, r.mul(dy_, normalized(r, x_, mean_, rstd_))), r.add(db, dy_)

    return b.generic(
        ins=[dy, x, mean, rstd],
        init=inits,
        maps=[every, every, stat_at_x, stat_at_x, column, column],
        iterators=iterators,
        body=column_sums,
    )


class LayerNormBackwardToLinalg(RewritePattern):
    """native_layer_norm_backward over the last k axes (the weight's rank), m values per row o:

        xhat[o, *j] = (x[o, *j] - mean[o]) * rstd[o],   g = dy * weight[*j]
        mean_g[o]  = sum_{*j} g / m,   mean_gx[o] = sum_{*j} g * xhat / m
        dx[o, *j]  = rstd[o] * (g - mean_g[o] - xhat * mean_gx[o])
        dweight[*j] = sum_o dy * xhat,   dbias[*j] = sum_o dy

    mean and rstd come in ATen's shape [*outer, 1, ..., 1], viewed as [*outer] (`stat_as_rows`).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.LayerNormBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        loops = RowLoops.of(op)
        k, rank = loops.normalized, loops.outer + loops.normalized
        mean, rstd = loops.stat_as_rows(b, op.mean), loops.stat_as_rows(b, op.rstd)
        _, stat_at_x, weight = loops.over_x()
        dx = centered_row_gradient(
            b, loops, op.grad_output, op.input, mean, rstd, op.weight,
            (loops.row(), stat_at_x), (loops.normalized_axes(), weight),
        )
        # dweight, dbias: x's own loop order (*o, *j), the row loops reduced outside the
        # columns, so the inner loop runs along a row of x and dy with unit stride (with the
        # rows innermost it read one element per row: 34.6 -> 17.6 ms for the whole
        # gradient at 25088x96). Every output element sums its rows in order either way.
        dweight, dbias = affine_gradients(
            b, op.grad_output, op.input, mean, rstd, stat_at_x, weight, shape_of(op.weight),
            "R" * (rank - k) + "p" * k,
        )
        rewriter.replace(op, [], [dx, dweight, dbias])


class RmsNormBackwardToLinalg(RewritePattern):
    """_fused_rms_norm_backward over the last k axes, m values per row o (w = 1 without a weight):

        xhat[o, *j] = x[o, *j] * rstd[o],   g = dy * weight[*j]
        mean_gx[o] = sum_{*j} g * xhat / m
        dx[o, *j]  = rstd[o] * (g - xhat * mean_gx[o])
        dweight[*j] = sum_o dy * xhat   (only with a weight)

    rstd comes in ATen's shape [*outer, 1, ..., 1] and is read at (*o, 0, ..., 0). Each
    sum is a generic with one accumulator (layer norm's backward says why).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.RmsNormBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dy, x, element = op.grad_output, op.input, element_type_of(op.input)
        loops = RowLoops.of(op)
        k, rank, m = loops.normalized, loops.outer + loops.normalized, loops.row_size(x)
        weights = [] if op.weight is None else [op.weight]

        def gradient_of_y(r: RegionBuilder, dy_, w_=None):
            return dy_ if w_ is None else r.mul(dy_, w_)

        def sum_of_g_xhat(r: RegionBuilder, dy_, x_, rstd_, *w_and_acc):
            *w_, acc = w_and_acc
            return r.accumulate(acc, r.mul(gradient_of_y(r, dy_, *w_), r.mul(x_, rstd_)))

        stat = loops.row_stat()
        sum_gx = loops.reduce_rows(
            b, x, [dy, x, op.rstd, *weights], [loops.x(), loops.x(), stat, *(loops.normalized_axes() for _ in weights)],
            1, sum_of_g_xhat,
        )
        mean_gx = per_element(b, [sum_gx], 1, lambda r, gx_, _out: r.div(gx_, r.constant(m, element)), like=x)
        every, row, weight = loops.over_x()
        stat_at_x = dims_map(rank, lambda d: (*d[: rank - k], *(0,) * k))

        def grad_input(r: RegionBuilder, dy_, x_, rstd_, mgx_, *w_and_out):
            *w_, _out = w_and_out
            xhat = r.mul(x_, rstd_)
            return r.mul(rstd_, r.sub(gradient_of_y(r, dy_, *w_), r.mul(xhat, mgx_)))

        dx = b.generic(
            ins=[dy, x, op.rstd, mean_gx, *weights],
            init=b.empty(shape_of(x), element, like=x),
            maps=[every, every, stat_at_x, row, *(weight for _ in weights), every],
            iterators="p" * rank,
            body=grad_input,
        )
        if op.weight is None:
            rewriter.replace(op, [], [dx])
            return
        # dweight: x's own loop order, the rows reduced outside the columns (layer norm's
        # backward says why).
        dweight = b.generic(
            ins=[dy, x, op.rstd],
            init=b.full(shape_of(op.weight), element, 0.0),
            maps=[every, every, stat_at_x, weight],
            iterators="R" * (rank - k) + "p" * k,
            body=lambda r, dy_, x_, rstd_, dw: r.add(dw, r.mul(dy_, r.mul(x_, rstd_))),
        )
        rewriter.replace(op, [], [dx, dweight])
