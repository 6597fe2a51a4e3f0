"""The lowering of the forward layout ops: tensor reshapes and slices, linalg.transpose/broadcast.

Every op only moves data, so each lowers to the upstream op that states the same move,
and the IR is the same whatever the tensor sizes (a concat or split emits one slice per
operand or result, as many as the op has):

- `rlx.reshape`: one `tensor.collapse_shape` or `tensor.expand_shape` when the new shape
  is a grouping of the old one (or the old of the new), else collapse each group of dims
  whose products agree, then expand (`reshape`; [2, 3, 4] -> [3, 8] goes through [24]);
  a dynamic batch merged with the dims after it is the first group (`view(-1, V)`:
  [?, T, V] -> [?, V] collapses [[0, 1], [2]]), and split it is expanded with the size
  `tensor.dim / prod(the split-off sizes)`;
- `rlx.permute`: `linalg.transpose`;
- `rlx.expand`: the stretched size-1 dims collapsed away, then `linalg.broadcast` adds
  them back at the result's sizes, with the new leading dims;
- `rlx.slice`, `rlx.split`: `tensor.extract_slice` (strided for a step);
- `rlx.concat`: `tensor.insert_slice` of each input into a `tensor.empty`.

A result with no elements is `tensor.empty` (nothing to move, and mlir-opt 22 rejects a
slice at offset 0 of a size-0 dim).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import layout
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of

Shape = Sequence[int]
Groups = list[tuple[list[int], list[int]]]


def reassociation(source: Shape, target: Shape) -> Groups:
    """The finest grouping of `source`'s and `target`'s dims into pairs of equal products,
    where a dynamic batch that the reshape merges or splits (`layout.batch_regrouping`)
    is the first group, with the dims it takes; the rest is `static_reassociation`'s."""
    regrouping = layout.batch_regrouping(source, target) if source and target and is_dynamic(source[0]) else None
    if regrouping in (None, (1, 1)):
        return static_reassociation(source, target)
    i, j = regrouping
    rest = static_reassociation(source[i:], target[j:])
    return [(list(range(i)), list(range(j))), *(([a + i for a in s], [b + j for b in t]) for s, t in rest)]


def static_reassociation(source: Shape, target: Shape) -> Groups:
    """The finest grouping of `source`'s and `target`'s dims into pairs of equal products.

    Two cursors walk the shapes; a group closes at the first point where both prefix
    products agree, so each group is as small as it can be. A dynamic leading dim (both
    shapes have one; the verifier ensures it) is a group of its own, counted as 1. Size-1
    dims left at the end join the last group; between two rank-0 or all-ones shapes there
    are no groups at all (MLIR's reassociation `[]`). Both shapes have elements.
    """
    src = [1 if is_dynamic(s) else s for s in source]
    dst = [1 if is_dynamic(s) else s for s in target]
    groups: Groups = []
    i = j = 0
    while i < len(src) and j < len(dst):
        group_src, group_dst = [i], [j]
        product_src, product_dst = src[i], dst[j]
        i, j = i + 1, j + 1
        while product_src != product_dst:
            if product_src < product_dst:
                group_src.append(i)
                product_src *= src[i]
                i += 1
            else:
                group_dst.append(j)
                product_dst *= dst[j]
                j += 1
        groups.append((group_src, group_dst))
    if groups:
        groups[-1][0].extend(range(i, len(src)))
        groups[-1][1].extend(range(j, len(dst)))
    return groups


def reshape(b: TensorBuilder, value: SSAValue, target: Shape) -> SSAValue:
    """`value` reshaped to `target` (row-major): at most one collapse_shape then one expand_shape.

    A dynamic leading dim of `target` takes the size of `value`'s (`tensor.dim`).
    """
    source = shape_of(value)
    if tuple(source) == tuple(target):
        return value
    if not source or not target:
        return _to_or_from_scalar(b, value, target)
    groups = reassociation(source, target)
    if all(len(dst) == 1 for _, dst in groups):
        return b.collapse_shape(value, [src for src, _ in groups])
    (batch_source, batch_target), *_ = groups
    leading = [b.dim(value, 0)] if is_dynamic(target[0]) and len(batch_source) == 1 else []
    if not all(len(src) == 1 for src, _ in groups):
        value = b.collapse_shape(value, [src for src, _ in groups])
    if is_dynamic(target[0]) and len(batch_source) > 1:  # the batch merged: the collapsed dim 0
        leading = [b.dim(value, 0)]
    split_off = math.prod(target[1:len(batch_target)])
    if is_dynamic(target[0]) and split_off > 1:  # the batch split: B' = B / prod(target[1:j])
        leading = [b.value(arith.DivUIOp(leading[0], b.index(split_off)))]
    return b.expand_shape(value, [dst for _, dst in groups], target, leading)


def _to_or_from_scalar(b: TensorBuilder, value: SSAValue, target: Shape) -> SSAValue:
    """A 0-d tensor as [1, .., 1] or back: `linalg.broadcast` out, a copy with no loops in.

    MLIR writes these as collapse/expand_shape with the reassociation `[]`, which xDSL's
    verifier rejects, so the same one-element copy is stated as its linalg op.
    """
    element = element_type_of(value)
    init = b.empty(target, element)
    if not target:  # y[] = x[0, .., 0]
        zeros = (0,) * len(shape_of(value))
        maps = [dims_map(0, lambda d: zeros), dims_map(0, lambda d: ())]
        return b.generic([value], init, maps, iterators="", body=lambda r, x, _: x)
    every_dim = DenseArrayBase.from_list(i64, list(range(len(target))))
    return b.value(linalg.BroadcastOp(value, init, every_dim))


def empty_result(b: TensorBuilder, value: SSAValue, like: SSAValue) -> SSAValue | None:
    """`tensor.empty` for a result with no elements (nothing to move), else None."""
    shape = shape_of(value)
    if 0 not in shape:
        return None
    return b.empty(shape, element_type_of(value), like=like)


class ReshapeToTensor(RewritePattern):
    """y = reshape(x): y's row-major elements are x's, in order (`reshape`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ReshapeOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        target = shape_of(op.result)
        if 0 in shape_of(op.input):
            y = b.empty(target, element_type_of(op.result), like=op.input)
        else:
            y = reshape(b, op.input, target)
        rewriter.replace(op, [], [y])


class PermuteToTranspose(RewritePattern):
    """y[i_0, ..., i_r-1] = x[j] with j[dims[k]] = i_k: `linalg.transpose` by `dims`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.PermuteOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dims = op.permutation()
        if (y := empty_result(b, op.result, op.input)) is None:
            y = op.input if list(dims) == sorted(dims) else b.transpose(op.input, dims)
        rewriter.replace(op, [], [y])


class ExpandToBroadcast(RewritePattern):
    """y[l_0, .., l_n-1, i_0, .., i_r-1] = x[i'] with i'_k = 0 where x's dim k is 1, i_k otherwise.

    The stretched size-1 dims of x are collapsed away first (`reshape` to the kept dims),
    then `linalg.broadcast` adds them and the n new leading dims at the result's sizes.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ExpandOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        if (y := empty_result(b, op.result, op.input)) is None:
            y = self.broadcast(b, op.input, shape_of(op.result))
        rewriter.replace(op, [], [y])

    @staticmethod
    def broadcast(b: TensorBuilder, x: SSAValue, target: Shape) -> SSAValue:
        source = shape_of(x)
        new = len(target) - len(source)
        added = [*range(new), *(new + k for k, size in enumerate(source) if size == 1 and target[new + k] != 1)]
        if not added:
            return x
        kept = [size for k, size in enumerate(source) if new + k not in added]
        init = b.empty(target, element_type_of(x), like=x)
        dimensions = DenseArrayBase.from_list(i64, added)
        return b.value(linalg.BroadcastOp(reshape(b, x, kept), init, dimensions))


class SliceToExtractSlice(RewritePattern):
    """y[.., i, ..] = x[.., start + i * step, ..] along dim: a strided `tensor.extract_slice`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.SliceOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dim, start, _, step = op.geometry()
        rank = len(shape_of(op.input))
        if (y := empty_result(b, op.result, op.input)) is None:
            y = b.extract_slice(op.input, along(dim, start, 0, rank), shape_of(op.result), along(dim, step, 1, rank))
        rewriter.replace(op, [], [y])


class ConcatToInsertSlices(RewritePattern):
    """y[.., o_k + i, ..] = inputs[k][.., i, ..] along dim, o_k = sum of the earlier inputs' sizes.

    Each non-empty input is inserted into one `tensor.empty`; together they cover it.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ConcatOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dim = op.dim
        inputs = [v for v in op.inputs if 0 not in shape_of(v)]
        if (y := empty_result(b, op.result, op.inputs[0])) is None:
            if len(inputs) == 1:
                y = inputs[0]
            else:
                rank = len(shape_of(op.result))
                y = b.empty(shape_of(op.result), element_type_of(op.result), like=op.inputs[0])
                offset = 0
                for value in inputs:
                    y = b.insert_slice(value, y, along(dim, offset, 0, rank))
                    offset += shape_of(value)[dim]
        rewriter.replace(op, [], [y])


class SplitToExtractSlices(RewritePattern):
    """pieces[k][.., i, ..] = x[.., o_k + i, ..] along dim, o_k = sum(sizes[:k]): one extract_slice each."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.SplitOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dim = op.dim
        rank = len(shape_of(op.input))
        pieces, offset = [], 0
        for piece, size in zip(op.pieces, op.sizes):
            if (y := empty_result(b, piece, op.input)) is None:
                whole = size == shape_of(op.input)[dim]
                y = op.input if whole else b.extract_slice(op.input, along(dim, offset, 0, rank), shape_of(piece))
            pieces.append(y)
            offset += size
        rewriter.replace(op, [], pieces)


def along(dim: int, value: int, other: int, rank: int) -> list[int]:
    """`value` at position `dim`, `other` elsewhere: the offsets or strides of a slice along one dim."""
    return [value if axis == dim else other for axis in range(rank)]
