"""The lowering of `rlx.embedding`: one gather-form `linalg.generic` over the result.

The loops run over the result [*indices.shape, D]; the body reads the index, casts it to
`index` and reads the weight with `tensor.extract` at a row clamped into [0, V), so no
index, however bad, reads out of bounds; an index outside [0, V) then yields 0 (the
dialect's documented result where PyTorch raises). The IR's size depends on the indices'
rank only.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.indexing.positions import position_of


class EmbeddingToLinalg(RewritePattern):
    """y[*i, d] = 0 <= t < V ? weight[t, d] : 0,   t = indices[*i]

        for *i, d (parallel): y[*i, d] = weight[clamp(t), d] selected by inside(t)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.EmbeddingOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rows, _ = shape_of(op.weight)
        rank = len(shape_of(op.indices))
        element = element_type_of(op.weight)

        def gather(r: RegionBuilder, t: SSAValue, _out: SSAValue) -> SSAValue:
            row, inside = position_of(r, t, rows)
            value = r.extract(op.weight, [row, r.loop_index(rank)])
            return r.select(inside, value, r.constant(0.0, element))

        y = b.generic(
            ins=[op.indices], init=b.empty(shape_of(op.result), element, like=op.indices),
            maps=[dims_map(rank + 1, lambda d: d[:rank]), dims_map(rank + 1, lambda d: d)],
            iterators="p" * (rank + 1), body=gather,
        )
        rewriter.replace(op, [], [y])
