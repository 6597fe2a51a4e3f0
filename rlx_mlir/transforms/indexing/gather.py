"""The lowerings of `rlx.gather` and `rlx.index_select`: gather-form generics.

gather and index_select read `input` at a data-dependent position, so each is one
all-parallel generic over its result whose body reads with `tensor.extract` (`read_along`).
The scatters, which write at such positions, are `element_scatter`'s.

Sizes known only at run time (a dynamic batch) must keep ATen's rule (the index no larger
than the input and src); the verifier checks the static ones.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.indexing.positions import Size, position_of, size_of


def read_along(source: SSAValue, dim: int, size: Size):
    """The body `t -> 0 <= t < size ? source[p with p[dim] := t] : 0`, p the loop indices."""

    def read(r: RegionBuilder, t: SSAValue, _out: SSAValue) -> SSAValue:
        position, inside = position_of(r, t, size)
        rank = len(shape_of(source))
        value = r.extract(source, [position if axis == dim else r.loop_index(axis) for axis in range(rank)])
        return r.select(inside, value, r.constant(0.0, element_type_of(source)))

    return read


class GatherToLinalg(RewritePattern):
    """y[p] = 0 <= t < S ? input[p with p[dim] := t] : 0,   t = index[p],  S = input.size(dim)

        for p (parallel): y[p] = select(inside, input[p with p[dim] := clamp(t)], 0)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.GatherOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rank, dim = len(shape_of(op.index)), op.dim
        element = element_type_of(op.input)
        identity = dims_map(rank, lambda d: d)
        y = b.generic(
            ins=[op.index], init=b.empty(shape_of(op.result), element, like=op.index),
            maps=[identity, identity], iterators="p" * rank, body=read_along(op.input, dim, size_of(b, op.input, dim)),
        )
        rewriter.replace(op, [], [y])


class IndexSelectToLinalg(RewritePattern):
    """y[p] = 0 <= t < S ? input[p with p[dim] := t] : 0,   t = index[p[dim]],  S = input.size(dim)

        for p (parallel): y[p] = select(inside, input[p with p[dim] := clamp(t)], 0)

    gather's body, with the 1-D index read at p[dim] alone.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.IndexSelectOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rank, dim = len(shape_of(op.input)), op.dim
        element = element_type_of(op.input)
        y = b.generic(
            ins=[op.index], init=b.empty(shape_of(op.result), element, like=op.index if dim == 0 else op.input),
            maps=[dims_map(rank, lambda d: (d[dim],)), dims_map(rank, lambda d: d)],
            iterators="p" * rank, body=read_along(op.input, dim, size_of(b, op.input, dim)),
        )
        rewriter.replace(op, [], [y])
