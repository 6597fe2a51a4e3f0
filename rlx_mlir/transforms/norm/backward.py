"""`decompose-backward` for the norm gradients: batch norm (training), layer norm and RMS norm.

Both are the same three steps, in the forward lowering's loops (`norm.ChannelLoops`,
`norm.RowLoops`): one reduction with two accumulators (the sum of the incoming gradient
and its dot product with the normalized input), small all-parallel generics on those
statistics, and one all-parallel generic for dx. The normalized input is recomputed from
the saved statistics as `(x - mean) * invstd`, a deviation from the mean, so nothing
cancels as `sum(dy * x) - mean * sum(dy)` would. RMS norm has no mean: its one row sum
is sum(g * xhat), in a generic of its own as layer norm's are.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import norm
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.norm.forward import ChannelLoops, RowLoops, count_of, per_element, scalar


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


class LayerNormBackwardToLinalg(RewritePattern):
    """native_layer_norm_backward over the last k axes (the weight's rank), m values per row o:

        xhat[o, *j] = (x[o, *j] - mean[o]) * rstd[o],   g = dy * weight[*j]
        mean_g[o]  = sum_{*j} g / m,   mean_gx[o] = sum_{*j} g * xhat / m
        dx[o, *j]  = rstd[o] * (g - mean_g[o] - xhat * mean_gx[o])
        dweight[*j] = sum_o dy * xhat,   dbias[*j] = sum_o dy

    mean and rstd come in ATen's shape [*outer, 1, ..., 1] and are read at (*o, 0, ..., 0).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.LayerNormBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dy, x, element = op.grad_output, op.input, element_type_of(op.input)
        loops = RowLoops.of(op)
        k, rank, m = loops.normalized, loops.outer + loops.normalized, loops.row_size(x)

        def xhat(r: RegionBuilder, x_, mean_, rstd_):
            return r.mul(r.sub(x_, mean_), rstd_)

        # Two single-sum generics, not one with two results: with both accumulators in one
        # loop LLVM kept it scalar (measured; presumably it could not prove the two apart),
        # alone each is vectorized with a partial sum per lane (17.6 -> 7.8 ms at 25088x96).
        def sum_of_g(r: RegionBuilder, dy_, w_, acc):
            return r.accumulate(acc, r.mul(dy_, w_))

        def sum_of_g_xhat(r: RegionBuilder, dy_, x_, mean_, rstd_, w_, acc):
            return r.accumulate(acc, r.mul(r.mul(dy_, w_), xhat(r, x_, mean_, rstd_)))

        stat, weight_of_row = loops.row_stat(), loops.normalized_axes()
        sum_g = loops.reduce_rows(b, x, [dy, op.weight], [loops.x(), weight_of_row], 1, sum_of_g)
        sum_gx = loops.reduce_rows(
            b, x, [dy, x, op.mean, op.rstd, op.weight], [loops.x(), loops.x(), stat, stat, weight_of_row], 1, sum_of_g_xhat,
        )
        mean_g, mean_gx = per_element(
            b, [sum_g, sum_gx], 2,
            lambda r, g_, gx_, *_outs: (r.div(g_, r.constant(m, element)), r.div(gx_, r.constant(m, element))),
            like=x,
        )
        every, row, weight = loops.over_x()
        stat_at_x = dims_map(rank, lambda d: (*d[: rank - k], *(0,) * k))

        def grad_input(r: RegionBuilder, dy_, x_, mean_, rstd_, w_, mg_, mgx_, _out):
            g = r.mul(dy_, w_)
            return r.mul(rstd_, r.sub(r.sub(g, mg_), r.mul(xhat(r, x_, mean_, rstd_), mgx_)))

        dx = b.generic(
            ins=[dy, x, op.mean, op.rstd, op.weight, mean_g, mean_gx],
            init=b.empty(shape_of(x), element, like=x),
            maps=[every, every, stat_at_x, stat_at_x, weight, row, row, every],
            iterators="p" * rank,
            body=grad_input,
        )
        # dweight, dbias: x's own loop order (*o, *j), the row loops reduced outside the
        # columns, so the inner loop runs along a row of x and dy with unit stride (with the
        # rows innermost it read one element per row: 34.6 -> 17.6 ms for the whole
        # gradient at 25088x96). Every output element sums its rows in order either way.
        outer = rank - k
        normalized = shape_of(op.weight)
        inits = [b.full(normalized, element, 0.0) for _ in range(2)]

        def column_sums(r: RegionBuilder, dy_, x_, mean_, rstd_, dw, db):
            return r.add(dw, r.mul(dy_, xhat(r, x_, mean_, rstd_))), r.add(db, dy_)

        dweight, dbias = b.generic(
            ins=[dy, x, op.mean, op.rstd],
            init=inits,
            maps=[every, every, stat_at_x, stat_at_x, weight, weight],
            iterators="R" * outer + "p" * k,
            body=column_sums,
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
