"""Scatter-add of rows in a fixed order: one `scf.for` over the index positions.

A scatter-add sends row i of a source to row t_i of the result; it is the gradient of
every gather (the embedding's, `index_select`'s, `gather`'s). Two positions may name one
row, so in a parallel loop their adds race, and even a race-free parallel reduction would
round differently from run to run as threads finish in a different order. Here the
positions are visited in ascending order by one `scf.for`, and each step adds one source
row into the row it names with an all-parallel `linalg.generic` (vectorized along the
row):

    acc = into
    scf.for i in [0, N):
        t = targets[i]
        keep = 0 <= t < V  (and t != skip)
        s = keep ? t : 0                          # never address outside [0, V)
        acc[s, ...] += keep ? rows[i, ...] * scale[s] : 0
    result = acc

That is O(N * D) adds, each element's sum taken in position order whatever the thread
count, the cost of a serial CPU kernel; a gather-form reduction over the result instead
(for v, d: sum over i of [t_i == v] * rows[i, d]) is deterministic too but costs
O(V * N * D), which a transformer's vocabulary makes unusable. The loop is the algorithm
(each step writes where the data says), not an unrolling: the IR is one loop whatever N
is. `acc` is the loop's iter_arg, so bufferization updates it in place.
"""

from __future__ import annotations

from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of
from rlx_mlir.transforms.slabs import Slabs


def as_positions(b: TensorBuilder, value: SSAValue, trailing: int = 0) -> SSAValue:
    """`value`, indices of any shape [*I] followed by `trailing` axes, as [N, *trailing]
    with N = prod(I): a view, since both are contiguous. A 0-d index is one position."""
    shape = shape_of(value)
    lead = len(shape) - trailing
    if lead == 1:
        return value
    if lead == 0 and trailing == 0:  # tensor<i64> -> tensor<1xi64> (xDSL rejects a 0-d expand_shape)
        scalar = b.value(tensor.ExtractOp(value, [], element_type_of(value)))
        return b.value(tensor.FromElementsOp.create(operands=[scalar], result_types=[TensorType(element_type_of(value), [1])]))
    if lead == 0:
        return b.expand_shape(value, [[0, 1], *([axis] for axis in range(2, trailing + 1))], (1, *shape))
    return b.collapse_shape(value, [list(range(lead)), *([lead + k] for k in range(trailing))])


def scatter_add_rows(
    rewriter: PatternRewriter,
    anchor: Operation,
    into: SSAValue,
    targets: SSAValue,
    rows: SSAValue,
    skip: int | None = None,
    scale: SSAValue | None = None,
    replace: bool = False,
) -> SSAValue:
    """`into` [V, *D] with rows[i] ([N, *D]) added to row targets[i] ([N] i64), i ascending.

    A target outside [0, V), or equal to `skip` (a padding row), adds nothing; `scale` [V],
    when given, multiplies what lands in row v by scale[v]. With `replace`, rows[i] is
    written over the row instead of added to it, so of repeated targets the last i wins
    (index_put without accumulate).
    """
    b = TensorBuilder(rewriter, anchor)
    into_shape = shape_of(into)
    row_shape = (1, *into_shape[1:])
    slabs = Slabs(0, row_shape, tuple(b.dim(into, axis) for axis in range(1, len(into_shape)) if is_dynamic(into_shape[axis])))
    table_rows = b.dim(into, 0) if is_dynamic(into_shape[0]) else b.index(into_shape[0])
    positions = b.dim(targets, 0)

    body = Block(arg_types=[IndexType(), into.type])
    i, acc = body.args
    s = RegionBuilder(body, anchor.location)
    r = TensorBuilder.appending_to(body, rewriter, anchor)
    t = s.extract(targets, [i])
    row = s.index_cast(t, IndexType())
    keep = s.in_range(row, table_rows)
    if skip is not None:
        keep = s.and_(keep, s.cmpi("ne", t, s.constant(skip, i64)))
    safe = s.select(keep, row, s.index(0))
    factor = s.extract(scale, [safe]) if scale is not None else None

    def add_row(g: RegionBuilder, source: SSAValue, current: SSAValue) -> SSAValue:
        term = g.mul(source, factor) if factor is not None else source
        if replace:
            return g.select(keep, term, current)
        return g.add(current, g.select(keep, term, g.constant(0.0, element_type_of(into))))

    identity = dims_map(len(row_shape), lambda d: d)
    updated = r.generic(
        ins=[slabs.read(r, rows, i)], init=slabs.read(r, acc, safe), maps=[identity, identity],
        iterators="p" * len(row_shape), body=add_row,
    )
    r.emit(scf.YieldOp(slabs.write(r, updated, acc, safe)))
    loop = b.emit(scf.ForOp(b.index(0), positions, b.index(1), [into], Region(body)))
    return loop.results[0]
