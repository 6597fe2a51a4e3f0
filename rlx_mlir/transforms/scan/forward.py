"""`convert-rlx-to-linalg` for the scans: one `scf.for` over the T steps of the scanned axis.

A scan is sequential along its axis (step t reads step t-1's result), so the loop is the
algorithm, not an unrolling: the IR has one loop whatever T is. Everything across the
axis is one slab, the operand's [..., 1, ...] slice at step t, updated by one all-parallel
`linalg.generic`:

    h = zeros[..., 1, ...]; out = empty[..., T, ...]
    scf.for i in [0, T):
        t = i                      (reverse: T - 1 - i)
        h = step(h, slabs of the operands at t)     # linalg.generic on the slab
        out[..., t, ...] = h                         # tensor.insert_slice
    result = out

The state h and the result are the loop's iter_args, so bufferization updates both in
place. A dynamic batch only sizes the slabs: its size is read once, before the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import scan
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.slabs import Slabs

Step = Callable[..., SSAValue]
"""`step(r, *operand_scalars, h_previous)`: one element of the new state, in a generic body."""


def scan_loop(rewriter: PatternRewriter, op: scan.ScanOp, operands: Sequence[SSAValue], step: Step) -> SSAValue:
    """The result of scanning `operands` (each of the result's shape) along `op.dim` with `step`."""
    b = TensorBuilder(rewriter, op)
    shape, dim, length = shape_of(op.result), op.dim, op.scanned_length()
    element = element_type_of(op.result)
    slab_shape = tuple(1 if axis == dim else size for axis, size in enumerate(shape))
    slabs = Slabs(dim, slab_shape, tuple(b.dynamic_sizes(slab_shape, operands[0])))
    h0 = b.full(slab_shape, element, 0.0, sizes=slabs.sizes)
    out0 = b.empty(shape, element, sizes=slabs.sizes)
    last = b.index(length - 1) if op.reverse else None

    body = Block(arg_types=[IndexType(), h0.type, out0.type])
    i, h, out = body.args
    r = TensorBuilder.appending_to(body, rewriter, op)
    t = r.value(arith.SubiOp(last, i)) if last is not None else i
    identity = dims_map(len(shape), lambda d: d)
    h_next = r.generic(
        ins=[slabs.read(r, v, t) for v in operands], init=h,
        maps=[identity] * (len(operands) + 1), iterators="p" * len(shape), body=step,
    )
    r.emit(scf.YieldOp(h_next, slabs.write(r, h_next, out, t)))
    loop = b.emit(scf.ForOp(b.index(0), b.index(length), b.index(1), [h0, out0], Region(body)))
    return loop.results[1]


class LinearScanToLoop(RewritePattern):
    """h[t] = a[t] * h[t-1] + x[t] (reverse: h[t+1]), h before the first step 0: `scan_loop`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scan.LinearScanOp, rewriter: PatternRewriter):
        result = scan_loop(rewriter, op, [op.coefficients, op.input], lambda r, a, x, h: r.add(r.mul(a, h), x))
        rewriter.replace(op, [], [result])


class CumsumToLoop(RewritePattern):
    """y[t] = y[t-1] + x[t] (reverse: y[t+1]), before the first step 0: `scan_loop` with no coefficients."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scan.CumsumOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [scan_loop(rewriter, op, [op.input], lambda r, x, y: r.add(y, x))])
