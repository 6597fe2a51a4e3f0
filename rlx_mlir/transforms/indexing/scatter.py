"""The lowerings of `rlx.scatter` and `rlx.scatter_value`: the last write, found by a max.

Several index positions may write one element; PyTorch leaves which wins unspecified, the
dialect says the last along `dim`. A reduction that keeps "the latest write" depends on the
order it runs in, which a parallel or split reduction does not keep. Instead each element
first finds which position writes it last, as an unsigned max, which every order computes
alike:

    last[q] = max_m (index[q|m] == q[dim] ? m + 1 : 0)        (0: no position writes q)

and then a parallel generic writes src[q|last - 1] (or the value) where last > 0 and keeps
the input elsewhere. Like scatter_add's, the max runs over the part of the input the index
covers, at input.size(dim) * index.numel() compares; the IR depends on the rank only.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.indexing.positions import along_index, covered_part

Written = Callable[[RegionBuilder, SSAValue], SSAValue]
"""What is written at element q, given last[q] = m + 1 (i64) of the index position m that wins it."""


def scatter_last(b: TensorBuilder, op: rlx.ScatterOp | rlx.ScatterValueOp, written: Written) -> SSAValue:
    """y[q] = last[q] > 0 ? written(last[q]) : input[q], with last as in the module docstring.

        for q in the covered part (parallel), m (reduction): last[q] = maxui(last[q], match ? m + 1 : 0)
        for q (parallel): y[q] = select(last[q] != 0, written(last[q] - 1), input[q])
    """
    rank, dim = len(shape_of(op.index)), op.dim
    _, covered = covered_part(b, op)

    def latest(r: RegionBuilder, t: SSAValue, last: SSAValue) -> SSAValue:
        match = r.cmpi("eq", t, r.index_cast(r.loop_index(dim), i64))
        position = r.add(r.index_cast(r.loop_index(rank), i64), r.constant(1, i64))
        return r.maxui(last, r.select(match, position, r.constant(0, i64)))

    last = b.generic(
        ins=[op.index], init=b.full(shape_of(covered), i64, 0, like=covered),
        maps=[along_index(rank, dim), dims_map(rank + 1, lambda d: d[:rank])],
        iterators="p" * rank + "r", body=latest,
    )

    def write(r: RegionBuilder, winner: SSAValue, x: SSAValue, _out: SSAValue) -> SSAValue:
        return r.select(r.cmpi("ne", winner, r.constant(0, i64)), written(r, winner), x)

    identity = dims_map(rank, lambda d: d)
    part = b.generic(
        ins=[last, covered], init=b.empty(shape_of(covered), element_type_of(op.input), like=covered),
        maps=[identity] * 3, iterators="p" * rank, body=write,
    )
    return part if covered is op.input else b.insert_slice(part, op.input, [0] * rank)


class ScatterToLinalg(RewritePattern):
    """y[q] = src[q|m] for the last m with index[q|m] == q[dim], else input[q] (`scatter_last`).

    The winner is read with `tensor.extract` (its position m < index.size(dim) <= src.size(dim)).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ScatterOp, rewriter: PatternRewriter):
        rank, dim = len(shape_of(op.index)), op.dim

        def source(r: RegionBuilder, winner: SSAValue) -> SSAValue:
            m = r.index_cast(r.sub(winner, r.constant(1, i64)), IndexType())
            return r.extract(op.src, [m if axis == dim else r.loop_index(axis) for axis in range(rank)])

        rewriter.replace(op, [], [scatter_last(TensorBuilder(rewriter, op), op, source)])


class ScatterValueToLinalg(RewritePattern):
    """y[q] = value where some index position writes q, else input[q] (`scatter_last`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ScatterValueOp, rewriter: PatternRewriter):
        element = element_type_of(op.input)
        value = op.value
        rewriter.replace(op, [], [scatter_last(TensorBuilder(rewriter, op), op, lambda r, _m: r.constant(value, element))])
