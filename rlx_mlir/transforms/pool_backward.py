"""Pooling gradients in gather form: every input cell sums over the windows that contain it.

    dx[n, c, h, w] = sum_{(oh, ow) : (h, w) in window(oh, ow)} dy[n, c, oh, ow] * share(oh, ow, h, w)

A cell lies in at most `ceil(K/S)` windows per axis (`Window2d.windows_per_cell`), so the
gather is one `linalg.generic` over (n, c, h, w) with two small reduction loops (jh, jw)
that walk those candidate windows in increasing (oh, ow) order, the order in which
PyTorch accumulates, so the float sums agree bit for bit. dy (and the per-window argmax)
are read with `tensor.extract` at clamped indices; a candidate outside the output or
whose window does not reach the cell contributes nothing.

When the windows tile the input (stride == kernel, no padding: the usual 2x2/2 pool) each
cell lies in exactly one window, `(h // KH, w // KW)` at offset `(h % KH, w % KW)`, and the
gather needs neither reduction loops nor `tensor.extract`: one all-parallel generic over
(n, c, oh, kh, ow, kw) reads the window's values through plain projections and writes dx
viewed as [N, C, Ho, KH, Wo, KW] (`_tiled_gather`); rows and columns that no window
reaches are zero-padded on. The result is the same, value for value.

`share` is what distinguishes the ops:
- max pool, ties `first` (PyTorch): 1 where the window's winner is the cell. The winner
  comes from PyTorch's own scan (a cell replaces the running winner when
  `v > max || isnan(v)`: the first maximum, the last NaN, the first valid cell of an all
  -inf window), one pass over x without a padded copy: as the index h*W + w (PyTorch's
  saved indices; the running max is re-read from x, since a two-result generic prints in
  a form upstream MLIR rejects), or, for tiling windows, as the offset kh*KW + kw from
  the window's KH*KW cells read as operands.
- max pool, ties `all` (RLX's fast path): 1 wherever the cell equals its window's max; no
  argmax. A NaN never equals anything, so a NaN window routes no gradient (RLX's
  `where(x == upsample(max))`).
- avg pool: `1 / divisor(oh, ow)`: KH*KW with `count_include_pad`, else the number of the
  window's cells inside the unpadded input. `dy / divisor` is computed as PyTorch does.

Every loop bound, stride and offset is a constant in the op bodies: the IR has the same
size for any tensor size, and the work is linear in it. The batch may be dynamic. Sums
and scans start at their first step (the inits are shape only), so no zero- or -1-filled
tensor is written first. Each generic carries the `pool_schedule` tag by which the
backend's pool schedule picks its loop structure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, StringAttr
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import Window2d
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.options import check_choice

POOL_TIES = ("first", "all")
ARGMAX_TYPE = IntegerType(32)
NO_ARGMAX = -1
NEG_INF = float("-inf")
# Largest window whose cells the tiled max-pool argmax reads as separate operands.
MAX_UNROLLED_WINDOW = 16


# The backend's pool schedule (rlx_mlir/backend/schedules/pool.mlir) picks its action by
# this discardable attribute: "rows" vectorizes an all-parallel tiled gather along its
# (ow, kw) rows; "loops" runs an op as scalar loops (window scans, clamped reads).
SCHEDULE_ATTR = "pool_schedule"


def _scheduled(result: SSAValue, how: str) -> SSAValue:
    """`result` after tagging its generic with how the backend should schedule it."""
    result.owner.attributes[SCHEDULE_ATTR] = StringAttr(how)
    return result


@dataclass(frozen=True)
class _Candidate:
    """One candidate window of a cell along both axes, as index values in a gather body.

    `oh, ow` are clamped into the output (safe to extract with); `kh, kw` is the cell's
    offset inside that window. The gather itself drops candidates that are not real
    windows containing the cell.
    """

    n: SSAValue
    c: SSAValue
    oh: SSAValue
    ow: SSAValue
    kh: SSAValue
    kw: SSAValue


Contribution = Callable[[RegionBuilder, _Candidate, SSAValue | None], tuple[SSAValue | None, SSAValue]]


def _window_gather(
    b: TensorBuilder,
    window: Window2d,
    out_shape: tuple[int, ...],
    dx_shape: tuple[int, ...],
    like: SSAValue,
    cell_input: SSAValue | None,
    contribution: Contribution,
) -> SSAValue:
    """dx[n, c, h, w] = sum over candidate windows of `value` where `valid && hit`.

    `contribution(r, candidate, cell)` returns `(hit, value)` (hit None: always); `cell`
    is `cell_input[n, c, h, w]`, or None without a cell input.
    Candidates along an axis: `oh = (h + P) / S - (J - 1) + j` for `j < J = ceil(K/S)`,
    increasing in `oh`; the cell's offset in window `oh` is `kh = h + P - oh*S`.
    """
    (kh_, kw_), (sh, sw), (ph, pw) = window.kernel, window.stride, window.padding
    jh, jw = window.windows_per_cell()
    oh_, ow_ = out_shape[2], out_shape[3]
    element = element_type_of(like)
    candidates = b.empty((jh, jw), element)  # shape only: the extent of the (jh, jw) loops

    def axis(r: RegionBuilder, cell: SSAValue, j: SSAValue, pad: int, stride: int, kernel: int, windows: int, count: int):
        padded = r.add(cell, r.index(pad))
        first = r.sub(r.div(padded, r.index(stride)), r.index(windows - 1))
        o = r.add(first, j)
        k = r.sub(padded, r.mul(o, r.index(stride)))
        valid = r.and_(r.in_range(o, r.index(count)), r.in_range(k, r.index(kernel)))
        return o, k, valid

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        cell = args[0] if cell_input is not None else None
        n, c, h, w, j_h, j_w = (r.loop_index(d) for d in range(6))
        # The sum starts at the first candidate: the init is shape only (no zero-fill pass).
        first = r.and_(r.cmpi("eq", j_h, r.index(0)), r.cmpi("eq", j_w, r.index(0)))
        acc = r.select(first, r.constant(0.0, element), args[-1])
        oh, kh, valid_h = axis(r, h, j_h, ph, sh, kh_, jh, oh_)
        ow, kw, valid_w = axis(r, w, j_w, pw, sw, kw_, jw, ow_)
        valid = r.and_(valid_h, valid_w)
        zero = r.index(0)
        candidate = _Candidate(n, c, r.select(valid, oh, zero), r.select(valid, ow, zero), kh, kw)
        hit, value = contribution(r, candidate, cell)
        take = valid if hit is None else r.and_(valid, hit)
        # Adding 0 where the candidate does not count (rather than keeping acc) is exact: a
        # sum that starts at +0 is never -0.
        return r.add(acc, r.select(take, value, r.constant(0.0, element)))

    ins = [cell_input] if cell_input is not None else []
    maps = [lambda n, c, h, w, j, k: (n, c, h, w)] * len(ins)
    return _scheduled(b.generic(
        ins=[*ins, candidates],
        init=b.empty(dx_shape, element, like=like),
        maps=[*maps, lambda n, c, h, w, j, k: (j, k), lambda n, c, h, w, j, k: (n, c, h, w)],
        iterators="ppppRR",
        body=body,
    ), "loops")


def _tiles_input(window: Window2d) -> bool:
    """Whether the windows tile the input: every cell in at most one window, at a fixed offset."""
    return window.stride == window.kernel and window.padding == (0, 0)


TiledValue = Callable[..., SSAValue]


def _tiled_gather(
    b: TensorBuilder,
    window: Window2d,
    out_shape: tuple[int, ...],
    dx_shape: tuple[int, ...],
    like: SSAValue,
    window_inputs: list[SSAValue],
    cell_input: SSAValue | None,
    value: TiledValue,
) -> SSAValue:
    """dx[n, c, oh*KH + kh, ow*KW + kw] = value(r, *window_values, cell) for tiling windows.

    The loops are (n, c, oh, kh, ow, kw): `value` reads kh, kw as `r.loop_index(3)`,
    `r.loop_index(5)` when it needs them. `window_inputs` are [N, C, Ho, Wo] tensors read
    at (n, c, oh, ow); `cell_input` (x) is
    read at its own cell. dx is built as [N, C, Ho, KH, Wo, KW], collapsed to
    [N, C, Ho*KH, Wo*KW], and zero-padded to the input size where the last window does
    not reach.
    """
    (kh_, kw_) = window.kernel
    n_, c_, oh_, ow_ = out_shape
    element = element_type_of(like)
    covered = (n_, c_, oh_ * kh_, ow_ * kw_)
    tiles = (n_, c_, oh_, kh_, ow_, kw_)
    ins = list(window_inputs)
    maps = [lambda n, c, oh, kh, ow, kw: (n, c, oh, ow)] * len(window_inputs)
    if cell_input is not None:
        cells = cell_input
        if shape_of(cell_input)[2:] != covered[2:]:
            cells = b.extract_slice(cell_input, (0, 0, 0, 0), covered)
        ins.append(b.expand_shape(cells, [[0], [1], [2, 3], [4, 5]], tiles))
        maps.append(lambda n, c, oh, kh, ow, kw: (n, c, oh, kh, ow, kw))

    dx_tiles = _scheduled(b.generic(
        ins=ins,
        init=b.empty(tiles, element, like=like),
        maps=[*maps, lambda n, c, oh, kh, ow, kw: (n, c, oh, kh, ow, kw)],
        iterators="pppppp",
        body=lambda r, *args: value(r, *args[:-1]),
    ), "rows")
    dx = b.collapse_shape(dx_tiles, [[0], [1], [2, 3], [4, 5]])
    high = (0, 0, dx_shape[2] - covered[2], dx_shape[3] - covered[3])
    return b.pad(dx, (0, 0, 0, 0), high, 0.0)


def _window_max(b: TensorBuilder, x: SSAValue, window: Window2d, out_shape: tuple[int, ...]) -> tuple[SSAValue, SSAValue]:
    """(xpad = x padded with -inf, m[n, c, oh, ow] = max_{kh, kw} xpad[n, c, oh*SH + kh, ow*SW + kw]).

    `arith.maximumf` propagates NaN, as PyTorch's max does. A generic rather than
    `linalg.pooling_nchw_max`: xDSL 0.75 builds that op's body as max(input, window
    operand), which upstream MLIR executes as written when the op is printed generically.
    """
    (sh, sw), (ph, pw) = window.stride, window.padding
    xpad = b.pad_spatial(x, (ph, pw), NEG_INF)
    init = b.full(out_shape, element_type_of(x), NEG_INF, like=x)
    cells = b.empty(window.kernel, element_type_of(x))  # shape only: the extent of the (kh, kw) loops
    m = _scheduled(b.generic(
        ins=[xpad, cells],
        init=init,
        maps=[
            lambda n, c, oh, ow, kh, kw: (n, c, oh * sh + kh, ow * sw + kw),
            lambda n, c, oh, ow, kh, kw: (kh, kw),
            lambda n, c, oh, ow, kh, kw: (n, c, oh, ow),
        ],
        iterators="ppppRR",
        body=lambda r, v, _cell, acc: r.emit(arith.MaximumfOp(acc, v)).results[0],
    ), "loops")
    return xpad, m


def _first_argmax(b: TensorBuilder, x: SSAValue, window: Window2d, out_shape: tuple[int, ...]) -> SSAValue:
    """a[n, c, oh, ow] = h*W + w of the window's winner under PyTorch's rule (its saved indices).

    One pass over the window's cells in row-major order, reading x (viewed as [N, C, H*W])
    at clamped indices; cells in the padding are skipped, so no padded copy of x is made.
    The first valid cell starts the scan, and a later cell replaces the winner `a` when
    `v > x[a] || isnan(v)`: the first maximum wins, the last NaN wins, and an all -inf
    window goes to its first valid cell. The init is shape only: the first cell (kh, kw) =
    (0, 0) starts from "no winner" (-1).
    """
    (_, kw_), (sh, sw), (ph, pw) = window.kernel, window.stride, window.padding
    h_in, w_in = shape_of(x)[2], shape_of(x)[3]
    flat = b.collapse_shape(x, [[0], [1], [2, 3]])
    cells = b.empty(window.kernel, element_type_of(x))  # shape only: the extent of the (kh, kw) loops

    def body(r: RegionBuilder, _cell: SSAValue, acc: SSAValue) -> SSAValue:
        n, c, oh, ow, kh, kw = (r.loop_index(d) for d in range(6))
        ih = r.sub(r.add(r.mul(oh, r.index(sh)), kh), r.index(ph))
        iw = r.sub(r.add(r.mul(ow, r.index(sw)), kw), r.index(pw))
        valid = r.and_(r.in_range(ih, r.index(h_in)), r.in_range(iw, r.index(w_in)))
        here = r.select(valid, r.add(r.mul(ih, r.index(w_in)), iw), r.index(0))
        none = r.constant(NO_ARGMAX, ARGMAX_TYPE)
        first = r.and_(r.cmpi("eq", kh, r.index(0)), r.cmpi("eq", kw, r.index(0)))
        best = r.select(first, none, acc)
        unset = r.cmpi("eq", best, none)
        best_at = r.select(unset, r.index(0), r.index_cast(best, IndexType()))
        v = r.extract(flat, [n, c, here])
        beats = r.or_(r.cmpf("ogt", v, r.extract(flat, [n, c, best_at])), r.cmpf("uno", v, v))
        wins = r.and_(valid, r.or_(unset, beats))
        return r.select(wins, r.index_cast(here, ARGMAX_TYPE), best)

    return _scheduled(b.generic(
        ins=[cells],
        init=b.empty(out_shape, ARGMAX_TYPE, like=x),
        maps=[lambda n, c, oh, ow, kh, kw: (kh, kw), lambda n, c, oh, ow, kh, kw: (n, c, oh, ow)],
        iterators="ppppRR",
        body=body,
    ), "loops")


def _tiled_first_argmax(b: TensorBuilder, window: Window2d, x: SSAValue, out_shape: tuple[int, ...]) -> SSAValue:
    """a[n, c, oh, ow] = kh*KW + kw of the window's winner under PyTorch's rule, for tiling windows.

    PyTorch's own scan over the window's KH*KW cells, which the body reads as one operand
    each (x viewed as tiles, at (oh, i, ow, j)): a cell replaces the running winner when
    `v > max || isnan(v)`, starting from the first cell. One pass over x with plain
    projections and no reduction loops.
    """
    (kh_, kw_) = window.kernel
    n_, c_, oh_, ow_ = out_shape
    covered = (n_, c_, oh_ * kh_, ow_ * kw_)
    tiles = (n_, c_, oh_, kh_, ow_, kw_)
    cells = x if shape_of(x)[2:] == covered[2:] else b.extract_slice(x, (0, 0, 0, 0), covered)
    x_tiles = b.expand_shape(cells, [[0], [1], [2, 3], [4, 5]], tiles)
    offsets = [(i, j) for i in range(kh_) for j in range(kw_)]

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        values = args[: len(offsets)]
        best, best_value = r.constant(0, ARGMAX_TYPE), values[0]
        for offset, v in enumerate(values[1:], start=1):
            wins = r.or_(r.cmpf("ogt", v, best_value), r.cmpf("uno", v, v))
            best = r.select(wins, r.constant(offset, ARGMAX_TYPE), best)
            best_value = r.select(wins, v, best_value)
        return best

    def cell_map(i: int, j: int):
        return lambda n, c, oh, ow: (n, c, oh, i, ow, j)

    return _scheduled(b.generic(
        ins=[x_tiles] * len(offsets),
        init=b.empty(out_shape, ARGMAX_TYPE, like=x),
        maps=[*(cell_map(i, j) for i, j in offsets), lambda n, c, oh, ow: (n, c, oh, ow)],
        iterators="pppp",
        body=body,
    ), "loops")


class MaxPool2dBackwardFirstMax(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) whose first maximum is (h, w)} dy[n, c, oh, ow]

    PyTorch's rule: the winner `a` of each window, then a gather that adds dy[oh, ow]
    where a[oh, ow] is the cell (its index h*W + w; its offset kh*KW + kw in the window
    when the windows tile the input).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        kw_ = window.kernel[1]
        if _tiles_input(window) and window.kernel[0] * window.kernel[1] <= MAX_UNROLLED_WINDOW:
            argmax = _tiled_first_argmax(b, window, op.input, shape_of(op.grad_output))

            def routed_tile(r: RegionBuilder, dy: SSAValue, a: SSAValue) -> SSAValue:
                kh, kw = r.loop_index(3), r.loop_index(5)
                offset = r.index_cast(r.add(r.mul(kh, r.index(kw_)), kw), ARGMAX_TYPE)
                return r.select(r.cmpi("eq", a, offset), dy, r.constant(0.0, dy.type))

            dx = _tiled_gather(
                b, window, shape_of(op.grad_output), shape_of(op.input), op.input,
                [op.grad_output, argmax], None, routed_tile,
            )
            rewriter.replace(op, [], [dx])
            return

        argmax = _first_argmax(b, op.input, window, shape_of(op.grad_output))

        w_in = shape_of(op.input)[3]

        def routed_here(r: RegionBuilder, at: _Candidate, _cell: SSAValue):
            index = [at.n, at.c, at.oh, at.ow]
            here = r.add(r.mul(r.loop_index(2), r.index(w_in)), r.loop_index(3))
            hit = r.cmpi("eq", r.extract(argmax, index), r.index_cast(here, ARGMAX_TYPE))
            return hit, r.extract(op.grad_output, index)

        dx = _window_gather(b, window, shape_of(op.grad_output), shape_of(op.input), op.input, None, routed_here)
        rewriter.replace(op, [], [dx])


class MaxPool2dBackwardAllTies(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] * (x[n, c, h, w] == m[n, c, oh, ow])

    RLX's fast-path semantics for every stride and padding: each tied maximum takes the
    window's full gradient. m is the window max; no argmax is needed.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        _, m = _window_max(b, op.input, window, shape_of(op.grad_output))

        if _tiles_input(window):

            def ties_tile(r: RegionBuilder, dy: SSAValue, mx: SSAValue, cell: SSAValue) -> SSAValue:
                return r.select(r.cmpf("oeq", cell, mx), dy, r.constant(0.0, dy.type))

            dx = _tiled_gather(
                b, window, shape_of(op.grad_output), shape_of(op.input), op.input,
                [op.grad_output, m], op.input, ties_tile,
            )
            rewriter.replace(op, [], [dx])
            return

        def ties_max(r: RegionBuilder, at: _Candidate, cell: SSAValue):
            index = [at.n, at.c, at.oh, at.ow]
            return r.cmpf("oeq", cell, r.extract(m, index)), r.extract(op.grad_output, index)

        dx = _window_gather(b, window, shape_of(op.grad_output), shape_of(op.input), op.input, op.input, ties_max)
        rewriter.replace(op, [], [dx])


class AvgPool2dBackward(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] / divisor(oh, ow)

    divisor = KH*KW with count_include_pad (padded cells count; no window overhangs the
    padding without ceil_mode), else the window's cells inside the unpadded input:
    `(min(oh*S + K, H + P) - max(oh*S, P))` per axis, in padded coordinates.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        dx_shape = shape_of(op.result)
        element = element_type_of(op.grad_output)
        include_pad = op.geometry_value("count_include_pad")

        if _tiles_input(window):  # no padding: every window has KH*KW real cells
            area = window.kernel[0] * window.kernel[1]

            def share_tile(r: RegionBuilder, dy: SSAValue) -> SSAValue:
                return r.div(dy, r.constant(area, element))

            dx = _tiled_gather(
                b, window, shape_of(op.grad_output), dx_shape, op.grad_output, [op.grad_output], None, share_tile
            )
            rewriter.replace(op, [], [dx])
            return

        def divisor(r: RegionBuilder, at: _Candidate) -> SSAValue:
            if include_pad:
                return r.constant(window.kernel[0] * window.kernel[1], element)
            rows = r.cells_inside(at.oh, window.stride[0], window.kernel[0], window.padding[0], dx_shape[2])
            cols = r.cells_inside(at.ow, window.stride[1], window.kernel[1], window.padding[1], dx_shape[3])
            return r.index_to_float(r.mul(rows, cols), element)

        def share(r: RegionBuilder, at: _Candidate, _cell: SSAValue):
            dy = r.extract(op.grad_output, [at.n, at.c, at.oh, at.ow])
            return None, r.div(dy, divisor(r, at))

        dx = _window_gather(b, window, shape_of(op.grad_output), dx_shape, op.grad_output, None, share)
        rewriter.replace(op, [], [dx])


def pool_backward_patterns(pool_ties: str = "first") -> list[RewritePattern]:
    """The rewrites of `rlx.max_pool2d_backward` (by tie rule) and `rlx.avg_pool2d_backward`."""
    check_choice("decompose-backward", "pool-ties", pool_ties, POOL_TIES)
    max_pool = MaxPool2dBackwardFirstMax() if pool_ties == "first" else MaxPool2dBackwardAllTies()
    return [max_pool, AvgPool2dBackward()]
