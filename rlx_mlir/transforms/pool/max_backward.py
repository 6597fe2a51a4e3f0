"""The max-pool gradient, one pattern per formulation.

    dx[n, c, *i] = sum_{windows o containing i} dy[n, c, *o] * share(o, i)

- ties `first` (PyTorch): share is 1 where the window's winner (`argmax`) is the
  cell. The 2-D fast paths: `MaxPool2dBackwardFirstMaxTiled` takes windows that tile the
  input; `MaxPool2dBackwardFirstMaxInterleaved` and `MaxPool2dBackwardFirstMaxPhases` take
  the others, gathered by stride phase (`phase_gather`). These three unroll the
  window's cells or the stride phases into the IR, so they take small windows only
  (`unrolls_little`), and only the windows they were written for (`floor_window`:
  dilation 1, symmetric padding, floor mode's windows). `MaxPoolBackwardFirstMaxWindows`
  takes every window in 2-D and 3-D, its argmax a reduction over the window and its gather
  a reduction over the candidate windows, so its IR has one size for every kernel.
- ties `all` (RLX's fast path): share is 1 wherever the cell equals its window's max; no
  argmax. A NaN never equals anything, so a NaN window routes no gradient (RLX's
  `where(x == upsample(max))`). `MaxPool2dBackwardAllTiesTiled` for tiling windows,
  `MaxPoolBackwardAllTiesWindows` for any window, 2-D and 3-D.

Each pattern declines (returns without rewriting) where its formulation does not apply;
the package's `populate_backward` lists them in priority order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import GeometryError, PoolAxis, Window, windows_tile_input
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.conversion import decline
from rlx_mlir.transforms.pool.argmax import ARGMAX_TYPE, peeled_first_argmax, scanned_first_argmax, tiled_first_argmax
from rlx_mlir.transforms.pool.phase_gather import interleaved_gather_first_max, phase_gather_first_max
from rlx_mlir.transforms.pool.frame import framed
from rlx_mlir.transforms.pool.gather import first_candidate_windows, gather_windows, tap_candidate_windows, tiled_gather

NEG_INF = float("-inf")
MAX_POOL_BACKWARD_OPS = (rlx.MaxPool2dBackwardOp, rlx.MaxPool3dBackwardOp)
"""The ranks the rank-generic forms rewrite (1-D ops become 2-D ones before them)."""
# Largest window whose cells an argmax reads as separate operands (the tiled and interior
# argmax), and most stride phases a phase gather writes as generics of their own.
MAX_UNROLLED_WINDOW = 16
MAX_UNROLLED_PHASES = 16

FAST_PATH_WINDOWS = "dilation, per-side padding or a window added by ceil mode: the 2-D fast paths know floor mode's windows only"
TILES = "the windows do not tile the input (stride == kernel, no padding, dilation 1, floor mode)"
UNROLLS_MUCH = f"more than {MAX_UNROLLED_WINDOW} window cells or {MAX_UNROLLED_PHASES} stride phases to unroll"


def floor_window(window: Window, spatial: Sequence[int]) -> Window | None:
    """`window` as the 2-D fast paths know windows, or None where they do not apply.

    The fast paths were written for dilation 1, the same padding on both sides and floor
    mode: a window `o` covers cells `o*S - P .. o*S - P + K - 1`, none past the padded
    input. A ceil mode that adds no window has floor mode's windows, so it is given as
    floor mode; anything else (dilation, per-side padding, a window added by ceil mode) is
    the rank-generic forms' (`MaxPoolBackwardFirstMaxWindows`, `MaxPoolBackwardAllTiesWindows`).
    """
    if window.dilation != (1,) * window.rank or not window.is_symmetric:
        return None
    if not window.ceil_mode:
        return window
    floor = dataclasses.replace(window, ceil_mode=False)
    try:
        same = floor.output_size(spatial) == window.output_size(spatial)
    except GeometryError:  # floor mode has no window on some axis
        return None
    return floor if same else None


def _fast_path_window(op: rlx.MaxPool2dBackwardOp, fits: Callable[[Window], bool], misfit: str) -> Window | None:
    """The op's window as the 2-D fast paths know it (`floor_window`) if it `fits` the
    pattern, else None, the pattern then declining the op with the reason."""
    window = floor_window(op.window(), shape_of(op.input)[2:])
    if window is None:
        decline(op, FAST_PATH_WINDOWS)
    elif not fits(window):
        decline(op, misfit)
    else:
        return window
    return None


def unrolls_little(window: Window) -> bool:
    """Whether the unrolled formulations stay small: at most `MAX_UNROLLED_WINDOW` cells
    and `MAX_UNROLLED_PHASES` stride phases.

    The phase gathers then unroll at most KH*KW candidates in all (each tap of a window
    lies in one phase), so their IR is bounded by a constant whatever the kernel.
    """
    (kh, kw), (sh, sw) = window.kernel, window.stride
    return kh * kw <= MAX_UNROLLED_WINDOW and sh * sw <= MAX_UNROLLED_PHASES


def tiled_window(op: rlx.MaxPool2dBackwardOp | rlx.MaxPool2dGatherOp) -> Window | None:
    """The window of a 2-D max-pool op if its windows tile the input with at most
    `MAX_UNROLLED_WINDOW` cells (`tiled_first_argmax`'s domain), else None, the op then
    declined with the reason. The gradient and the gather ask it both, so that where both
    read one x (a forward-over-reverse HVP) they build one argmax, which CSE keeps once."""
    window = _fast_path_window(op, windows_tile_input, TILES)
    if window is not None and window.kernel[0] * window.kernel[1] > MAX_UNROLLED_WINDOW:
        return decline(op, f"a {window.kernel[0]}x{window.kernel[1]} window, above the {MAX_UNROLLED_WINDOW} cells it unrolls")
    return window


class MaxPool2dBackwardFirstMaxTiled(RewritePattern):
    """dx[n, c, oh*KH + kh, ow*KW + kw] = dy[n, c, oh, ow] * (a[n, c, oh, ow] == kh*KW + kw)

    For windows that tile the input (stride == kernel, no padding, no dilation, floor
    mode's windows) of at most
    `MAX_UNROLLED_WINDOW` cells: `a` is the winner's offset in its window
    (`tiled_first_argmax`), and each cell is routed by one select in an all-parallel
    `tiled_gather`; the rows and columns no window reaches get zeros.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        window = tiled_window(op)
        if window is None:
            return
        (kh_, kw_) = window.kernel
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.grad_output)
        argmax = tiled_first_argmax(b, window, op.input, out_shape)

        def routed(r: RegionBuilder, dy: SSAValue, a: SSAValue) -> SSAValue:
            kh, kw = r.loop_index(3), r.loop_index(5)
            offset = r.index_cast(r.add(r.mul(kh, r.index(kw_)), kw), ARGMAX_TYPE)
            return r.select(r.cmpi("eq", a, offset), dy, r.constant(0.0, dy.type))

        dx = tiled_gather(b, window, out_shape, shape_of(op.input), op.input, [op.grad_output, argmax], None, routed)
        rewriter.replace(op, [], [dx])


def _replace_gathered_by_phase(op: rlx.MaxPool2dBackwardOp, window: Window, rewriter: PatternRewriter, gather) -> None:
    """Replace `op` by `gather(b, axes, dy, a, halo, x)` on the framed saved indices and dy.

    `a` is PyTorch's saved indices (`peeled_first_argmax`); a and dy are framed by the
    reach of the phase offsets (`PoolAxis.halo`), so the gather reads both as plain operands.
    """
    b = TensorBuilder(rewriter, op)
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
    interleaves), for the windows of `floor_window`; declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        window = _fast_path_window(op, unrolls_little, UNROLLS_MUCH)
        if window is None:
            return
        (sh, sw), (h_in, w_in) = window.stride, shape_of(op.input)[2:]
        if sw == 1:
            return decline(op, "column stride 1: no phases to interleave")
        if h_in % sh != 0 or w_in % sw != 0:
            return decline(op, f"input {h_in}x{w_in} is not a multiple of the stride {sh}x{sw}")
        _replace_gathered_by_phase(op, window, rewriter, interleaved_gather_first_max)


class MaxPool2dBackwardFirstMaxPhases(RewritePattern):
    """dx[n, c, i*S_H + a, j*S_W + b] = sum_{d, e} dy[n, c, i + d, j + e] * (a[n, c, i + d, j + e] == h*W + w)

    One generic per stride phase (a, b), each writing a strided slice of dx
    (`phase_gather_first_max`), `a` PyTorch's saved indices. Applies to every window that
    `unrolls_little` (dilation 1, symmetric padding, floor mode's windows: `floor_window`);
    declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        window = _fast_path_window(op, unrolls_little, UNROLLS_MUCH)
        if window is None:
            return
        _replace_gathered_by_phase(op, window, rewriter, phase_gather_first_max)


class MaxPoolBackwardFirstMaxWindows(RewritePattern):
    """dx[n, c, *i] = sum_{windows o of cell i} dy[n, c, *o] * (a[n, c, *o] == flat(i))

    For every window of `rlx.max_pool2d_backward` and `rlx.max_pool3d_backward`: the last
    resort of ties `first`, the form of large kernels (global pools) and the one form of
    dilation, per-side padding, a window added by ceil mode and 3-D. `a` is PyTorch's saved
    indices, the flat input index of each window's winner (`scanned_first_argmax`: a
    reduction loop per axis over the window's cells `o*s - pl + k*d`, those outside the
    input skipped). dx is a `gather_windows`, a reduction loop per axis over the
    `ceil(extent/s)` candidate windows `o` of cell i, from `floor((i + pl)/s)` back, in
    increasing order of o, as PyTorch sums; a candidate outside `[0, out)` adds nothing,
    and one that does not hold the cell has another winner, so dilation needs no tap test.
    Nothing is unrolled: the IR has one size for every kernel, stride and tensor size.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, MAX_POOL_BACKWARD_OPS):
            return
        b = TensorBuilder(rewriter, op)
        window = op.window()
        out_shape, x_shape = shape_of(op.grad_output), shape_of(op.input)
        argmax = scanned_first_argmax(b, op.input, window, b.empty(out_shape, ARGMAX_TYPE, like=op.input))

        def routed(r: RegionBuilder, n: SSAValue, c: SSAValue, windows: list[SSAValue], cells: list[SSAValue]):
            here = cells[0]
            for axis, i in enumerate(cells[1:], start=1):
                here = r.add(r.mul(here, r.index(x_shape[2 + axis])), i)
            index = [n, c, *windows]
            return r.cmpi("eq", r.extract(argmax, index), r.index_cast(here, ARGMAX_TYPE)), r.extract(op.grad_output, index)

        candidate = first_candidate_windows(window, out_shape[2:])
        dx = gather_windows(b, x_shape, op.input, window.windows_per_cell(), candidate, routed)
        rewriter.replace(op, [], [dx])


def _window_max(b: TensorBuilder, x: SSAValue, window: Window, out_shape: Sequence[int]) -> SSAValue:
    """m[n, c, *o] = max_k xpad[n, c, *(o*s + k*d)], xpad = x padded with -inf, any rank.

    x is padded by the low padding before and by as far as the last window reaches after
    (`Window.reach_high`: past the high padding in ceil mode, cropped where the windows stop
    short), so the cells outside the input are -inf, which never changes a max.
    `arith.maximumf` propagates NaN, as PyTorch's max does. A generic rather than
    `linalg.pooling_nchw_max`: xDSL 0.75 builds that op's body as max(input, window
    operand), which upstream MLIR executes as written when the op is printed generically.
    """
    rank = window.rank
    loops = 2 + 2 * rank
    xpad = b.pad_sides(x, window.low, window.reach_high(shape_of(x)[2:]), NEG_INF)
    init = b.full(out_shape, element_type_of(x), NEG_INF, like=x)
    cells = b.empty(window.kernel, element_type_of(x))  # shape only: the extent of the k loops
    s, d = window.stride, window.dilation

    def padded_cell(dims):
        o, k = dims[2 : 2 + rank], dims[2 + rank :]
        return (dims[0], dims[1], *(o[a] * s[a] + k[a] * d[a] for a in range(rank)))

    # for n, c, *o, *k < K:
    #   m[n, c, *o] = maximumf(m[n, c, *o], xpad[n, c, *(o*S + k*D)])
    return b.generic(
        ins=[xpad, cells],
        init=init,
        maps=[
            dims_map(loops, padded_cell),
            dims_map(loops, lambda dims: dims[2 + rank :]),
            dims_map(loops, lambda dims: dims[: 2 + rank]),
        ],
        iterators="p" * (2 + rank) + "R" * rank,
        body=lambda r, v, _cell, acc: r.value(arith.MaximumfOp(acc, v)),
    )


class MaxPool2dBackwardAllTiesTiled(RewritePattern):
    """dx[n, c, oh*KH + kh, ow*KW + kw] = dy[n, c, oh, ow] * (x[n, c, oh*KH + kh, ow*KW + kw] == m[n, c, oh, ow])

    For windows that tile the input (stride == kernel, no padding): each cell compares
    with its one window's max in an all-parallel `tiled_gather`. Declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        window = _fast_path_window(op, windows_tile_input, TILES)
        if window is None:
            return
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.grad_output)
        m = _window_max(b, op.input, window, out_shape)

        def tie(r: RegionBuilder, dy: SSAValue, mx: SSAValue, cell: SSAValue) -> SSAValue:
            return r.select(r.cmpf("oeq", cell, mx), dy, r.constant(0.0, dy.type))

        dx = tiled_gather(b, window, out_shape, shape_of(op.input), op.input, [op.grad_output, m], op.input, tie)
        rewriter.replace(op, [], [dx])


class MaxPoolBackwardAllTiesWindows(RewritePattern):
    """dx[n, c, *i] = sum_{windows o holding cell i} dy[n, c, *o] * (x[n, c, *i] == m[n, c, *o])

    RLX's fast-path semantics for every window of `rlx.max_pool{2,3}d_backward`, as a
    `gather_windows` over the candidate windows of each cell that hold it as a tap
    (`tap_candidate_windows`: with dilation, the cell's offset in the window is a multiple
    of d): each tied maximum takes the window's full gradient. Applies to every window.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, MAX_POOL_BACKWARD_OPS):
            return
        b = TensorBuilder(rewriter, op)
        window = op.window()
        out_shape = shape_of(op.grad_output)
        m = _window_max(b, op.input, window, out_shape)

        def tie(r: RegionBuilder, n: SSAValue, c: SSAValue, windows: list[SSAValue], cells: list[SSAValue]):
            index = [n, c, *windows]
            return r.cmpf("oeq", cells[0], r.extract(m, index)), r.extract(op.grad_output, index)

        candidate = tap_candidate_windows(window, out_shape[2:])
        dx = gather_windows(
            b, shape_of(op.input), op.input, window.windows_per_cell(), candidate, tie, cell_input=op.input
        )
        rewriter.replace(op, [], [dx])
