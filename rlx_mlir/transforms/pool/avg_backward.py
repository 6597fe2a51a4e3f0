"""The avg-pool gradient, one pattern per formulation.

    dx[n, c, *i] = sum_{windows o containing i} dy[n, c, *o] / divisor(o)

PyTorch's divisor: `divisor_override` if non-zero; else, with `count_include_pad`, the
window's cells inside the padded input `[-low, size + high)` (in ceil mode the last windows
are clipped there); else its cells inside the input. Each axis clips on its own, so the
divisor is a product of one count per axis. `dy / divisor` is computed once per window and
summed over the windows of a cell in increasing (row-major) window order, as PyTorch does,
so the float results agree with it bit for bit.

Each pattern declines where its formulation does not apply; the package's `populate_backward`
lists the 2-D fast paths in priority order, then `AvgPoolBackwardGather`, the
rank-generic form that takes every other configuration (2-D and 3-D; ceil mode, per-side
padding, divisor_override).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import GeometryError, Window, windows_tile_input
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.conversion import decline
from rlx_mlir.transforms.pool.gather import Candidate, gather_windows, tiled_gather, window_gather

AVG_POOL_BACKWARD_OPS = {2: rlx.AvgPool2dBackwardOp, 3: rlx.AvgPool3dBackwardOp}
"""The ranks the rank-generic form rewrites (1-D ops become 2-D ones before it)."""


def floor_equivalent(window: Window, spatial: Sequence[int]) -> Window:
    """`window` in floor mode when its ceil mode adds no window.

    Then the two modes have the same windows, none past the padded input, so the same
    divisors too, and the 2-D fast paths (which know floor mode only) apply.
    """
    if not window.ceil_mode:
        return window
    floor = dataclasses.replace(window, ceil_mode=False)
    try:
        same = floor.output_size(spatial) == window.output_size(spatial)
    except GeometryError:  # floor mode has no window at all on some axis
        return window
    return floor if same else window


def _divisor_override(op: Operation) -> int:
    return op.divisor_override


class AvgPool2dBackwardTiled(RewritePattern):
    """dx[n, c, oh*KH + kh, ow*KW + kw] = dy[n, c, oh, ow] / divisor

    For windows that tile the input (stride == kernel, no padding, and no window added by
    ceil mode: every window has KH*KW real cells, whatever `count_include_pad` says), as an
    all-parallel `tiled_gather`; the divisor is `divisor_override` or KH*KW. Declines
    otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dBackwardOp, rewriter: PatternRewriter):
        window = floor_equivalent(op.window(), shape_of(op.result)[2:])
        if not windows_tile_input(window):
            return decline(op, "the windows do not tile the input (stride == kernel, no padding, dilation 1, floor mode)")
        b = TensorBuilder(rewriter, op)
        divisor = _divisor_override(op) or window.kernel[0] * window.kernel[1]
        element = element_type_of(op.grad_output)

        def share(r: RegionBuilder, dy: SSAValue) -> SSAValue:
            return r.div(dy, r.constant(divisor, element))

        dx = tiled_gather(
            b, window, shape_of(op.grad_output), shape_of(op.result), op.grad_output, [op.grad_output], None, share
        )
        rewriter.replace(op, [], [dx])


class AvgPool2dBackwardWindows(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] / divisor(oh, ow)

    For symmetric padding in floor mode (or a ceil mode that adds no window). divisor =
    `divisor_override`, or KH*KW with count_include_pad (no window overhangs the padding in
    floor mode), else the window's cells inside the unpadded input:
    `(min(oh*S + K, H + P) - max(oh*S, P))` per axis, in padded coordinates. A
    `window_gather` over the candidate windows of each cell. Declines otherwise (the
    rank-generic `AvgPoolBackwardGather` takes those).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dBackwardOp, rewriter: PatternRewriter):
        dx_shape = shape_of(op.result)
        window = floor_equivalent(op.window(), dx_shape[2:])
        if window.ceil_mode:
            return decline(op, "ceil mode adds a window: the windows form knows floor mode's windows only")
        if not window.is_symmetric:
            return decline(op, "per-side padding: the windows form needs the same padding on both sides")
        b = TensorBuilder(rewriter, op)
        element = element_type_of(op.grad_output)
        override = _divisor_override(op)
        include_pad = op.count_include_pad

        def divisor(r: RegionBuilder, at: Candidate) -> SSAValue:
            if override:
                return r.constant(override, element)
            if include_pad:
                return r.constant(window.kernel[0] * window.kernel[1], element)
            rows = r.cells_inside(at.oh, window.stride[0], window.kernel[0], window.padding[0], dx_shape[2])
            cols = r.cells_inside(at.ow, window.stride[1], window.kernel[1], window.padding[1], dx_shape[3])
            return r.index_to_float(r.mul(rows, cols), element)

        def share(r: RegionBuilder, at: Candidate, _cell: SSAValue):
            dy = r.extract(op.grad_output, [at.n, at.c, at.oh, at.ow])
            return None, r.div(dy, divisor(r, at))

        dx = window_gather(b, window, shape_of(op.grad_output), dx_shape, op.grad_output, None, share)
        rewriter.replace(op, [], [dx])


# -- the rank-generic form ---------------------------------------------------------------

def scaled_by_window(
    b: TensorBuilder, dy: SSAValue, divisor: Callable[[RegionBuilder, list[SSAValue]], SSAValue]
) -> SSAValue:
    """dy[n, c, *o] / divisor(o), one all-parallel generic over dy (PyTorch divides once per window)."""
    shape = shape_of(dy)
    loops = len(shape)

    def body(r: RegionBuilder, v: SSAValue, _out: SSAValue) -> SSAValue:
        return r.div(v, divisor(r, [r.loop_index(d) for d in range(2, loops)]))

    # for n, c, *o:  scaled[n, c, *o] = dy[n, c, *o] / divisor(o)
    return b.generic(
        ins=[dy],
        init=b.empty(shape, element_type_of(dy), like=dy),
        maps=[dims_map(loops, lambda d: d)] * 2,
        iterators="p" * loops,
        body=body,
    )


def window_cells(
    r: RegionBuilder, o: SSAValue, window: Window, axis: int, size: int, out: int, include_pad: bool
) -> SSAValue | int:
    """The divisor's count along `axis` for window `o`, in padded coordinates (start `o*S`).

    With `count_include_pad`: `min(o*S + K, size + low + high) - o*S`, the window clipped to
    the padded input, which is K (a constant) unless ceil mode lets the last window overhang
    it. Without: the cells inside the input, `min(o*S + K, size + low) - max(o*S, low)`.
    """
    k, s, low, high = window.kernel[axis], window.stride[axis], window.low[axis], window.high[axis]
    if include_pad:
        if (out - 1) * s + k <= size + low + high:
            return k
        start = r.mul(o, r.index(s))
        return r.sub(r.minui(r.add(start, r.index(k)), r.index(size + low + high)), start)
    return r.cells_inside(o, s, k, low, size)


class AvgPoolBackwardGather(RewritePattern):
    """dx[n, c, *i] = sum_{windows o containing i} (dy / divisor)[n, c, *o], any rank, any window.

    First `scaled = dy / divisor(o)`, the divisor a product of one count per axis
    (`window_cells`; a constant where no axis varies), then `gather_windows` over the
    `ceil(K/S)` candidate windows per axis: along an axis, cell i (padded: i + low) lies in
    windows `o = (i + low) / S - (J - 1) + j` for `j < J`, those with `0 <= o < out` (ceil
    mode adds windows that partly lie past the input) and offset `i + low - o*S < K`.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, tuple(AVG_POOL_BACKWARD_OPS.values())):
            return
        b = TensorBuilder(rewriter, op)
        dy, dx_shape = op.grad_output, shape_of(op.result)
        spatial, out = dx_shape[2:], shape_of(dy)[2:]
        window = floor_equivalent(op.window(), spatial)
        element = element_type_of(dy)
        override = _divisor_override(op)
        include_pad = op.count_include_pad

        def divisor(r: RegionBuilder, windows: list[SSAValue]) -> SSAValue:
            if override:
                return r.constant(override, element)
            counts = [window_cells(r, o, window, a, spatial[a], out[a], include_pad) for a, o in enumerate(windows)]
            constant, varying = 1, None
            for count in counts:
                if isinstance(count, int):
                    constant *= count
                else:
                    varying = count if varying is None else r.mul(varying, count)
            if varying is None:
                return r.constant(constant, element)
            if constant != 1:
                varying = r.mul(varying, r.index(constant))
            return r.index_to_float(varying, element)

        scaled = scaled_by_window(b, dy, divisor)
        per_cell = window.windows_per_cell()

        def candidate(r: RegionBuilder, axis: int, cell: SSAValue, j: SSAValue) -> tuple[SSAValue, SSAValue]:
            s, k = window.stride[axis], window.kernel[axis]
            low = window.low[axis]
            padded = r.add(cell, r.index(low)) if low else cell
            o = r.add(r.sub(r.div(padded, r.index(s)), r.index(per_cell[axis] - 1)), j)
            offset = r.sub(padded, r.mul(o, r.index(s)))
            return o, r.and_(r.in_range(o, r.index(out[axis])), r.in_range(offset, r.index(k)))

        def value(r: RegionBuilder, n, c, windows, _cells):
            return None, r.extract(scaled, [n, c, *windows])

        rewriter.replace(op, [], [gather_windows(b, dx_shape, dy, per_cell, candidate, value)])
