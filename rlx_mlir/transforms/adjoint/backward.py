"""Lowering of the adjoint ops (`dialects.adjoint`): reads at each window's first maximum.

    g[n, c, *o] = z[n, c, a[n, c, *o]]        a = PyTorch's saved indices of the pool of x

`a` is the argmax the max-pool gradients compute (`scanned_first_argmax`,
`adaptive_first_argmax`: the same scan rule, so the gather reads exactly where the
gradient writes), the flat input index of each window's winner; the gather is one
all-parallel generic over the output that reads z, viewed as [N, C, prod(spatial)], there.
Any spatial rank, any window; nothing is unrolled. `rlx.col2im{r}d`, im2col's transpose,
is a gather over the input cells (`Col2imToLinalg`).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects.adjoint import ADAPTIVE_MAX_POOL_GATHER, COL2IM, MAX_POOL_GATHER, MaxPool2dGatherOp
from rlx_mlir.transforms.pool.adaptive_backward import adaptive_first_argmax
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.pool.argmax import ARGMAX_TYPE, scanned_first_argmax, tiled_first_argmax
from rlx_mlir.transforms.pool.gather import window_tiles
from rlx_mlir.transforms.pool.max_backward import tiled_window


def gather_at(b: TensorBuilder, z: SSAValue, argmax: SSAValue, like: SSAValue) -> SSAValue:
    """g[n, c, *o] = z_flat[n, c, argmax[n, c, *o]]: one parallel generic over argmax's shape."""
    out_shape = shape_of(argmax)
    rank = len(shape_of(z)) - 2
    flat = b.collapse_shape(z, [[0], [1], list(range(2, 2 + rank))])
    loops = len(out_shape)

    def body(r: RegionBuilder, at: SSAValue, _out: SSAValue) -> SSAValue:
        return r.extract(flat, [r.loop_index(0), r.loop_index(1), r.index_cast(at, IndexType())])

    # for n, c, *o: g[n, c, *o] = z[n, c, a[n, c, *o]]
    return b.generic(
        ins=[argmax],
        init=b.empty(out_shape, element_type_of(z), like=like),
        maps=[dims_map(loops, lambda d: d), dims_map(loops, lambda d: d)],
        iterators="p" * loops,
        body=body,
    )


class MaxPoolGatherToLinalg(RewritePattern):
    """g[n, c, *o] = z[n, c, scanned_first_argmax(x)[n, c, *o]], for every rank and window."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, MAX_POOL_GATHER.ops):
            return
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.results[0])
        argmax = scanned_first_argmax(b, op.input, op.window(), b.empty(out_shape, ARGMAX_TYPE, like=op.input))
        rewriter.replace(op, [], [gather_at(b, op.source, argmax, op.input)])


class MaxPool2dGatherFirstMaxTiled(RewritePattern):
    """g[n, c, oh, ow] = z[n, c, oh*KH + a / KW, ow*KW + a % KW]     a = tiled_first_argmax(x)

    For windows that tile the input (`tiled_window`): `a`, the winner's offset in its
    window, is built as the tiled max-pool gradient builds it, so that a forward-over-
    reverse HVP (the tangent's gather and the gradients, all on one x) computes it once
    after CSE; z is read as window tiles, the winner's cell selected among the KH*KW.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MaxPool2dGatherOp, rewriter: PatternRewriter):
        window = tiled_window(op)
        if window is None:
            return
        (kh_, kw_) = window.kernel
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.results[0])
        argmax = tiled_first_argmax(b, window, op.input, out_shape)
        z_tiles = window_tiles(b, op.source, window, out_shape)
        cells = [(i, j) for i in range(kh_) for j in range(kw_)]

        def selected(r: RegionBuilder, a: SSAValue, *z_cells: SSAValue) -> SSAValue:
            g = z_cells[0]
            for k in range(1, len(cells)):
                g = r.select(r.cmpi("eq", a, r.constant(k, ARGMAX_TYPE)), z_cells[k], g)
            return g

        # for n, c, oh, ow:
        #   g[n, c, oh, ow] = z[n, c, oh*KH + kh, ow*KW + kw] for the cell kh*KW + kw == a[n, c, oh, ow]
        g = b.generic(
            ins=[argmax, *[z_tiles] * len(cells)],
            init=b.empty(out_shape, element_type_of(op.source), like=op.input),
            maps=[lambda n, c, oh, ow: (n, c, oh, ow), *(_cell_map(i, j) for i, j in cells), lambda n, c, oh, ow: (n, c, oh, ow)],
            iterators="pppp",
            body=lambda r, a, *rest: selected(r, a, *rest[: len(cells)]),
        )
        rewriter.replace(op, [], [g])


def _cell_map(i: int, j: int):
    """Cell (i, j) of window (oh, ow) in the [N, C, Ho, KH, Wo, KW] tiles."""
    return lambda n, c, oh, ow: (n, c, oh, i, ow, j)


class AdaptiveMaxPoolGatherToLinalg(RewritePattern):
    """g[n, c, *o] = z[n, c, adaptive_first_argmax(x)[n, c, *o]]."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, ADAPTIVE_MAX_POOL_GATHER.ops):
            return
        b = TensorBuilder(rewriter, op)
        argmax = adaptive_first_argmax(b, op.input, tuple(shape_of(op.results[0])[2:]))
        rewriter.replace(op, [], [gather_at(b, op.source, argmax, op.input)])


def _flat(r: RegionBuilder, indices, sizes) -> SSAValue:
    """The row-major flat index of `indices` in a grid of `sizes`."""
    flat = indices[0]
    for i, size in zip(indices[1:], sizes[1:]):
        flat = r.add(r.mul(flat, r.index(size)), i)
    return flat


class Col2imToLinalg(RewritePattern):
    """x[n, c, *i] = sum_{*k} [t = i + pl - k*d >= 0, t % s == 0, t / s < out] cols[(n, *(t/s)), (c, *k)]

    Gather form: one loop nest over x's cells and, as a reduction, the kernel's cells; each
    kernel cell names the one window that could have copied input cell i there (its
    output position o = (i + pl - k*d) / s along each axis), which exists when the
    division is exact and o is in range. Nothing is unrolled.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, COL2IM.ops):
            return
        b = TensorBuilder(rewriter, op)
        window = op.window()
        x_shape = shape_of(op.results[0])
        rank = window.rank
        out = window.output_size(x_shape[2:])
        kernel = window.kernel
        cols = op.input
        element = element_type_of(cols)
        loops = 2 + 2 * rank

        def body(r: RegionBuilder, _cell: SSAValue, acc: SSAValue) -> SSAValue:
            index = [r.loop_index(d) for d in range(loops)]
            n, c, cells, ks = index[0], index[1], index[2 : 2 + rank], index[2 + rank :]
            zero = r.index(0)
            valid, windows = None, []
            for axis in range(rank):
                k = ks[axis] if window.dilation[axis] == 1 else r.mul(ks[axis], r.index(window.dilation[axis]))
                t = r.sub(r.add(cells[axis], r.index(window.low[axis])), k)
                ok = r.cmpi("sge", t, zero)
                t = r.select(ok, t, zero)
                stride = r.index(window.stride[axis])
                o = r.value(arith.DivSIOp(t, stride))
                ok = r.and_(ok, r.cmpi("eq", r.value(arith.RemSIOp(t, stride)), zero))
                ok = r.and_(ok, r.cmpi("slt", o, r.index(out[axis])))
                windows.append(o)
                valid = ok if valid is None else r.and_(valid, ok)
            windows = [r.select(valid, o, zero) for o in windows]
            row = r.add(r.mul(n, r.index(math.prod(out))), _flat(r, windows, out))
            column = r.add(r.mul(c, r.index(math.prod(kernel))), _flat(r, ks, kernel))
            v = r.extract(cols, [row, column])
            return r.add(acc, r.select(valid, v, r.constant(0.0, element)))

        # for n, c, *i, *k < K:
        #   o = (i + pl - k*d) / s per axis, when exact and inside [0, out)
        #   x[n, c, *i] += cols[n*prod(out) + flat(o), c*prod(K) + flat(k)]
        x = b.generic(
            ins=[b.empty(kernel, element)],
            init=b.full(x_shape, element, 0.0),
            maps=[dims_map(loops, lambda d: d[2 + rank :]), dims_map(loops, lambda d: d[: 2 + rank])],
            iterators="p" * (2 + rank) + "R" * rank,
            body=body,
        )
        rewriter.replace(op, [], [x])
