"""`convert-rlx-to-linalg` for the norm ops: batch norm (training and eval), layer norm and RMS norm.

Statistics are computed stably, in two reductions: the mean first, then the variance as
the mean of squared deviations from it, never `E[x^2] - E[x]^2` (which cancels
catastrophically when |mean| >> std). Each reduction is one gather-form `linalg.generic`
into a zero-filled init, its reduced axes `reduction` iterators; per-channel (or per-row)
arithmetic is a small all-parallel generic on the statistics, and the normalization one
all-parallel generic over x. The IR does not depend on the data size.

Batch norm reduces x [N, C, *spatial] over the loops (c, n, *s): c parallel, the others
reductions. Its count n = N * prod(spatial) is a constant when N is static; a dynamic N is
read with `tensor.dim` and converted to a float once, outside the bodies that use it.
Layer norm reduces x [*outer, *normalized] over the normalized loops; its count m is
always static, and a dynamic outer (batch) dim only sizes the tensors. RMS norm shares
layer norm's loops; it has no mean, so its one reduction is the sum of squares.

The backward patterns (`backward`) share `ChannelLoops`, `RowLoops` and `count_of`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import i64
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import norm
from rlx_mlir.dialects.norm import stat_shape
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of

Count = float | SSAValue
"""A count of values as a float: a Python float when static, else an SSA value of the element type."""


def scalar(r: RegionBuilder, value: Count, element: Attribute) -> SSAValue:
    """`value` in a generic body: a constant there, or the SSA value computed outside."""
    return r.constant(value, element) if isinstance(value, float) else value


def sqrt(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return r.value(math_dialect.SqrtOp(x))


def inverse_sqrt(r: RegionBuilder, x: SSAValue) -> SSAValue:
    """1 / sqrt(x), as ATen writes it (`math.rsqrt` may lower to an approximation)."""
    return r.div(r.constant(1.0, x.type), sqrt(r, x))


def count_of(b: TensorBuilder, x: SSAValue, axes: Sequence[int]) -> Count:
    """The number of elements of `x` along `axes`, as a float of x's type.

    Static: a Python float. With a dynamic axis (the batch): `tensor.dim`s multiplied by the
    static sizes, converted to the element type (index -> i64 -> float).
    """
    shape = shape_of(x)
    static = math.prod(shape[a] for a in axes if not is_dynamic(shape[a]))
    dynamic = [a for a in axes if is_dynamic(shape[a])]
    if not dynamic:
        return float(static)
    size = b.index(static)
    for axis in dynamic:
        size = b.value(arith.MuliOp(size, b.dim(x, axis)))
    return b.value(arith.SIToFPOp(b.value(arith.IndexCastOp(size, i64)), element_type_of(x)))


def minus_one(b: TensorBuilder, count: Count) -> Count:
    """count - 1 (Bessel's correction's divisor), static or not."""
    if isinstance(count, float):
        return count - 1.0
    return b.value(arith.AddfOp(count, b.constant(-1.0, count.type)))


@dataclass(frozen=True)
class ChannelLoops:
    """The loops (c, n, *s) of a per-channel reduction over x [N, C, *spatial]."""

    rank: int
    """x's rank, 2 + the spatial rank: as many loops."""

    def x(self) -> AffineMap:
        """x[n, c, *s]."""
        return dims_map(self.rank, lambda d: (d[1], d[0], *d[2:]))

    def channel(self) -> AffineMap:
        """A [C] vector at c."""
        return dims_map(self.rank, lambda d: (d[0],))

    def reduce(
        self, b: TensorBuilder, ins: Sequence[SSAValue], channel_ins: Sequence[SSAValue], outs: int,
        body: Callable[..., SSAValue | Sequence[SSAValue]], like: SSAValue,
    ) -> SSAValue | Sequence[SSAValue]:
        """`outs` zero-filled [C] sums over (n, *s) of `body(r, *x_scalars, *channel_scalars, *accs)`.

        `ins` have x's shape, `channel_ins` are [C]. The spatial dims are summed as one
        (x viewed as [N, C, prod(s)]): the innermost loop then runs over a whole image plane,
        which LLVM vectorizes (14 columns of a 14x14 plane did not fill a vector).
        """
        if self.rank > 3:
            whole = [[0], [1], list(range(2, self.rank))]
            flat = [b.collapse_shape(value, whole) for value in ins]
            return ChannelLoops(3).reduce(b, flat, channel_ins, outs, body, like=flat[0])
        channels = shape_of(like)[1]
        element = element_type_of(like)
        inits = [b.full((channels,), element, 0.0) for _ in range(outs)]
        return b.generic(
            ins=[*ins, *channel_ins],
            init=inits,
            maps=[*(self.x() for _ in ins), *(self.channel() for _ in (*channel_ins, *inits))],
            iterators="p" + "R" * (self.rank - 1),
            body=body,
        )


def per_element(
    b: TensorBuilder, ins: Sequence[SSAValue], outs: int, body: Callable[..., SSAValue | Sequence[SSAValue]],
    like: SSAValue | None = None,
) -> SSAValue | Sequence[SSAValue]:
    """An all-parallel generic over tensors of one shape (the first input's): `outs` results."""
    shape = shape_of(ins[0])
    element = element_type_of(ins[0])
    inits = [b.empty(shape, element, like=like or ins[0]) for _ in range(outs)]
    identity = dims_map(len(shape), lambda d: d)
    return b.generic(ins=list(ins), init=inits, maps=[identity] * (len(ins) + outs), iterators="p" * len(shape), body=body)


def normalize_channels(
    b: TensorBuilder, x: SSAValue, center: SSAValue, scale: SSAValue, bias: SSAValue
) -> SSAValue:
    """y[n, c, *s] = (x[n, c, *s] - center[c]) * scale[c] + bias[c]."""
    rank = len(shape_of(x))
    x_map = dims_map(rank, lambda d: d)
    channel = dims_map(rank, lambda d: (d[1],))
    return b.generic(
        ins=[x, center, scale, bias],
        init=b.empty(shape_of(x), element_type_of(x), like=x),
        maps=[x_map, channel, channel, channel, x_map],
        iterators="p" * rank,
        body=lambda r, x_, m_, s_, b_, _out: r.add(r.mul(r.sub(x_, m_), s_), b_),
    )


def channel_mean_and_deviation_sum(
    b: TensorBuilder, x: SSAValue, n: Count
) -> tuple[SSAValue, SSAValue]:
    """mean[c] = sum_{n, *s} x / n, then var_sum[c] = sum_{n, *s} (x - mean[c])^2: two reductions."""
    element = element_type_of(x)
    loops = ChannelLoops(len(shape_of(x)))
    sums = loops.reduce(b, [x], [], 1, lambda r, x_, acc: r.accumulate(acc, x_), like=x)
    mean = per_element(b, [sums], 1, lambda r, s_, _out: r.div(s_, scalar(r, n, element)))

    def squared_deviation(r: RegionBuilder, x_, m_, acc):
        d = r.sub(x_, m_)
        return r.accumulate(acc, r.mul(d, d))

    var_sum = loops.reduce(b, [x], [mean], 1, squared_deviation, like=x)
    return mean, var_sum


class BatchNormToLinalg(RewritePattern):
    """Training-mode batch norm, with n = N * prod(spatial) values per channel c:

        mean[c]    = sum_{n, *s} x[n, c, *s] / n
        var_sum[c] = sum_{n, *s} (x[n, c, *s] - mean[c])^2
        invstd[c]  = 1 / sqrt(var_sum[c] / n + eps)
        y[n, c, *s] = (x[n, c, *s] - mean[c]) * (invstd[c] * weight[c]) + bias[c]
        new_running_mean[c] = momentum * mean[c] + (1 - momentum) * running_mean[c]
        new_running_var[c]  = momentum * var_sum[c] / (n - 1) + (1 - momentum) * running_var[c]

    n = 1 divides 0 by 0 in the running variance: NaN, as ATen gives.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.BatchNormOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        x, element = op.input, element_type_of(op.input)
        eps, momentum = op.eps, op.momentum
        reduced = [0, *range(2, len(shape_of(x)))]
        n = count_of(b, x, reduced)
        n_minus_1 = minus_one(b, n)
        mean, var_sum = channel_mean_and_deviation_sum(b, x, n)

        def statistics(r: RegionBuilder, m_, v_, w_, rm_, rv_, *_outs):
            invstd = inverse_sqrt(r, r.add(r.div(v_, scalar(r, n, element)), r.constant(eps, element)))
            keep = r.constant(1.0 - momentum, element)
            take = r.constant(momentum, element)
            new_mean = r.add(r.mul(take, m_), r.mul(keep, rm_))
            unbiased = r.div(v_, scalar(r, n_minus_1, element))
            new_var = r.add(r.mul(take, unbiased), r.mul(keep, rv_))
            return invstd, r.mul(invstd, w_), new_mean, new_var

        invstd, scale, new_mean, new_var = per_element(
            b, [mean, var_sum, op.weight, op.running_mean, op.running_var], 4, statistics
        )
        y = normalize_channels(b, x, mean, scale, op.bias)
        rewriter.replace(op, [], [y, mean, invstd, new_mean, new_var])


class BatchNormInferenceToLinalg(RewritePattern):
    """Eval-mode batch norm, from the running statistics:

        scale[c] = weight[c] / sqrt(running_var[c] + eps)   (as 1/sqrt(.) * weight)
        y[n, c, *s] = (x[n, c, *s] - running_mean[c]) * scale[c] + bias[c]
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.BatchNormInferenceOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        element = element_type_of(op.input)
        eps = op.eps
        scale = per_element(
            b, [op.running_var, op.weight], 1,
            lambda r, v_, w_, _out: r.mul(inverse_sqrt(r, r.add(v_, r.constant(eps, element))), w_),
        )
        y = normalize_channels(b, op.input, op.running_mean, scale, op.bias)
        rewriter.replace(op, [], [y])


@dataclass(frozen=True)
class RowLoops:
    """The loops (*o, *j) of layer norm over x [*outer, *normalized]: rows of m values each.

    An x with no outer axes is one row: then a unit loop o stands for it, so that every
    per-row tensor is [1] and every output is still indexed by loop dims only.
    """

    outer: int
    """How many leading (row) axes x has."""
    normalized: int
    """k, how many trailing axes are normalized."""

    @staticmethod
    def of(op: norm.LayerNormOp | norm.LayerNormBackwardOp | norm.RmsNormOp | norm.RmsNormBackwardOp) -> RowLoops:
        """The loops of a layer or RMS norm op over its input."""
        k = op.normalized_axes()
        return RowLoops(len(shape_of(op.input)) - k, k)

    def row_size(self, x: SSAValue) -> float:
        """m, the number of values in a row of x (static: only the batch may be dynamic)."""
        return float(math.prod(shape_of(x)[self.outer :]))

    @property
    def rows(self) -> int:
        """How many row loops: the outer axes, or the one unit loop."""
        return max(self.outer, 1)

    @property
    def count(self) -> int:
        return self.rows + self.normalized

    def x(self) -> AffineMap:
        """x[*o, *j] (the unit loop reads nothing)."""
        return dims_map(self.count, lambda d: (*d[: self.outer], *d[self.rows :]))

    def row(self) -> AffineMap:
        """A per-row tensor, [*outer] (or [1])."""
        return dims_map(self.count, lambda d: d[: self.rows])

    def row_stat(self) -> AffineMap:
        """ATen's [*outer, 1, ..., 1] mean or rstd, read at the row."""
        return dims_map(self.count, lambda d: (*d[: self.outer], *(0,) * self.normalized))

    def normalized_axes(self) -> AffineMap:
        """The weight [*normalized]."""
        return dims_map(self.count, lambda d: d[self.rows :])

    def over_x(self) -> tuple[AffineMap, AffineMap, AffineMap]:
        """For an all-parallel generic over x's own axes: the maps of x, of a per-row tensor
        (the unit one read at 0) and of the weight."""
        rank = self.outer + self.normalized
        return (
            dims_map(rank, lambda d: d),
            dims_map(rank, lambda d: d[: self.outer] if self.outer else (0,)),
            dims_map(rank, lambda d: d[self.outer :]),
        )

    def row_shape(self, x: SSAValue) -> tuple[int, ...]:
        return tuple(shape_of(x)[: self.outer]) if self.outer else (1,)

    def reduce_rows(
        self, b: TensorBuilder, x: SSAValue, ins: Sequence[SSAValue], maps: Sequence[AffineMap], outs: int,
        body: Callable[..., SSAValue | Sequence[SSAValue]],
    ) -> SSAValue | Sequence[SSAValue]:
        """`outs` zero-filled per-row sums over each row's m values of `body(r, *scalars, *accs)`."""
        inits = [b.full(self.row_shape(x), element_type_of(x), 0.0, like=x) for _ in range(outs)]
        return b.generic(
            ins=list(ins), init=inits, maps=[*maps, *(self.row() for _ in inits)],
            iterators="p" * self.rows + "R" * self.normalized, body=body,
        )

    def as_stat_shape(self, b: TensorBuilder, row_values: SSAValue, x: SSAValue) -> SSAValue:
        """A per-row tensor in ATen's shape [*outer, 1, ..., 1]: the last row axis (or the
        unit one) takes the k unit axes."""
        return b.expand_shape(row_values, self.stat_groups(), stat_shape(shape_of(x), self.normalized))

    def stat_as_rows(self, b: TensorBuilder, stat: SSAValue) -> SSAValue:
        """ATen's [*outer, 1, ..., 1] mean or rstd as the per-row [*outer] (or [1]) tensor it
        views (the inverse of `as_stat_shape`), so that the ops reading it index it by the
        row loops, a projected permutation, which the thread schedule splits (a constant 0
        in a map it cannot tell from a gather's)."""
        return b.collapse_shape(stat, self.stat_groups())

    def stat_groups(self) -> list[list[int]]:
        """The reassociation between [*outer] (or [1]) and [*outer, 1, ..., 1]."""
        last = self.rows - 1
        return [[axis] for axis in range(last)] + [list(range(last, self.outer + self.normalized))]


def row_rstd(b: TensorBuilder, sums: SSAValue, m: float, eps: float, x: SSAValue) -> SSAValue:
    """rstd[o] = 1 / sqrt(sums[o] / m + eps): layer norm's (of squared deviations) and RMS
    norm's (of squares)."""
    element = element_type_of(x)
    return per_element(
        b, [sums], 1,
        lambda r, s_, _out: inverse_sqrt(r, r.add(r.div(s_, r.constant(m, element)), r.constant(eps, element))),
        like=x,
    )


def row_mean_and_rstd(b: TensorBuilder, loops: RowLoops, x: SSAValue, eps: float) -> tuple[SSAValue, SSAValue]:
    """Per row of x, in two reductions (the module docstring says why): mean = sum x / m,
    then rstd = 1 / sqrt(sum (x - mean)^2 / m + eps); each [*outer] (or [1])."""
    element = element_type_of(x)
    m = loops.row_size(x)
    sums = loops.reduce_rows(b, x, [x], [loops.x()], 1, lambda r, x_, acc: r.accumulate(acc, x_))
    mean = per_element(b, [sums], 1, lambda r, s_, _out: r.div(s_, r.constant(m, element)), like=x)

    def squared_deviation(r: RegionBuilder, x_, m_, acc):
        d = r.sub(x_, m_)
        return r.accumulate(acc, r.mul(d, d))

    var_sum = loops.reduce_rows(b, x, [x, mean], [loops.x(), loops.row()], 1, squared_deviation)
    return mean, row_rstd(b, var_sum, m, eps, x)


class LayerNormToLinalg(RewritePattern):
    """Layer norm over the last k axes, m = their element count, per row (outer index o):

        mean[o]    = sum_{*j} x[o, *j] / m
        rstd[o]    = 1 / sqrt(sum_{*j} (x[o, *j] - mean[o])^2 / m + eps)
        y[o, *j]   = (x[o, *j] - mean[o]) * rstd[o] * weight[*j] + bias[*j]

    mean and rstd are returned in ATen's shape [*outer, 1, ..., 1] (`expand_shape`).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.LayerNormOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        x, element = op.input, element_type_of(op.input)
        eps = op.eps
        loops = RowLoops.of(op)
        mean, rstd = row_mean_and_rstd(b, loops, x, eps)
        every, row, weight = loops.over_x()
        y = b.generic(
            ins=[x, mean, rstd, op.weight, op.bias],
            init=b.empty(shape_of(x), element, like=x),
            maps=[every, row, row, weight, weight, every],
            iterators="p" * len(shape_of(x)),
            body=lambda r, x_, m_, s_, w_, b_, _out: r.add(r.mul(r.mul(r.sub(x_, m_), s_), w_), b_),
        )
        rewriter.replace(op, [], [y, loops.as_stat_shape(b, mean, x), loops.as_stat_shape(b, rstd, x)])


class RmsNormToLinalg(RewritePattern):
    """RMS norm over the last k axes, m = their element count, per row (outer index o):

        rstd[o]  = 1 / sqrt(sum_{*j} x[o, *j]^2 / m + eps)
        y[o, *j] = x[o, *j] * rstd[o] (* weight[*j], when given)

    rstd is returned in ATen's shape [*outer, 1, ..., 1] (`expand_shape`).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.RmsNormOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        x, element = op.input, element_type_of(op.input)
        eps = op.eps
        loops = RowLoops.of(op)
        m = loops.row_size(x)
        squares = loops.reduce_rows(b, x, [x], [loops.x()], 1, lambda r, x_, acc: r.accumulate(acc, r.mul(x_, x_)))
        rstd = row_rstd(b, squares, m, eps, x)
        every, row, weight = loops.over_x()
        if op.weight is None:
            ins, maps, body = [x, rstd], [every, row], lambda r, x_, s_, _out: r.mul(x_, s_)
        else:
            ins, maps = [x, rstd, op.weight], [every, row, weight]
            body = lambda r, x_, s_, w_, _out: r.mul(r.mul(x_, s_), w_)  # noqa: E731
        y = b.generic(
            ins=ins, init=b.empty(shape_of(x), element, like=x), maps=[*maps, every],
            iterators="p" * len(shape_of(x)), body=body,
        )
        rewriter.replace(op, [], [y, loops.as_stat_shape(b, rstd, x)])
