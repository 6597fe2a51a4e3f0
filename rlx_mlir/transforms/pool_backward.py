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

For max pool with PyTorch's ties (the common case) neither form is used for overlapping
windows: the gather is split by stride phase, `dx[n, c, i*S + a, j*S + b]`, where the
candidate windows of every cell of a phase are `(i + d, j + e)` for a few constant
offsets, so dy and the argmax are plain operands (slices of copies framed by the reach
of those offsets) and each candidate is a compare and a select, no tensor.extract, no
branch (`_phase_gather_first_max`; all phases in one generic writing dx contiguously
when the stride divides the input, `_interleaved_gather_first_max`). The argmax of the
windows inside the input reads its KH*KW cells as strided slices of x
(`_interior_first_argmax`); only the border strips whose windows overhang the padding
keep the bounds-checked scan (`_peeled_first_argmax`).

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


def _first_argmax(
    b: TensorBuilder, x: SSAValue, window: Window2d, slot: SSAValue, origin: tuple[int, int] = (0, 0)
) -> SSAValue:
    """a[n, c, oh, ow] = h*W + w of the window's winner under PyTorch's rule (its saved indices).

    One pass over the window's cells in row-major order, reading x (viewed as [N, C, H*W])
    at clamped indices; cells in the padding are skipped, so no padded copy of x is made.
    The first valid cell starts the scan, and a later cell replaces the winner `a` when
    `v > x[a] || isnan(v)`: the first maximum wins, the last NaN wins, and an all -inf
    window goes to its first valid cell. The init `slot` is shape only: the first cell
    (kh, kw) = (0, 0) starts from "no winner" (-1). `slot` holds the windows from `origin`
    on (a border strip of the output, see `_peeled_first_argmax`).
    """
    (sh, sw), (ph, pw) = window.stride, window.padding
    h_in, w_in = shape_of(x)[2], shape_of(x)[3]
    flat = b.collapse_shape(x, [[0], [1], [2, 3]])
    cells = b.empty(window.kernel, element_type_of(x))  # shape only: the extent of the (kh, kw) loops

    def body(r: RegionBuilder, _cell: SSAValue, acc: SSAValue) -> SSAValue:
        n, c, oh, ow, kh, kw = (r.loop_index(d) for d in range(6))
        oh, ow = r.add(oh, r.index(origin[0])), r.add(ow, r.index(origin[1]))
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
        init=slot,
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


def _phase_offsets(phase: int, kernel: int, stride: int, padding: int) -> list[int]:
    """The offsets d, increasing, of the windows `o = i + d` that contain cell `i*S + phase`.

    The cell sits at `k = phase + P - d*S` in window `i + d`, so d runs over the values
    with `0 <= k < K`: from ceil((phase + P - K + 1) / S) to floor((phase + P) / S).
    """
    low = -((kernel - 1 - phase - padding) // stride)
    return list(range(low, (phase + padding) // stride + 1))


def _phase_sizes(size: int, stride: int) -> list[int]:
    """The number of cells `i*S + phase` in `[0, size)` for each phase: ceil((size - phase) / S)."""
    return [-(-(size - phase) // stride) for phase in range(stride)]


def _phase_halo(size: int, count: int, kernel: int, stride: int, padding: int) -> tuple[int, int]:
    """(low, high): how far the phases' candidate windows reach outside the `count` windows."""
    reach = [
        (cells, d)
        for phase, cells in enumerate(_phase_sizes(size, stride)) if cells > 0
        for d in _phase_offsets(phase, kernel, stride, padding)
    ]
    low = max([0] + [-d for _, d in reach])
    high = max([0] + [cells - 1 + d - (count - 1) for cells, d in reach])
    return low, high


def _halo(window: Window2d, x_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> tuple[tuple[int, int], tuple[int, int]]:
    """((top, bottom), (left, right)) padding of dy and argmax for the phase gather."""
    return tuple(  # type: ignore[return-value]
        _phase_halo(x_shape[2 + axis], out_shape[2 + axis], window.kernel[axis], window.stride[axis], window.padding[axis])
        for axis in range(2)
    )


def _interior(size: int, count: int, kernel: int, stride: int, padding: int) -> tuple[int, int]:
    """[first, end) of the windows along an axis that lie entirely inside the unpadded input.

    Window o covers `o*S - P .. o*S - P + K - 1`; clipped to `[0, count)` and possibly empty.
    """
    first = min(count, -(-padding // stride))
    end = max(first, min(count, (size - kernel + padding) // stride + 1))
    return first, end


def _interior_first_argmax(b: TensorBuilder, x: SSAValue, window: Window2d, slot: SSAValue, origin: tuple[int, int]) -> SSAValue:
    """`_first_argmax` for windows with no cell in the padding: one all-parallel generic.

    Each of the KH*KW cells is an operand, a strided slice of x (`x[S*o + k - P]`), so the
    body is PyTorch's scan unrolled over the window with no bounds checks and no
    tensor.extract: a cell replaces the running winner when `v > max || isnan(v)`,
    starting from the first cell. The winner's index is `base + kh*W + kw`, base the
    window's first cell.
    """
    (kh_, kw_), (sh, sw), (ph, pw) = window.kernel, window.stride, window.padding
    w_in = shape_of(x)[3]
    size = shape_of(slot)
    cells = [(i, j) for i in range(kh_) for j in range(kw_)]
    ins = [
        b.extract_slice(x, (0, 0, sh * origin[0] + i - ph, sw * origin[1] + j - pw), size, (1, 1, sh, sw))
        for i, j in cells
    ]

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        values = args[: len(cells)]
        best, best_value = r.constant(0, ARGMAX_TYPE), values[0]
        for (i, j), v in zip(cells[1:], values[1:]):
            wins = r.or_(r.cmpf("ogt", v, best_value), r.cmpf("uno", v, v))
            best = r.select(wins, r.constant(i * w_in + j, ARGMAX_TYPE), best)
            best_value = r.select(wins, v, best_value)
        oh = r.add(r.loop_index(2), r.index(origin[0]))
        ow = r.add(r.loop_index(3), r.index(origin[1]))
        top = r.sub(r.mul(oh, r.index(sh)), r.index(ph))
        left = r.sub(r.mul(ow, r.index(sw)), r.index(pw))
        base = r.index_cast(r.add(r.mul(top, r.index(w_in)), left), ARGMAX_TYPE)
        return r.add(base, best)

    return _scheduled(b.generic(
        ins=ins,
        init=slot,
        maps=[lambda n, c, oh, ow: (n, c, oh, ow)] * (len(ins) + 1),
        iterators="pppp",
        body=body,
    ), "lanes")


def _frame(b: TensorBuilder, shape: tuple[int, ...], element, halo, fill: float, like: SSAValue) -> SSAValue:
    """A tensor of `shape` whose outer `halo` rows and columns hold `fill` (the inside is
    left to the caller): four slice fills, not a fill of the whole tensor."""
    (top, bottom), (left, right) = halo
    n_, c_, h_, w_ = shape
    framed = b.empty(shape, element, like=like)
    strips = [
        ((0, 0), (top, w_)),
        ((h_ - bottom, 0), (bottom, w_)),
        ((top, 0), (h_ - top - bottom, left)),
        ((top, w_ - right), (h_ - top - bottom, right)),
    ]
    for (row, col), (rows, cols) in strips:
        if rows > 0 and cols > 0:
            at = (0, 0, row, col)
            filled = b.fill(b.extract_slice(framed, at, (n_, c_, rows, cols)), fill)
            framed = b.insert_slice(filled, framed, at)
    return framed


def _peeled_first_argmax(
    b: TensorBuilder, x: SSAValue, window: Window2d, out_shape: tuple[int, ...], halo
) -> SSAValue:
    """PyTorch's saved indices (`_first_argmax`), inside a frame of -1 (`halo` wide).

    The windows entirely inside the input take the vectorizable `_interior_first_argmax`;
    the border strips whose windows overhang the padding (a row or column for the usual
    pools) keep the scan with bounds checks. All pieces write slices of one tensor.
    """
    (top, bottom), (left, right) = halo
    n_, c_, oh_, ow_ = out_shape
    framed = (n_, c_, oh_ + top + bottom, ow_ + left + right)
    argmax = _frame(b, framed, ARGMAX_TYPE, halo, NO_ARGMAX, x)
    rows = _interior(shape_of(x)[2], oh_, window.kernel[0], window.stride[0], window.padding[0])
    cols = _interior(shape_of(x)[3], ow_, window.kernel[1], window.stride[1], window.padding[1])
    if rows[0] == rows[1] or cols[0] == cols[1]:
        rows, cols = (0, 0), (0, 0)  # no interior: one strip is the whole output
    strips = [
        ((0, 0), (rows[0], ow_)),
        ((rows[1], 0), (oh_ - rows[1], ow_)),
        ((rows[0], 0), (rows[1] - rows[0], cols[0])),
        ((rows[0], cols[1]), (rows[1] - rows[0], ow_ - cols[1])),
    ]
    if rows == (0, 0):
        strips = [((0, 0), (oh_, ow_))]
    pieces = [(origin, extent, False) for origin, extent in strips if extent[0] > 0 and extent[1] > 0]
    if rows[1] > rows[0]:
        pieces.append(((rows[0], cols[0]), (rows[1] - rows[0], cols[1] - cols[0]), True))
    for origin, extent, inside in pieces:
        at = (0, 0, top + origin[0], left + origin[1])
        if inside:
            slot = b.extract_slice(argmax, at, (n_, c_, *extent))
            piece = _interior_first_argmax(b, x, window, slot, origin)
        else:
            # A fresh tensor, not a slice of the shared one: IREE 3.13 cannot distribute a
            # scan that updates a slice of a tensor other strips were inserted into.
            slot = b.empty((n_, c_, *extent), ARGMAX_TYPE, like=x)
            piece = _first_argmax(b, x, window, slot, origin)
        argmax = b.insert_slice(piece, argmax, at)
    return argmax


def _framed(b: TensorBuilder, value: SSAValue, halo, fill: float) -> SSAValue:
    """`value` inside a frame of `fill`, `halo` wide: a vectorizable copy into a filled tensor.

    (tensor.pad would bufferize to a runtime strided memref copy, several times slower.)
    """
    (top, bottom), (left, right) = halo
    if not (top or bottom or left or right):
        return value
    n_, c_, h_, w_ = shape_of(value)
    frame = _frame(b, (n_, c_, h_ + top + bottom, w_ + left + right), element_type_of(value), halo, fill, value)
    at = (0, 0, top, left)
    interior = b.extract_slice(frame, at, shape_of(value))
    copied = _scheduled(b.generic(
        ins=[value],
        init=interior,
        maps=[lambda n, c, h, w: (n, c, h, w)] * 2,
        iterators="pppp",
        body=lambda r, v, _old: v,
    ), "lanes")
    return b.insert_slice(copied, frame, at)


def _phase_gather_first_max(
    b: TensorBuilder, window: Window2d, dy: SSAValue, argmax: SSAValue, halo, x: SSAValue
) -> SSAValue:
    """dx as S_H*S_W stride phases dx[n, c, i*S_H + a, j*S_W + b], each one all-parallel generic.

    Within a phase (a, b) the windows that can contain cell (i, j) are `(i + d, j + e)` for
    a fixed, small set of offsets (`_phase_offsets`), so each candidate's dy and argmax are
    plain operands: slices of dy and argmax framed by `halo` so that every offset stays in
    bounds (argmax -1 in the frame: no cell's index). A candidate adds its dy where its
    argmax is the cell's index h*W + w, through a select on values (no branch, no
    tensor.extract), in increasing (oh, ow) order as PyTorch sums. Each phase writes a
    strided slice of one dx tensor (destination-passing: one buffer); its reads are unit
    stride along j, so the backend vectorizes phases along j.
    """
    (kh_, kw_), (sh, sw), (ph, pw) = window.kernel, window.stride, window.padding
    n_, c_, h_in, w_in = shape_of(x)
    (top, _), (left, _) = halo
    element = element_type_of(dy)
    rows, cols = _phase_sizes(h_in, sh), _phase_sizes(w_in, sw)

    dx = b.empty(shape_of(x), element, like=x)
    for a in range(sh):
        for bb in range(sw):
            if rows[a] <= 0 or cols[bb] <= 0:
                continue
            size = (n_, c_, rows[a], cols[bb])
            candidates = [(d, e) for d in _phase_offsets(a, kh_, sh, ph) for e in _phase_offsets(bb, kw_, sw, pw)]
            ins = []
            for d, e in candidates:
                at = (0, 0, top + d, left + e)
                ins += [b.extract_slice(dy, at, size), b.extract_slice(argmax, at, size)]

            def body(r: RegionBuilder, *args: SSAValue, a=a, bb=bb, count=len(candidates)) -> SSAValue:
                h = r.add(r.mul(r.loop_index(2), r.index(sh)), r.index(a))
                w = r.add(r.mul(r.loop_index(3), r.index(sw)), r.index(bb))
                here = r.index_cast(r.add(r.mul(h, r.index(w_in)), w), ARGMAX_TYPE)
                zero = r.constant(0.0, element)
                acc = zero
                for k in range(count):
                    value, winner = args[2 * k], args[2 * k + 1]
                    acc = r.add(acc, r.select(r.cmpi("eq", winner, here), value, zero))
                return acc

            slot = b.extract_slice(dx, (0, 0, a, bb), size, (1, 1, sh, sw))
            phase = _scheduled(b.generic(
                ins=ins,
                init=slot,
                maps=[lambda n, c, i, j: (n, c, i, j)] * (len(ins) + 1),
                iterators="pppp",
                body=body,
            ), "lanes")
            dx = b.insert_slice(phase, dx, (0, 0, a, bb), (1, 1, sh, sw))
    return dx


def _interleaved_gather_first_max(
    b: TensorBuilder, window: Window2d, dy: SSAValue, argmax: SSAValue, halo, x: SSAValue
) -> SSAValue:
    """dx viewed as [N, C, H/S_H, S_H, W/S_W, S_W]: every stride phase in one all-parallel generic.

    For input sizes that the stride divides. The candidate windows of cell
    (i*S_H + a, j*S_W + b) are `(i + d, j + e)` for d, e in the union over phases of
    `_phase_offsets`; a window that does not contain the cell cannot have it as argmax, so
    the extra candidates add exact zeros. dy and argmax are read at (i + d, j + e) (slices
    of the `halo`-framed tensors, broadcast along a, b). The loops are (n, c, i, a, b, j):
    the backend vectorizes along j, where every read is unit stride, and writes each
    (b, j) vector pair interleaved into the contiguous dx row (a transpose of 2 x 8 lanes
    rather than a broadcast of each dy and argmax element along b: measured ~20% less CPU).
    """
    (kh_, kw_), (sh, sw), (ph, pw) = window.kernel, window.stride, window.padding
    n_, c_, h_in, w_in = shape_of(x)
    (top, _), (left, _) = halo
    element = element_type_of(dy)
    rows = sorted({d for a in range(sh) for d in _phase_offsets(a, kh_, sh, ph)})
    cols = sorted({e for a in range(sw) for e in _phase_offsets(a, kw_, sw, pw)})
    size = (n_, c_, h_in // sh, w_in // sw)
    ins = []
    for d in rows:
        for e in cols:
            at = (0, 0, top + d, left + e)
            ins += [b.extract_slice(dy, at, size), b.extract_slice(argmax, at, size)]

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        i, a, bb, j = (r.loop_index(dim) for dim in (2, 3, 4, 5))
        h = r.add(r.mul(i, r.index(sh)), a)
        w = r.add(r.mul(j, r.index(sw)), bb)
        here = r.index_cast(r.add(r.mul(h, r.index(w_in)), w), ARGMAX_TYPE)
        zero = r.constant(0.0, element)
        acc = zero
        for k in range(len(ins) // 2):
            value, winner = args[2 * k], args[2 * k + 1]
            acc = r.add(acc, r.select(r.cmpi("eq", winner, here), value, zero))
        return acc

    tiles = (n_, c_, h_in // sh, sh, w_in // sw, sw)
    dx = _scheduled(b.generic(
        ins=ins,
        init=b.empty(tiles, element, like=x),
        maps=[lambda n, c, i, a, bb, j: (n, c, i, j)] * len(ins) + [lambda n, c, i, a, bb, j: (n, c, i, a, j, bb)],
        iterators="pppppp",
        body=body,
    ), "interleaved")
    return b.collapse_shape(dx, [[0], [1], [2, 3], [4, 5]])


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

        out_shape = shape_of(op.grad_output)
        halo = _halo(window, shape_of(op.input), out_shape)
        argmax = _peeled_first_argmax(b, op.input, window, out_shape, halo)
        dy = _framed(b, op.grad_output, halo, 0.0)
        h_in, w_in = shape_of(op.input)[2:]
        if window.stride[1] > 1 and h_in % window.stride[0] == 0 and w_in % window.stride[1] == 0:
            dx = _interleaved_gather_first_max(b, window, dy, argmax, halo, op.input)
        else:
            dx = _phase_gather_first_max(b, window, dy, argmax, halo, op.input)
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
