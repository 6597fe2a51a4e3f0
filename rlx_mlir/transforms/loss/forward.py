"""The lowering of the forward loss ops: `rlx.log_softmax`, `rlx.softmax`, `rlx.nll_loss`.

Every reduction is a `linalg.generic` with a reduction iterator writing into a filled
init (-inf for a max, 0 for a sum), indexed in gather form; every elementwise step is an
all-parallel generic. The class gather of the NLL loss is a generic over the target's
elements that reads the log-probability with `tensor.extract` at an index clamped into
[0, C), so no index, however bad the target, reads out of bounds. The IR's size depends
on the ranks only, never on the tensor sizes. The helpers here are shared with
`backward` (the reductions along one axis, the scalar math ops RegionBuilder lacks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of

# -- scalar math a generic body needs (RegionBuilder has arithmetic, compares and selects) --


def exp(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return r.value(math.ExpOp(x))


def log(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return r.value(math.LogOp(x))


def neg(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return r.value(arith.NegfOp(x))


def maximum(r: RegionBuilder, a: SSAValue, b: SSAValue) -> SSAValue:
    """`arith.maximumf`: NaN if either is NaN, as torch's max (a NaN row stays NaN)."""
    return r.value(arith.MaximumfOp(a, b))


# -- along one axis -------------------------------------------------------------------------


class Axis:
    """The loops of a reduction along axis `dim` of a rank-`rank` tensor: one loop per axis,
    `dim`'s a reduction. `full` indexes a tensor of the operand's shape, `reduced` one
    without the axis (a row's max or sum), broadcast back along `dim` when read."""

    def __init__(self, shape: Sequence[int], dim: int):
        self.shape, self.dim, self.rank = tuple(shape), dim, len(shape)
        self.full: AffineMap = dims_map(self.rank, lambda d: d)
        self.reduced: AffineMap = dims_map(self.rank, lambda d: tuple(d[i] for i in range(self.rank) if i != dim))
        self.iterators = "".join("r" if i == dim else "p" for i in range(self.rank))

    @property
    def reduced_shape(self) -> tuple[int, ...]:
        return tuple(size for i, size in enumerate(self.shape) if i != self.dim)

    def reduce(
        self,
        b: TensorBuilder,
        ins: Sequence[SSAValue],
        start: float,
        combine: Callable[..., SSAValue],
    ) -> SSAValue:
        """acc[*i without dim] = combine(r, *ins[*i], acc), from `start`, over the axis.

        A dynamic leading size is read from the first operand (the reduced tensor keeps
        axis 0 unless it is the reduced one, and then it has no dynamic axis).
        """
        like = ins[0]
        init = b.full(self.reduced_shape, element_type_of(like), start, like=like)
        return b.generic(
            ins=list(ins), init=init, maps=[self.full] * len(ins) + [self.reduced],
            iterators=self.iterators, body=combine,
        )

    def map(
        self,
        b: TensorBuilder,
        full: Sequence[SSAValue],
        reduced: Sequence[SSAValue],
        body: Callable[..., SSAValue],
    ) -> SSAValue:
        """out[*i] = body(r, *full[*i], *reduced[*i without dim]), all parallel."""
        init = b.empty(self.shape, element_type_of(full[0]), like=full[0])
        return b.generic(
            ins=[*full, *reduced], init=init,
            maps=[self.full] * len(full) + [self.reduced] * len(reduced) + [self.full],
            iterators="p" * self.rank, body=lambda r, *args: body(r, *args[:-1]),
        )


def row_max_and_sum(b: TensorBuilder, axis: Axis, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """m = max_dim x (from -inf) and s = sum_dim exp(x - m) (from 0): the stable softmax's two reductions."""
    m = axis.reduce(b, [x], float("-inf"), lambda r, x_, acc: maximum(r, x_, acc))
    init = b.full(axis.reduced_shape, element_type_of(x), 0.0, like=x)
    s = b.generic(
        ins=[x, m], init=init, maps=[axis.full, axis.reduced, axis.reduced], iterators=axis.iterators,
        body=lambda r, x_, m_, acc: r.accumulate(acc, exp(r, r.sub(x_, m_))),
    )
    return m, s


class LogSoftmaxToLinalg(RewritePattern):
    """y[*i] = (x[*i] - m) - log(s),   m = max_dim x,   s = sum_dim exp(x - m)

    ATen's order of operations (`_vec_log_softmax`): the max is subtracted before the log
    of the sum, so the largest entry's `x - m` is exactly 0 and no exp overflows. A row of
    only -inf gets m = -inf and x - m = NaN, as in PyTorch; NaN propagates through the max.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.LogSoftmaxOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        axis = Axis(shape_of(op.input), op.dim)
        m, s = row_max_and_sum(b, axis, op.input)
        y = axis.map(b, [op.input], [m, s], lambda r, x_, m_, s_: r.sub(r.sub(x_, m_), log(r, s_)))
        rewriter.replace(op, [], [y])


class SoftmaxToLinalg(RewritePattern):
    """y[*i] = exp(x[*i] - m) / s,   m = max_dim x,   s = sum_dim exp(x - m)

    exp(x - m) is recomputed rather than stored: the same operation on the same values,
    so the numerator is bit for bit the term the sum added, without a tensor of them.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.SoftmaxOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        axis = Axis(shape_of(op.input), op.dim)
        m, s = row_max_and_sum(b, axis, op.input)
        y = axis.map(b, [op.input], [m, s], lambda r, x_, m_, s_: r.div(exp(r, r.sub(x_, m_)), s_))
        rewriter.replace(op, [], [y])


# -- the negative log-likelihood ------------------------------------------------------------


class TargetLoops:
    """The loops over the target's elements, `(n, *d)` (none for an unbatched, 0-d target),
    and where each reads the input: `[n, t, *d]`, or `[t]` unbatched (class axis 1 or 0)."""

    def __init__(self, input_shape: Sequence[int]):
        self.batched = len(input_shape) >= 2
        self.classes = input_shape[1] if self.batched else input_shape[0]
        self.rank = len(input_shape) - 1 if self.batched else 0
        self.full: AffineMap = dims_map(self.rank, lambda d: d)
        self.scalar: AffineMap = dims_map(self.rank, lambda d: ())

    def input_index(self, r: RegionBuilder, cls: SSAValue) -> list[SSAValue]:
        if not self.batched:
            return [cls]
        return [r.loop_index(0), cls, *(r.loop_index(k) for k in range(1, self.rank))]


def element_loss(
    r: RegionBuilder, loops: TargetLoops, t: SSAValue, logp: SSAValue, weight: SSAValue, ignore_index: int
) -> tuple[SSAValue, SSAValue]:
    """(l, w) of one target t: (0, 0) if ignored, else (-logp[.., t, ..] * weight[t], weight[t]).

    The class index is clamped into [0, C) before it is read (`tensor.extract` needs it in
    bounds); an out-of-range t that is not ignored then gives (NaN, 0), the NaN standing
    for PyTorch's "Target t is out of bounds" error.
    """
    element = element_type_of(logp)
    cls = r.index_cast(t, IndexType())
    inside = r.in_range(cls, r.index(loops.classes))
    safe = r.select(inside, cls, r.index(0))
    w = r.extract(weight, [safe])
    l = r.mul(neg(r, r.extract(logp, loops.input_index(r, safe))), w)
    zero = r.constant(0.0, element)
    ignored = r.cmpi("eq", t, r.constant(ignore_index, i64))
    l = r.select(ignored, zero, r.select(inside, l, r.constant(float("nan"), element)))
    w = r.select(ignored, zero, r.select(inside, w, zero))
    return l, w


class NllLossToLinalg(RewritePattern):
    """l[n, *d] = ignored ? 0 : -logp[n, t, *d] * weight[t],   w[n, *d] = ignored ? 0 : weight[t],   t = target[n, *d]

    "none" (batched): loss = l, one parallel gather over the target, total_weight = 0.
    "sum" / "mean" (and every unbatched loss): one generic reducing over all target loops
    into two 0-d accumulators, (sum l, sum w) = (loss, total_weight); "mean" then divides,
    loss = sum l / sum w (0/0 = NaN when every target is ignored, as in PyTorch).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.NllLossOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        logp, weight = op.input, op.weight
        loops = TargetLoops(shape_of(logp))
        reduction, ignore_index = op.reduction, op.ignore_index
        element = element_type_of(logp)

        def loss_of(r: RegionBuilder, t: SSAValue) -> tuple[SSAValue, SSAValue]:
            return element_loss(r, loops, t, logp, weight, ignore_index)

        if reduction == "none" and loops.batched:
            loss = b.generic(
                ins=[op.target], init=b.empty(shape_of(op.target), element, like=op.target),
                maps=[loops.full, loops.full], iterators="p" * loops.rank,
                body=lambda r, t, _out: loss_of(r, t)[0],
            )
            rewriter.replace(op, [], [loss, b.full((), element, 0.0)])
            return

        def accumulate(r: RegionBuilder, t: SSAValue, loss_acc: SSAValue, weight_acc: SSAValue):
            l, w = loss_of(r, t)
            return r.add(loss_acc, l), r.add(weight_acc, w)

        loss, total_weight = b.generic(
            ins=[op.target], init=[b.full((), element, 0.0), b.full((), element, 0.0)],
            maps=[loops.full, loops.scalar, loops.scalar], iterators="r" * loops.rank, body=accumulate,
        )
        if reduction == "mean":
            scalar = dims_map(0, lambda d: ())
            loss = b.generic(
                ins=[loss, total_weight], init=b.empty((), element), maps=[scalar] * 3, iterators="",
                body=lambda r, l, w, _out: r.div(l, w),
            )
        rewriter.replace(op, [], [loss, total_weight])
