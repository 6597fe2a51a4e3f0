"""The gather forms over pool windows that max-pool and avg-pool gradients share.

    dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} share(oh, ow, h, w)

- `window_gather`, for 2-D windows of dilation 1 and symmetric padding (the window count
  comes from the output): one generic over (n, c, h, w) with two small reduction loops
  (jh, jw) over the `ceil(K/S)` candidate windows per axis (`Window.windows_per_cell`),
  in increasing (oh, ow) order, the order in which PyTorch
  accumulates, so float sums agree bit for bit. Window-indexed tensors are read with
  `tensor.extract` at clamped indices; a candidate outside the output, or whose window
  does not reach the cell, adds nothing.
- `gather_windows`, its rank-generic form for any window (dilation, per-side padding,
  ceil mode): one generic over (n, c, *i) with a reduction loop per axis over each cell's
  candidate windows (`first_candidate_windows` or `tap_candidate_windows` says which),
  in row-major order, so PyTorch's summation order again.
- `tiled_gather`, for windows that tile the input (`windows_tile_input`): each cell lies
  in exactly one window, so one all-parallel generic over (n, c, oh, kh, ow, kw) reads the
  window's values through plain projections and writes dx viewed as [N, C, Ho, KH, Wo, KW].

Every loop bound, stride and offset is a constant in the bodies: the IR has one size for
any tensor size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of


@dataclass(frozen=True)
class Candidate:
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


Contribution = Callable[[RegionBuilder, Candidate, SSAValue | None], tuple[SSAValue | None, SSAValue]]
"""`(r, candidate, cell) -> (hit, value)`: what a candidate adds where `hit` (None: always)."""


def _candidate_on_axis(
    r: RegionBuilder, cell: SSAValue, j: SSAValue, pad: int, stride: int, kernel: int, windows: int, count: int
) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(o, k, valid) of the j-th candidate window of `cell` along one axis:
    `o = (cell + P) / S - (J - 1) + j`, `k = cell + P - o*S`, valid when `o < count, k < K`."""
    padded = r.add(cell, r.index(pad))
    first = r.sub(r.div(padded, r.index(stride)), r.index(windows - 1))
    o = r.add(first, j)
    k = r.sub(padded, r.mul(o, r.index(stride)))
    valid = r.and_(r.in_range(o, r.index(count)), r.in_range(k, r.index(kernel)))
    return o, k, valid


def window_gather(
    b: TensorBuilder,
    window: Window,
    out_shape: tuple[int, ...],
    dx_shape: tuple[int, ...],
    like: SSAValue,
    cell_input: SSAValue | None,
    contribution: Contribution,
) -> SSAValue:
    """dx[n, c, h, w] = sum over candidate windows of `value` where `valid && hit`.

    `contribution(r, candidate, cell)` returns `(hit, value)`; `cell` is
    `cell_input[n, c, h, w]`, or None without a cell input. Candidates along an axis:
    `oh = (h + P) / S - (J - 1) + j` for `j < J = ceil(K/S)`, increasing in `oh`; the
    cell's offset in window `oh` is `kh = h + P - oh*S`.
    """
    if window.dilation != (1, 1):
        raise AssertionError(f"window_gather takes dilation 1 only, got {list(window.dilation)}: use gather_windows")
    (kh_, kw_), (sh, sw), (ph, pw) = window.kernel, window.stride, window.padding
    jh, jw = window.windows_per_cell()
    oh_, ow_ = out_shape[2], out_shape[3]
    element = element_type_of(like)
    candidates = b.empty((jh, jw), element)  # shape only: the extent of the (jh, jw) loops

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        cell = args[0] if cell_input is not None else None
        n, c, h, w, j_h, j_w = (r.loop_index(d) for d in range(6))
        # The sum starts at the first candidate: the init is shape only (no zero-fill pass).
        first = r.and_(r.cmpi("eq", j_h, r.index(0)), r.cmpi("eq", j_w, r.index(0)))
        acc = r.select(first, r.constant(0.0, element), args[-1])
        oh, kh, valid_h = _candidate_on_axis(r, h, j_h, ph, sh, kh_, jh, oh_)
        ow, kw, valid_w = _candidate_on_axis(r, w, j_w, pw, sw, kw_, jw, ow_)
        valid = r.and_(valid_h, valid_w)
        zero = r.index(0)
        candidate = Candidate(n, c, r.select(valid, oh, zero), r.select(valid, ow, zero), kh, kw)
        hit, value = contribution(r, candidate, cell)
        take = valid if hit is None else r.and_(valid, hit)
        # Adding 0 where the candidate does not count (rather than keeping acc) is exact: a
        # sum that starts at +0 is never -0.
        return r.add(acc, r.select(take, value, r.constant(0.0, element)))

    ins = [cell_input] if cell_input is not None else []
    maps = [lambda n, c, h, w, j, k: (n, c, h, w)] * len(ins)
    # for n, c, h, w, jh < J_H, jw < J_W:
    #   oh, kh = (h + P_H) / S_H - (J_H - 1) + jh, h + P_H - oh*S_H   (likewise ow, kw)
    #   hit, value = contribution(n, c, clamp(oh), clamp(ow), kh, kw, cell_input[n, c, h, w])
    #   dx[n, c, h, w] += value if (oh, kh) and (ow, kw) are in range and hit else 0
    return b.generic(
        ins=[*ins, candidates],
        init=b.empty(dx_shape, element, like=like),
        maps=[*maps, lambda n, c, h, w, j, k: (j, k), lambda n, c, h, w, j, k: (n, c, h, w)],
        iterators="ppppRR",
        body=body,
    )


AxisCandidate = Callable[[RegionBuilder, int, SSAValue, SSAValue], tuple[SSAValue, SSAValue]]
"""`(r, axis, cell, j) -> (o, valid)`: the j-th candidate window of input cell `cell` along
`axis`, and whether it counts (a negative `o` may be returned: it is clamped where invalid)."""

WindowValue = Callable[
    [RegionBuilder, SSAValue, SSAValue, list[SSAValue], list[SSAValue]], tuple[SSAValue | None, SSAValue]
]
"""`(r, n, c, windows, cells) -> (hit, value)`: what candidate window `windows` (clamped into
the output) adds to input cell `cells` where `hit` (None: always)."""


def _last_window_of_cell(r: RegionBuilder, window: Window, axis: int, cell: SSAValue, j: SSAValue) -> SSAValue:
    """`o = floor((i + pl) / s) - (J - 1) + j`: candidate j of cell i along `axis`, J =
    `windows_per_cell`. The J candidates end at the last window that starts at or before the
    cell, and J windows back cover every window whose (dilated) extent reaches it."""
    count = window.windows_per_cell()[axis]
    padded = r.add(cell, r.index(window.low[axis])) if window.low[axis] else cell
    last = r.div(padded, r.index(window.stride[axis])) if window.stride[axis] != 1 else padded
    first = r.sub(last, r.index(count - 1)) if count > 1 else last
    return r.add(first, j)


def first_candidate_windows(window: Window, out_spatial: Sequence[int]) -> AxisCandidate:
    """Candidates that are windows of the output: `o` in `[0, out)`, whether or not they reach
    the cell. For a `value` that is itself zero where the window does not hold the cell
    (max pool: the window's winner, an input index, is the cell), so no tap test is needed,
    with dilation too."""

    def candidate(r: RegionBuilder, axis: int, cell: SSAValue, j: SSAValue) -> tuple[SSAValue, SSAValue]:
        o = _last_window_of_cell(r, window, axis, cell, j)
        return o, r.in_range(o, r.index(out_spatial[axis]))

    return candidate


def tap_candidate_windows(window: Window, out_spatial: Sequence[int]) -> AxisCandidate:
    """Candidates that are windows of the output holding the cell as one of their taps:
    `o` in `[0, out)`, and the cell's offset `t = i + pl - o*s` in the window inside the
    dilated extent and a multiple of the dilation."""

    def candidate(r: RegionBuilder, axis: int, cell: SSAValue, j: SSAValue) -> tuple[SSAValue, SSAValue]:
        o = _last_window_of_cell(r, window, axis, cell, j)
        padded = r.add(cell, r.index(window.low[axis])) if window.low[axis] else cell
        offset = r.sub(padded, r.mul(o, r.index(window.stride[axis])))
        valid = r.and_(r.in_range(o, r.index(out_spatial[axis])), r.in_range(offset, r.index(window.extent[axis])))
        dilation = window.dilation[axis]
        if dilation != 1:
            on_tap = r.cmpi("eq", r.value(arith.RemUIOp(offset, r.index(dilation))), r.index(0))
            valid = r.and_(valid, on_tap)
        return o, valid

    return candidate


def gather_windows(
    b: TensorBuilder,
    dx_shape: Sequence[int],
    like: SSAValue,
    extents: Sequence[int],
    candidate: AxisCandidate,
    value: WindowValue,
    cell_input: SSAValue | None = None,
) -> SSAValue:
    """dx[n, c, *i] = sum over the candidate windows o of i of `value`, where valid and hit.

    One generic over (n, c, *i, *j), any spatial rank r: the j loops (`extents[a]`
    candidates along axis a, `Window.windows_per_cell`) are reductions, in row-major order,
    so the windows of a cell are summed in increasing window order, PyTorch's. Window-indexed
    tensors are read with `tensor.extract` at the window clamped to 0 where it is not valid.
    The sum starts at the first candidate (the init is shape only): no zero-filled tensor is
    written first. With `cell_input`, `value`'s `cells` are its element at (n, c, *i) as a
    one-element list (else the cell indices). In 2-D the generic has `window_gather`'s
    structure (the backend's pool schedule recognises it).
    """
    rank = len(extents)
    loops = 2 + 2 * rank
    element = element_type_of(like)
    candidates = b.empty(tuple(extents), element)  # shape only: the extent of the j loops

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        acc = args[-1]
        index = [r.loop_index(d) for d in range(loops)]
        n, c, cells, js = index[0], index[1], index[2 : 2 + rank], index[2 + rank :]
        zero = r.index(0)
        first = r.cmpi("eq", js[0], zero)
        for j in js[1:]:
            first = r.and_(first, r.cmpi("eq", j, zero))
        total = r.select(first, r.constant(0.0, element), acc)
        windows, valid = [], None
        for axis in range(rank):
            o, ok = candidate(r, axis, cells[axis], js[axis])
            windows.append(o)
            valid = ok if valid is None else r.and_(valid, ok)
        clamped = [r.select(valid, o, zero) for o in windows]
        hit, v = value(r, n, c, clamped, [args[0]] if cell_input is not None else cells)
        take = valid if hit is None else r.and_(valid, hit)
        # Adding +0 where the candidate does not count is exact: a sum from +0 is never -0.
        return r.add(total, r.select(take, v, r.constant(0.0, element)))

    ins = [cell_input] if cell_input is not None else []
    # for n, c, *i, *j < extents:
    #   o = candidate(i, j) per axis
    #   dx[n, c, *i] += value(n, c, clamp(o), i) if every axis' o is valid (and hit) else 0
    return b.generic(
        ins=[*ins, candidates],
        init=b.empty(tuple(dx_shape), element, like=like),
        maps=[
            *[dims_map(loops, lambda d: d[: 2 + rank])] * len(ins),
            dims_map(loops, lambda d: d[2 + rank :]),
            dims_map(loops, lambda d: d[: 2 + rank]),
        ],
        iterators="p" * (2 + rank) + "R" * rank,
        body=body,
    )


TiledValue = Callable[..., SSAValue]
"""`(r, *window_values, cell) -> dx value` of a tiled gather body."""


def window_tiles(b: TensorBuilder, value: SSAValue, window: Window, out_shape: tuple[int, ...]) -> SSAValue:
    """`value` (x or dx-shaped) as [N, C, Ho, KH, Wo, KW] window tiles, for tiling windows:
    the rows and columns past the last window are sliced off first."""
    (kh_, kw_) = window.kernel
    n_, c_, oh_, ow_ = out_shape
    covered = (n_, c_, oh_ * kh_, ow_ * kw_)
    if shape_of(value)[2:] != covered[2:]:
        value = b.extract_slice(value, (0, 0, 0, 0), covered)
    return b.expand_shape(value, [[0], [1], [2, 3], [4, 5]], (n_, c_, oh_, kh_, ow_, kw_))


def tiled_gather(
    b: TensorBuilder,
    window: Window,
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
    at (n, c, oh, ow); `cell_input` (x) is read at its own cell. dx is built as
    [N, C, Ho, KH, Wo, KW], collapsed to [N, C, Ho*KH, Wo*KW], and zero-padded to the
    input size where the last window does not reach.
    """
    (kh_, kw_) = window.kernel
    n_, c_, oh_, ow_ = out_shape
    element = element_type_of(like)
    covered = (n_, c_, oh_ * kh_, ow_ * kw_)
    tiles = (n_, c_, oh_, kh_, ow_, kw_)
    ins = list(window_inputs)
    maps = [lambda n, c, oh, kh, ow, kw: (n, c, oh, ow)] * len(window_inputs)
    if cell_input is not None:
        ins.append(window_tiles(b, cell_input, window, out_shape))
        maps.append(lambda n, c, oh, kh, ow, kw: (n, c, oh, kh, ow, kw))

    # for n, c, oh, kh, ow, kw:
    #   dx[n, c, oh, kh, ow, kw] = value(window_inputs[n, c, oh, ow], cell_input[n, c, oh*KH + kh, ow*KW + kw])
    dx_tiles = b.generic(
        ins=ins,
        init=b.empty(tiles, element, like=like),
        maps=[*maps, lambda n, c, oh, kh, ow, kw: (n, c, oh, kh, ow, kw)],
        iterators="pppppp",
        body=lambda r, *args: value(r, *args[:-1]),
    )
    dx = b.collapse_shape(dx_tiles, [[0], [1], [2, 3], [4, 5]])
    high = (0, 0, dx_shape[2] - covered[2], dx_shape[3] - covered[3])
    return b.pad(dx, (0, 0, 0, 0), high, 0.0)
