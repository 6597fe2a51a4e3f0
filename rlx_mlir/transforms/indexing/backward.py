"""The lowering of `rlx.embedding_backward`: a scatter-add of grad_output's rows in a fixed order.

Row t of grad_weight receives grad_output[*i] for every position *i holding t. Parallel
scatter-adds race, or round differently as threads finish in a different order; here the
positions are visited in order by one loop (`row_scatter.scatter_add_rows`), so the
result never depends on thread timing, in O(N * D) adds for N index positions. The
frequency counts of scale_grad_by_freq are a scatter-add of ones, O(N).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.indexing import NO_PADDING
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.indexing.row_scatter import as_positions, scatter_add_rows


def inverse_counts(rewriter: PatternRewriter, op: Operation, targets: SSAValue, rows: int, element) -> SSAValue:
    """s[v] = 1 / (the count of v in targets): counts = scatter-add of ones, then s = 1 / counts.

    A row that no index names gets 1/0 = inf, which no contribution ever multiplies.
    """
    b = TensorBuilder(rewriter, op)
    ones = b.full(shape_of(targets), element, 1.0, like=targets)
    counts = scatter_add_rows(rewriter, op, b.full((rows,), element, 0.0), targets, ones)
    vector = dims_map(1, lambda d: d)
    return b.generic(
        ins=[counts], init=b.empty((rows,), element), maps=[vector, vector], iterators="p",
        body=lambda r, count, _out: r.div(r.constant(1.0, element), count),
    )


class EmbeddingBackwardToLinalg(RewritePattern):
    """gw = 0;  for every index position i, in order:  gw[t_i, :] += s(t_i) * dy[i, :]

    with t_i = indices[i] (the index axes flattened), skipping t_i = padding_idx and any t_i
    outside [0, V) (`scatter_add_rows`). s = inverse_counts(indices) with
    scale_grad_by_freq (ATen multiplies each contribution by 1/count), else no factor.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.EmbeddingBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rows, dim = shape_of(op.result)
        element = element_type_of(op.grad_output)
        targets = as_positions(b, op.indices)
        scale = inverse_counts(rewriter, op, targets, rows, element) if op.scale_grad_by_freq else None
        skip = None if op.padding_idx == NO_PADDING else op.padding_idx
        gw = scatter_add_rows(
            rewriter, op, b.full((rows, dim), element, 0.0), targets, as_positions(b, op.grad_output, trailing=1),
            skip=skip, scale=scale,
        )
        rewriter.replace(op, [], [gw])
