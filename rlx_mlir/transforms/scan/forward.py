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
from dataclasses import dataclass

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import scan
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of

Step = Callable[..., SSAValue]
"""`step(r, *operand_scalars, h_previous)`: one element of the new state, in a generic body."""


@dataclass(frozen=True)
class Slabs:
    """The [..., 1, ...] slices along `dim` of a tensor of `shape`, at a step t the loop computes."""

    dim: int
    shape: tuple[int, ...]
    """The slab's shape: the tensor's, with 1 on `dim`."""
    sizes: tuple[SSAValue, ...]
    """The slab's dynamic sizes (the batch), read once before the loop."""

    def _offsets(self, t: SSAValue) -> list[SSAValue | int]:
        return [t if axis == self.dim else 0 for axis in range(len(self.shape))]

    def _size_operands(self) -> list[SSAValue | int]:
        dynamic = iter(self.sizes)
        return [next(dynamic) if is_dynamic(size) else size for size in self.shape]

    def read(self, r: TensorBuilder, value: SSAValue, t: SSAValue) -> SSAValue:
        """`value[..., t:t+1, ...]` (`tensor.extract_slice`)."""
        slab_type = TensorType(element_type_of(value), list(self.shape))
        unit = [1] * len(self.shape)
        return r.value(tensor.ExtractSliceOp(value, self._offsets(t), self._size_operands(), unit, slab_type))

    def write(self, r: TensorBuilder, slab: SSAValue, into: SSAValue, t: SSAValue) -> SSAValue:
        """`into` with `slab` at `[..., t:t+1, ...]` (`tensor.insert_slice`)."""
        rank = len(self.shape)
        return r.value(
            tensor.InsertSliceOp.get(
                slab, into, static_sizes=list(self.shape),
                static_offsets=[DYNAMIC_INDEX if axis == self.dim else 0 for axis in range(rank)],
                static_strides=[1] * rank, offsets=[t], sizes=list(self.sizes),
            )
        )


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
