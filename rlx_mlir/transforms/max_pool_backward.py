"""The max-pool gradient, one pattern per formulation.

    dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] * share(oh, ow, h, w)

- ties `first` (PyTorch): share is 1 where the window's winner (`max_pool_argmax`) is the
  cell. `MaxPool2dBackwardFirstMaxTiled` takes windows that tile the input;
  `MaxPool2dBackwardFirstMaxInterleaved` and `MaxPool2dBackwardFirstMaxPhases` take the
  others, gathered by stride phase (`max_pool_phase_gather`). These three unroll the
  window's cells or the stride phases into the IR, so they take small windows only
  (`unrolls_little`); `MaxPool2dBackwardFirstMaxWindows` takes every window, its argmax a
  reduction over the window and its gather a reduction over the candidate windows, so
  its IR has one size for every kernel.
- ties `all` (RLX's fast path): share is 1 wherever the cell equals its window's max; no
  argmax. A NaN never equals anything, so a NaN window routes no gradient (RLX's
  `where(x == upsample(max))`). `MaxPool2dBackwardAllTiesTiled` for tiling windows,
  `MaxPool2dBackwardAllTiesWindows` for any window.

Each pattern declines (returns without rewriting) where its formulation does not apply;
`pool_backward.pool_backward_patterns` lists them in priority order.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import PoolAxis, Window2d, windows_tile_input
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.max_pool_argmax import ARGMAX_TYPE, peeled_first_argmax, scanned_first_argmax, tiled_first_argmax
from rlx_mlir.transforms.max_pool_phase_gather import interleaved_gather_first_max, phase_gather_first_max
from rlx_mlir.transforms.pool_frame import framed
from rlx_mlir.transforms.pool_gather import Candidate, tiled_gather, window_gather

NEG_INF = float("-inf")
# Largest window whose cells an argmax reads as separate operands (the tiled and interior
# argmax), and most stride phases a phase gather writes as generics of their own.
MAX_UNROLLED_WINDOW = 16
MAX_UNROLLED_PHASES = 16


def unrolls_little(window: Window2d) -> bool:
    """Whether the unrolled formulations stay small: at most `MAX_UNROLLED_WINDOW` cells
    and `MAX_UNROLLED_PHASES` stride phases.

    The phase gathers then unroll at most KH*KW candidates in all (each tap of a window
    lies in one phase), so their IR is bounded by a constant whatever the kernel.
    """
    (kh, kw), (sh, sw) = window.kernel, window.stride
    return kh * kw <= MAX_UNROLLED_WINDOW and sh * sw <= MAX_UNROLLED_PHASES


class MaxPool2dBackwardFirstMaxTiled(RewritePattern):
    """dx[n, c, oh*KH + kh, ow*KW + kw] = dy[n, c, oh, ow] * (a[n, c, oh, ow] == kh*KW + kw)

    For windows that tile the input (stride == kernel, no padding) of at most
    `MAX_UNROLLED_WINDOW` cells: `a` is the winner's offset in its window
    (`tiled_first_argmax`), and each cell is routed by one select in an all-parallel
    `tiled_gather`; the rows and columns no window reaches get zeros.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        window = op.window()
        (kh_, kw_) = window.kernel
        if not windows_tile_input(window) or kh_ * kw_ > MAX_UNROLLED_WINDOW:
            return
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.grad_output)
        argmax = tiled_first_argmax(b, window, op.input, out_shape)

        def routed(r: RegionBuilder, dy: SSAValue, a: SSAValue) -> SSAValue:
            kh, kw = r.loop_index(3), r.loop_index(5)
            offset = r.index_cast(r.add(r.mul(kh, r.index(kw_)), kw), ARGMAX_TYPE)
            return r.select(r.cmpi("eq", a, offset), dy, r.constant(0.0, dy.type))

        dx = tiled_gather(b, window, out_shape, shape_of(op.input), op.input, [op.grad_output, argmax], None, routed)
        rewriter.replace(op, [], [dx])


def _replace_gathered_by_phase(op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter, gather) -> None:
    """Replace `op` by `gather(b, axes, dy, a, halo, x)` on the framed saved indices and dy.

    `a` is PyTorch's saved indices (`peeled_first_argmax`); a and dy are framed by the
    reach of the phase offsets (`PoolAxis.halo`), so the gather reads both as plain operands.
    """
    b = TensorBuilder(rewriter, op)
    window = op.window()
    out_shape = shape_of(op.grad_output)
    axes = PoolAxis.of(window, shape_of(op.input)[2:], out_shape[2:])
    halo = (axes[0].halo(), axes[1].halo())
    argmax = peeled_first_argmax(b, op.input, window, out_shape, halo)
    dy = framed(b, op.grad_output, halo, 0.0)
    rewriter.replace(op, [], [gather(b, axes, dy, argmax, halo, op.input)])


class MaxPool2dBackwardFirstMaxInterleaved(RewritePattern):
    """dx[n, c, i*S_H + a, j*S_W + b] = sum_{d, e} dy[n, c, i + d, j + e] * (a[n, c, i + d, j + e] == h*W + w)

    All stride phases in one generic over dx viewed as [N, C, H/S_H, S_H, W/S_W, S_W]
    (`interleaved_gather_first_max`), `a` PyTorch's saved indices. Applies where the
    stride divides the input and the column stride is above 1 (the (b, j) pairs it
    interleaves); declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        (sh, sw), (h_in, w_in) = op.window().stride, shape_of(op.input)[2:]
        if not unrolls_little(op.window()) or sw == 1 or h_in % sh != 0 or w_in % sw != 0:
            return
        _replace_gathered_by_phase(op, rewriter, interleaved_gather_first_max)


class MaxPool2dBackwardFirstMaxPhases(RewritePattern):
    """dx[n, c, i*S_H + a, j*S_W + b] = sum_{d, e} dy[n, c, i + d, j + e] * (a[n, c, i + d, j + e] == h*W + w)

    One generic per stride phase (a, b), each writing a strided slice of dx
    (`phase_gather_first_max`), `a` PyTorch's saved indices. Applies to every window that
    `unrolls_little`; declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        if not unrolls_little(op.window()):
            return
        _replace_gathered_by_phase(op, rewriter, phase_gather_first_max)


class MaxPool2dBackwardFirstMaxWindows(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] * (a[n, c, oh, ow] == h*W + w)

    For every window: the last resort of ties `first`, and the form of large kernels
    (global pools). `a` is PyTorch's saved indices, one scan over each window's cells
    (`scanned_first_argmax`: reduction loops over (kh, kw)); dx is a `window_gather`,
    reduction loops over the `ceil(K/S)` candidate windows per axis in increasing
    (oh, ow) order, as PyTorch sums. Nothing is unrolled: the IR has one size for every
    kernel, stride and tensor size.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        out_shape = shape_of(op.grad_output)
        w_in = shape_of(op.input)[3]
        argmax = scanned_first_argmax(b, op.input, window, b.empty(out_shape, ARGMAX_TYPE, like=op.input))

        def routed(r: RegionBuilder, at: Candidate, _cell: None):
            index = [at.n, at.c, at.oh, at.ow]
            here = r.index_cast(r.add(r.mul(r.loop_index(2), r.index(w_in)), r.loop_index(3)), ARGMAX_TYPE)
            return r.cmpi("eq", r.extract(argmax, index), here), r.extract(op.grad_output, index)

        dx = window_gather(b, window, out_shape, shape_of(op.input), op.input, None, routed)
        rewriter.replace(op, [], [dx])


def _window_max(b: TensorBuilder, x: SSAValue, window: Window2d, out_shape: tuple[int, ...]) -> SSAValue:
    """m[n, c, oh, ow] = max_{kh, kw} xpad[n, c, oh*SH + kh, ow*SW + kw], xpad = x padded with -inf.

    `arith.maximumf` propagates NaN, as PyTorch's max does. A generic rather than
    `linalg.pooling_nchw_max`: xDSL 0.75 builds that op's body as max(input, window
    operand), which upstream MLIR executes as written when the op is printed generically.
    """
    (sh, sw), (ph, pw) = window.stride, window.padding
    xpad = b.pad_spatial(x, (ph, pw), NEG_INF)
    init = b.full(out_shape, element_type_of(x), NEG_INF, like=x)
    cells = b.empty(window.kernel, element_type_of(x))  # shape only: the extent of the (kh, kw) loops
    # for n, c, oh, ow, kh < KH, kw < KW:
    #   m[n, c, oh, ow] = maximumf(m[n, c, oh, ow], xpad[n, c, oh*S_H + kh, ow*S_W + kw])
    return b.generic(
        ins=[xpad, cells],
        init=init,
        maps=[
            lambda n, c, oh, ow, kh, kw: (n, c, oh * sh + kh, ow * sw + kw),
            lambda n, c, oh, ow, kh, kw: (kh, kw),
            lambda n, c, oh, ow, kh, kw: (n, c, oh, ow),
        ],
        iterators="ppppRR",
        body=lambda r, v, _cell, acc: r.value(arith.MaximumfOp(acc, v)),
    )


class MaxPool2dBackwardAllTiesTiled(RewritePattern):
    """dx[n, c, oh*KH + kh, ow*KW + kw] = dy[n, c, oh, ow] * (x[n, c, oh*KH + kh, ow*KW + kw] == m[n, c, oh, ow])

    For windows that tile the input (stride == kernel, no padding): each cell compares
    with its one window's max in an all-parallel `tiled_gather`. Declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        window = op.window()
        if not windows_tile_input(window):
            return
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.grad_output)
        m = _window_max(b, op.input, window, out_shape)

        def tie(r: RegionBuilder, dy: SSAValue, mx: SSAValue, cell: SSAValue) -> SSAValue:
            return r.select(r.cmpf("oeq", cell, mx), dy, r.constant(0.0, dy.type))

        dx = tiled_gather(b, window, out_shape, shape_of(op.input), op.input, [op.grad_output, m], op.input, tie)
        rewriter.replace(op, [], [dx])


class MaxPool2dBackwardAllTiesWindows(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] * (x[n, c, h, w] == m[n, c, oh, ow])

    RLX's fast-path semantics for every stride and padding, as a `window_gather` over
    the candidate windows of each cell: each tied maximum takes the window's full
    gradient. Applies to every window.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        out_shape = shape_of(op.grad_output)
        m = _window_max(b, op.input, window, out_shape)

        def tie(r: RegionBuilder, at: Candidate, cell: SSAValue):
            index = [at.n, at.c, at.oh, at.ow]
            return r.cmpf("oeq", cell, r.extract(m, index)), r.extract(op.grad_output, index)

        dx = window_gather(b, window, out_shape, shape_of(op.input), op.input, op.input, tie)
        rewriter.replace(op, [], [dx])
