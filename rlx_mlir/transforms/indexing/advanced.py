"""The lowerings of `rlx.index` and `rlx.index_put`: one flat row per index position, then a gather or a row scatter.

The k index tensors name a position of the input's leading k dims; seen as the table
[P, *rest] (those dims collapsed, P = their product, a view of the contiguous input),
they name one row of it:

    row[*b] = ((t_0 * S_1 + t_1) * S_2 + ...) + t_{k-1},   t_a = i_a[*b] (+ S_a if negative)

and -1 where some t_a is outside [0, S_a), so that every later read or write checks one
bound. `flat_rows` computes it in one all-parallel generic over the indices' broadcast
shape B (a size-1 index axis read at 0). Then:
- index is a gather-form generic over the result [*B, *rest] reading table[row[*b], *r]
  (0 for row -1);
- index_put is `row_scatter.scatter_add_rows` of the values (broadcast to [*B, *rest] and
  flattened to [N, *rest]) into the table, positions in ascending order: rows add with
  accumulate, the last write wins without; row -1 is dropped. O(N * prod(rest)) work,
  deterministic, and the IR is one loop whatever N is.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i1, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.indexing.advanced import broadcast_shapes
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of
from rlx_mlir.transforms.indexing.positions import position_of, size_of
from rlx_mlir.transforms.indexing.row_scatter import as_positions, scatter_add_rows


def broadcast_map(shape: tuple[int, ...], target: tuple[int, ...]) -> AffineMap:
    """The loops over `target` reading a value of `shape` that broadcasts to it (right-aligned, size 1 read at 0)."""
    offset = len(target) - len(shape)
    return dims_map(
        len(target),
        lambda d: tuple(0 if size == 1 and target[offset + a] != 1 else d[offset + a] for a, size in enumerate(shape)),
    )


def flat_rows(b: TensorBuilder, op: rlx.IndexOp | rlx.IndexPutOp) -> SSAValue:
    """row [*B] i64, as in the module docstring: the flat row of the table each index position names, or -1."""
    indices = list(op.indices)
    shapes = [tuple(shape_of(index)) for index in indices]
    batch = broadcast_shapes(shapes, "index tensors")
    sizes = [size_of(b, op.input, axis) for axis in range(len(indices))]
    widest = next((index for index, shape in zip(indices, shapes) if len(shape) == len(batch) and shape[:1] == batch[:1]), None)
    init = b.empty(batch, i64, like=widest)

    def row(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        flat, inside = r.constant(0, i64), r.constant(True, i1)
        for t, bound in zip(args[:-1], sizes):
            size = r.index_cast(bound, i64) if isinstance(bound, SSAValue) else r.constant(bound, i64)
            zero = r.constant(0, i64)
            wrapped = r.select(r.cmpi("slt", t, zero), r.add(t, size), t)
            inside = r.and_(inside, r.cmpi("ult", wrapped, size))
            flat = r.add(r.mul(flat, size), wrapped)
        return r.select(inside, flat, r.constant(-1, i64))

    maps = [broadcast_map(shape, batch) for shape in shapes]
    return b.generic(ins=indices, init=init, maps=[*maps, dims_map(len(batch), lambda d: d)], iterators="p" * len(batch), body=row)


def as_table(b: TensorBuilder, value: SSAValue, k: int) -> SSAValue:
    """`value` with its leading k dims collapsed into one: the table [P, *rest] (a view)."""
    rank = len(shape_of(value))
    return value if k == 1 else b.collapse_shape(value, [list(range(k)), *([axis] for axis in range(k, rank))])


class IndexToLinalg(RewritePattern):
    """y[*b, *r] = row[*b] != -1 ? table[row[*b], *r] : 0   (`flat_rows`, `as_table`)

        for *b, *r (parallel): y[*b, *r] = select(inside, table[clamp(row), *r], 0)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.IndexOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rows = flat_rows(b, op)
        table = as_table(b, op.input, len(op.indices))
        batch_rank, rank = len(shape_of(rows)), len(shape_of(op.result))
        element = element_type_of(op.input)
        height = size_of(b, table, 0)

        def read(r: RegionBuilder, t: SSAValue, _out: SSAValue) -> SSAValue:
            row, inside = position_of(r, t, height)
            value = r.extract(table, [row, *(r.loop_index(axis) for axis in range(batch_rank, rank))])
            return r.select(inside, value, r.constant(0.0, element))

        y = b.generic(
            ins=[rows], init=b.empty(shape_of(op.result), element, like=rows if batch_rank else None),
            maps=[dims_map(rank, lambda d: d[:batch_rank]), dims_map(rank, lambda d: d)],
            iterators="p" * rank, body=read,
        )
        rewriter.replace(op, [], [y])


class IndexPutToLinalg(RewritePattern):
    """table = as_table(input);  for every position i of B, in order:
        table[row_i, :] += values[i, :]   (accumulate)   or   table[row_i, :] = values[i, :]
    skipping row_i = -1 (`scatter_add_rows`); then table seen as the input's shape again.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.IndexPutOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        k = len(op.indices)
        rows = flat_rows(b, op)
        batch = tuple(shape_of(rows))
        input_shape = tuple(shape_of(op.input))
        target = (*batch, *input_shape[k:])
        values = op.values
        if tuple(shape_of(values)) != target:
            element = element_type_of(values)
            values = b.generic(
                ins=[values], init=b.empty(target, element, like=rows if batch else None),
                maps=[broadcast_map(tuple(shape_of(values)), target), dims_map(len(target), lambda d: d)],
                iterators="p" * len(target), body=lambda r, v, _out: v,
            )
        rest = len(input_shape) - k
        table = scatter_add_rows(
            rewriter, op, as_table(b, op.input, k), as_positions(b, rows), as_positions(b, values, trailing=rest),
            replace=not op.accumulate,
        )
        if k > 1:
            leading = [b.dim(op.input, 0)] if is_dynamic(input_shape[0]) else []
            table = b.expand_shape(table, [list(range(k)), *([axis] for axis in range(k, len(input_shape)))], input_shape, leading)
        rewriter.replace(op, [], [table])

