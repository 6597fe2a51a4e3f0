"""The lowering of `rlx.embedding_backward`: deterministic reductions, no scatter.

The gradient is a scatter-add (row t of grad_weight receives grad_output[*i] for every
position *i holding t), whose parallel forms race or depend on the order threads add in.
Here it is a gather-form `linalg.generic` over the result [V, D] whose reduction loops run
over the index positions: each grad_weight element is one sum in a fixed order that
only its own loop iterations write, so the result never depends on thread timing, the
op tiles and parallelises over (v, d) like any reduction, and its IR does not grow with
any size. The price is O(V * N * D) compare-and-selects for N index positions, against
the O(N * D) of a serial scatter; a sort-based form (sort the positions by index, then a
segmented sum) would be O(N log N + N * D) but needs a sort upstream linalg lacks.
The frequency counts are a second reduction of the same form, O(V * N).
"""

from __future__ import annotations

from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.indexing import NO_PADDING
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of


def matches(r: RegionBuilder, t: SSAValue, row: SSAValue) -> SSAValue:
    """Whether index `t` (i64) names row `row` (an `index` loop value); no out-of-range t does."""
    return r.cmpi("eq", t, r.index_cast(row, i64))


def inverse_counts(b: TensorBuilder, indices: SSAValue, rows: int, element) -> SSAValue:
    """s[v] = 1 / (the count of v in indices): for v, *i: count[v] += (t == v), then s = 1 / count.

    A row that no index names gets 1/0 = inf, which no contribution ever multiplies.
    """
    rank = len(shape_of(indices))
    counts = b.generic(
        ins=[indices], init=b.full((rows,), element, 0.0),
        maps=[dims_map(rank + 1, lambda d: d[1:]), dims_map(rank + 1, lambda d: (d[0],))],
        iterators="p" + "r" * rank,
        body=lambda r, t, acc: r.add(acc, r.select(matches(r, t, r.loop_index(0)), r.constant(1.0, element), r.constant(0.0, element))),
    )
    vector = dims_map(1, lambda d: d)
    return b.generic(
        ins=[counts], init=b.empty((rows,), element), maps=[vector, vector], iterators="p",
        body=lambda r, count, _out: r.div(r.constant(1.0, element), count),
    )


class EmbeddingBackwardToLinalg(RewritePattern):
    """gw[v, d] = sum_{*i} (t == v and t != padding_idx) ? s[v] * dy[*i, d] : 0,   t = indices[*i]

        for v, d (parallel), *i (reduction): gw[v, d] += select(match, dy[*i, d] * s[v], 0)

    s = inverse_counts(indices) with scale_grad_by_freq (ATen multiplies each contribution
    by 1/count), else no factor. The padding row matches no index, so it stays 0.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.EmbeddingBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rows, dim = shape_of(op.result)
        rank = len(shape_of(op.indices))
        element = element_type_of(op.grad_output)
        padding_idx, scaled = op.padding_idx, op.scale_grad_by_freq
        loops = rank + 2  # (v, d, *i)
        ins = [op.indices, op.grad_output]
        maps = [dims_map(loops, lambda d: d[2:]), dims_map(loops, lambda d: (*d[2:], d[1]))]
        if scaled:
            ins.append(inverse_counts(b, op.indices, rows, element))
            maps.append(dims_map(loops, lambda d: (d[0],)))

        def accumulate(r: RegionBuilder, t: SSAValue, dy: SSAValue, *rest: SSAValue) -> SSAValue:
            *scale, acc = rest
            match = matches(r, t, r.loop_index(0))
            if padding_idx != NO_PADDING:
                match = r.and_(match, r.cmpi("ne", t, r.constant(padding_idx, i64)))
            term = r.mul(dy, scale[0]) if scale else dy
            return r.accumulate(acc, r.select(match, term, r.constant(0.0, element)))

        gw = b.generic(
            ins=ins, init=b.full((rows, dim), element, 0.0),
            maps=[*maps, dims_map(loops, lambda d: (d[0], d[1]))],
            iterators="pp" + "r" * rank, body=accumulate,
        )
        rewriter.replace(op, [], [gw])
