"""The lowerings of `rlx.gather`, `rlx.index_select` and `rlx.scatter_add`: gather-form generics, no scatter.

gather and index_select read `input` at a data-dependent position, so each is one
all-parallel generic over its result whose body reads with `tensor.extract` (`read_along`).

scatter_add writes at data-dependent positions, whose parallel forms race or depend on the
order threads add in. As `rlx.embedding_backward`, it is a gather-form generic over the
result instead, whose reduction loop runs over the index's positions along `dim`: each
result element is one sum in ascending order of that position, written by its own loop
iterations only, so the result never depends on thread timing and the op tiles and
parallelises like any reduction. The cost is input.size(dim) * index.numel()
compare-and-selects, against index.numel() adds for a serial scatter: linear in the index,
times the size of the one dim scattered into (the embedding's V), never in the product of
the tensors' sizes. The IR depends on the rank only.

Sizes known only at run time (a dynamic batch) must keep ATen's rule (the index no larger
than the input and src); the verifier checks the static ones.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.indexing.positions import Size, along_index, covered_part, leading_part, position_of, size_of


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


class ScatterAddToLinalg(RewritePattern):
    """y[q] = input[q] + sum_{m ascending} (index[q|m] == q[dim]) ? src[q|m] : 0,   q|m = q with q[dim] := m

        for q (parallel) in the part R of y the index covers, m < index.size(dim) (reduction):
            acc[q] += select(index[q|m] == q[dim], src[q|m], 0)

    R is the index's extent in every dim but `dim`, where it is the input's. When R is the
    whole input, acc starts at the input; otherwise at 0, and input[R] + acc is inserted
    into the input. An index outside [0, S) equals no q[dim], so it is dropped.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ScatterAddOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rank, dim = len(shape_of(op.index)), op.dim
        element = element_type_of(op.input)
        index_sizes, covered = covered_part(b, op)
        src = leading_part(b, op.src, index_sizes)

        def accumulate(r: RegionBuilder, t: SSAValue, s: SSAValue, acc: SSAValue) -> SSAValue:
            match = r.cmpi("eq", t, r.index_cast(r.loop_index(dim), i64))
            return r.accumulate(acc, r.select(match, s, r.constant(0.0, element)))

        at_m = along_index(rank, dim)
        sums = b.generic(
            ins=[op.index, src], init=covered if covered is op.input else b.fill(b.empty(shape_of(covered), element, like=covered), 0.0),
            maps=[at_m, at_m, dims_map(rank + 1, lambda d: d[:rank])],
            iterators="p" * rank + "r", body=accumulate,
        )
        if covered is not op.input:
            # The sums go into a fresh tensor, then onto the covered part of the input: a
            # reduction whose init is a slice of an operand it is inserted back into would
            # update that operand in place, which IREE refuses for a function argument.
            identity = dims_map(rank, lambda d: d)
            sums = b.insert_slice(b.generic(
                ins=[covered, sums], init=b.empty(shape_of(covered), element, like=covered), maps=[identity] * 3,
                iterators="p" * rank, body=lambda r, x, total, _out: r.add(x, total),
            ), op.input, [0] * rank)
        rewriter.replace(op, [], [sums])
