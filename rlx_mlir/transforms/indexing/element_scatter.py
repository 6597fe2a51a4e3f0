"""The lowerings of `rlx.scatter_add`, `rlx.scatter` and `rlx.scatter_value`: one ordered loop nest over the index.

Each element p of the index writes one element of the result, q = p with q[dim] :=
index[p]: scatter_add adds src[p] there, scatter writes src[p] (or the value). The
position written is data, so no all-parallel linalg op expresses the write, and a parallel
scatter races or adds in thread order. Here one `scf.for` visits the index's elements
in row-major order and updates the loop-carried result with `tensor.extract` /
`tensor.insert` (in place after bufferization):

    acc = input
    for p in index's shape (row-major):
        t = index[p];  inside = 0 <= t < input.size(dim);  q = p with q[dim] := (inside ? t : 0)
        acc[q] = combine(acc[q], src[p], inside)      # outside: acc[q] unchanged

The terms landing on one element come from positions that differ in p[dim] only, so the
loop meets them in ascending p[dim]: scatter_add sums them in that order, scatter keeps the
last (the dialect's rules), and the result never depends on the thread count. The work is
index.numel() updates, linear in the index (a gather-form reduction over the result costs
input.size(dim) times that); the IR is one loop whatever the sizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.indexing.positions import position_of, size_of

Combine = Callable[[RegionBuilder, SSAValue, list[SSAValue], SSAValue], SSAValue]
"""(r, current acc[q], the loop indices p, inside) -> the new acc[q]."""

ScatterOp = rlx.ScatterAddOp | rlx.ScatterOp | rlx.ScatterValueOp


def read_element(r: RegionBuilder, source: SSAValue, at: list[SSAValue]) -> SSAValue:
    """`source[at]` through a one-element `tensor.extract_slice`: IREE cannot resolve the
    size of a loop-carried dynamic tensor that a `tensor.extract` reads."""
    rank = len(at)
    cell = r.value(tensor.ExtractSliceOp(
        source, at, [1] * rank, [1] * rank, TensorType(element_type_of(source), [1] * rank),
    ))
    return r.extract(cell, [r.index(0)] * rank)


def write_element(r: RegionBuilder, scalar: SSAValue, into: SSAValue, at: list[SSAValue]) -> SSAValue:
    """`into` with `scalar` at `at`: a one-element `tensor.insert_slice` rather than a
    `tensor.insert`, which IREE's runtime mishandles in a loop carrying a function argument;
    both bufferize to one store (as `read_element` to one load)."""
    rank = len(at)
    element = TensorType(element_type_of(into), [1] * rank)
    cell = r.value(tensor.FromElementsOp.create(operands=[scalar], result_types=[element]))
    return r.value(tensor.InsertSliceOp.get(
        cell, into, static_sizes=[1] * rank, static_offsets=[DYNAMIC_INDEX] * rank, static_strides=[1] * rank, offsets=at,
    ))


def scatter_elements(rewriter: PatternRewriter, op: ScatterOp, combine: Combine) -> SSAValue:
    """The loop of the module docstring over `op.index`, starting from `op.input`: one
    `scf.for` over the index's N elements in row-major order, p delinearized from the loop
    index (one loop, not a nest: IREE cannot resolve a dynamic size carried through nested
    loops)."""
    b = TensorBuilder(rewriter, op)
    shape = shape_of(op.index)
    rank, dim = len(shape), op.dim
    count = b.index(math.prod(shape[1:]))
    if rank:
        lead = size_of(b, op.index, 0)
        count = b.value(arith.MuliOp(lead if isinstance(lead, SSAValue) else b.index(lead), count))
    target = size_of(b, op.input, dim)

    block = Block(arg_types=[IndexType(), op.input.type])
    i, carried = block.args
    r = RegionBuilder(block, op.location)
    p, rest = [], i
    for axis in range(rank - 1, 0, -1):
        size = r.index(shape[axis])
        p.insert(0, r.value(arith.RemUIOp(rest, size)))
        rest = r.div(rest, size)
    p = [rest, *p] if rank else []
    row, inside = position_of(r, r.extract(op.index, p), target)
    q = [row if axis == dim else iv for axis, iv in enumerate(p)]
    new = combine(r, read_element(r, carried, q), p, inside)
    r.emit(scf.YieldOp(write_element(r, new, carried, q)))
    return b.emit(scf.ForOp(b.index(0), count, b.index(1), [op.input], Region(block))).results[0]


class ScatterAddToLinalg(RewritePattern):
    """y = input;  for p (row-major): y[q] += inside ? src[p] : 0   (`scatter_elements`)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ScatterAddOp, rewriter: PatternRewriter):
        zero = 0.0

        def add(r: RegionBuilder, current: SSAValue, p: list[SSAValue], inside: SSAValue) -> SSAValue:
            term = r.select(inside, r.extract(op.src, p), r.constant(zero, element_type_of(op.input)))
            return r.add(current, term)

        rewriter.replace(op, [], [scatter_elements(rewriter, op, add)])


class ScatterToLinalg(RewritePattern):
    """y = input;  for p (row-major): y[q] = inside ? src[p] : y[q]   (the last along dim wins)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ScatterOp, rewriter: PatternRewriter):
        def write(r: RegionBuilder, current: SSAValue, p: list[SSAValue], inside: SSAValue) -> SSAValue:
            return r.select(inside, r.extract(op.src, p), current)

        rewriter.replace(op, [], [scatter_elements(rewriter, op, write)])


class ScatterValueToLinalg(RewritePattern):
    """y = input;  for p (row-major): y[q] = inside ? value : y[q]"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ScatterValueOp, rewriter: PatternRewriter):
        value, element = op.value, element_type_of(op.input)

        def write(r: RegionBuilder, current: SSAValue, _p: list[SSAValue], inside: SSAValue) -> SSAValue:
            return r.select(inside, r.constant(value, element), current)

        rewriter.replace(op, [], [scatter_elements(rewriter, op, write)])
