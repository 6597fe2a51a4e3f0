"""The winner of each max-pool window under PyTorch's rule, as PyTorch's saved indices.

PyTorch scans a window's cells in row-major order; a cell replaces the running winner
when `v > max || isnan(v)` (`replaces_first_max`): the first maximum wins, the last NaN
wins, and an all -inf window goes to its first cell inside the input. Every argmax here
applies that one rule:
- `scanned_first_argmax`: the general scan, any spatial rank and any window (dilation,
  per-side padding, ceil mode), a reduction loop per axis over the window with bounds
  checks, reading x at clamped indices (no padded copy of x);
- `unrolled_first_max`, the scan unrolled over cells that are operands of the body,
  which `tiled_first_argmax` (windows that tile the input) and `interior_first_argmax`
  (windows inside the input, read as strided slices of x) use;
- `peeled_first_argmax`: the interior argmax, with the scan on the border strips whose
  windows overhang the padding.

The argmax is i32; -1 (`NO_ARGMAX`) is no cell's index.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import SSAValue

from rlx_mlir.geometry import PoolAxis, Window, peeled_windows
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.pool.frame import Halo, frame
from rlx_mlir.transforms.pool.gather import window_tiles

ARGMAX_TYPE = IntegerType(32)
NO_ARGMAX = -1


def replaces_first_max(r: RegionBuilder, v: SSAValue, best: SSAValue) -> SSAValue:
    """PyTorch's max-pool rule: whether cell value `v` replaces the running maximum `best`,
    `v > best || isnan(v)`."""
    return r.or_(r.cmpf("ogt", v, best), r.cmpf("uno", v, v))


def unrolled_first_max(r: RegionBuilder, cells: Sequence[tuple[int, SSAValue]]) -> SSAValue:
    """The i32 index of the winner of `cells`, (index, value) pairs in scan order.

    The first cell starts the scan; each later one replaces the winner by
    `replaces_first_max`. Selects only: no branch, no bounds check.
    """
    (first, best_value), *rest = cells
    best = r.constant(first, ARGMAX_TYPE)
    for index, v in rest:
        wins = replaces_first_max(r, v, best_value)
        best = r.select(wins, r.constant(index, ARGMAX_TYPE), best)
        best_value = r.select(wins, v, best_value)
    return best


def _all(r: RegionBuilder, conditions: Sequence[SSAValue]) -> SSAValue:
    """The conjunction of one or more i1 values."""
    result, *rest = conditions
    for condition in rest:
        result = r.and_(result, condition)
    return result


def scanned_first_argmax(
    b: TensorBuilder, x: SSAValue, window: Window, slot: SSAValue, origin: Sequence[int] | None = None
) -> SSAValue:
    """a[n, c, *o] = the flat input index of the window's winner, one pass over its cells in row-major order.

    Any spatial rank and any window: cell k of window o along an axis is input cell
    `i = o*s - pl + k*d` (dilated, the low padding pl); cells outside the input (the
    padding, or past it where ceil mode lets the last window run on) do not exist and are
    skipped, so no padded copy of x is made. x is read (viewed as [N, C, prod(spatial)]) at
    clamped indices. The running maximum is re-read from x at the winner (a two-result
    generic prints in a form upstream MLIR rejects). The init `slot` is shape only: cell
    k = 0 starts from "no winner" (-1). `slot` holds the windows from `origin` on (a border
    strip of the output).
    """
    rank = window.rank
    origin = tuple(origin) if origin is not None else (0,) * rank
    spatial = shape_of(x)[2:]
    loops = 2 + 2 * rank
    flat = b.collapse_shape(x, [[0], [1], list(range(2, 2 + rank))])
    cells = b.empty(window.kernel, element_type_of(x))  # shape only: the extent of the k loops

    def body(r: RegionBuilder, _cell: SSAValue, acc: SSAValue) -> SSAValue:
        index = [r.loop_index(d) for d in range(loops)]
        n, c, os, ks = index[0], index[1], index[2 : 2 + rank], index[2 + rank :]
        os = [r.add(o, r.index(at)) for o, at in zip(os, origin)]
        cells = []
        for axis in range(rank):
            k = ks[axis] if window.dilation[axis] == 1 else r.mul(ks[axis], r.index(window.dilation[axis]))
            cells.append(r.sub(r.add(r.mul(os[axis], r.index(window.stride[axis])), k), r.index(window.low[axis])))
        valid = _all(r, [r.in_range(i, r.index(size)) for i, size in zip(cells, spatial)])
        here = cells[0]
        for i, size in zip(cells[1:], spatial[1:]):
            here = r.add(r.mul(here, r.index(size)), i)
        here = r.select(valid, here, r.index(0))
        none = r.constant(NO_ARGMAX, ARGMAX_TYPE)
        first = _all(r, [r.cmpi("eq", k, r.index(0)) for k in ks])
        best = r.select(first, none, acc)
        unset = r.cmpi("eq", best, none)
        best_at = r.select(unset, r.index(0), r.index_cast(best, IndexType()))
        v = r.extract(flat, [n, c, here])
        beats = replaces_first_max(r, v, r.extract(flat, [n, c, best_at]))
        wins = r.and_(valid, r.or_(unset, beats))
        return r.select(wins, r.index_cast(here, ARGMAX_TYPE), best)

    # for n, c, *o, *k < K:
    #   i = (origin + o)*S - P_low + k*D per axis
    #   a = -1 if k == 0 else a[n, c, *o]
    #   if i in x and (a == -1 or replaces_first_max(x[i], x[a])): a = flat(i)
    return b.generic(
        ins=[cells],
        init=slot,
        maps=[dims_map(loops, lambda d: d[2 + rank :]), dims_map(loops, lambda d: d[: 2 + rank])],
        iterators="p" * (2 + rank) + "R" * rank,
        body=body,
    )


def tiled_first_argmax(b: TensorBuilder, window: Window, x: SSAValue, out_shape: tuple[int, ...]) -> SSAValue:
    """a[n, c, oh, ow] = kh*KW + kw of the window's winner, for windows that tile the input.

    The body reads the window's KH*KW cells as one operand each (x viewed as tiles, at
    (oh, kh, ow, kw)): one pass over x with plain projections and no reduction loops.
    """
    (kh_, kw_) = window.kernel
    x_tiles = window_tiles(b, x, window, out_shape)
    offsets = [(i, j) for i in range(kh_) for j in range(kw_)]

    def cell_map(i: int, j: int):
        return lambda n, c, oh, ow: (n, c, oh, i, ow, j)

    # for n, c, oh, ow:
    #   a[n, c, oh, ow] = unrolled_first_max((kh*KW + kw, x[n, c, oh*KH + kh, ow*KW + kw]) for kh, kw)
    return b.generic(
        ins=[x_tiles] * len(offsets),
        init=b.empty(out_shape, ARGMAX_TYPE, like=x),
        maps=[*(cell_map(i, j) for i, j in offsets), lambda n, c, oh, ow: (n, c, oh, ow)],
        iterators="pppp",
        body=lambda r, *args: unrolled_first_max(r, list(enumerate(args[: len(offsets)]))),
    )


def interior_first_argmax(b: TensorBuilder, x: SSAValue, window: Window, slot: SSAValue, origin: tuple[int, int]) -> SSAValue:
    """`scanned_first_argmax` for windows with no cell in the padding: one all-parallel generic.

    Each of the KH*KW cells is an operand, a strided slice of x (`x[S*o + k - P]`), so the
    body is the scan unrolled over the window with no bounds checks and no
    tensor.extract. The winner's index is `base + kh*W + kw`, base the window's first cell.
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
        best = unrolled_first_max(r, [(i * w_in + j, v) for (i, j), v in zip(cells, args)])
        oh = r.add(r.loop_index(2), r.index(origin[0]))
        ow = r.add(r.loop_index(3), r.index(origin[1]))
        top = r.sub(r.mul(oh, r.index(sh)), r.index(ph))
        left = r.sub(r.mul(ow, r.index(sw)), r.index(pw))
        base = r.index_cast(r.add(r.mul(top, r.index(w_in)), left), ARGMAX_TYPE)
        return r.add(base, best)

    # for n, c, oh, ow:
    #   base = ((origin_h + oh)*S_H - P_H)*W + (origin_w + ow)*S_W - P_W
    #   a[n, c, oh, ow] = base + unrolled_first_max((kh*W + kw, x_kh_kw[n, c, oh, ow]) for kh, kw)
    return b.generic(
        ins=ins,
        init=slot,
        maps=[lambda n, c, oh, ow: (n, c, oh, ow)] * (len(ins) + 1),
        iterators="pppp",
        body=body,
    )


def peeled_first_argmax(b: TensorBuilder, x: SSAValue, window: Window, out_shape: tuple[int, ...], halo: Halo) -> SSAValue:
    """PyTorch's saved indices inside a frame of -1 (`halo` wide).

    The windows entirely inside the input take `interior_first_argmax`; the border strips
    whose windows overhang the padding (`peeled_windows`: a row or column for the usual
    pools) keep the scan with bounds checks. All pieces are inserted into one tensor.
    """
    (top, bottom), (left, right) = halo
    n_, c_, oh_, ow_ = out_shape
    argmax = frame(b, (n_, c_, oh_ + top + bottom, ow_ + left + right), ARGMAX_TYPE, halo, NO_ARGMAX, x)
    strips, interior = peeled_windows(*PoolAxis.of(window, shape_of(x)[2:], out_shape[2:]))
    for origin, extent in strips:
        # A fresh tensor, not a slice of the shared one: IREE 3.13 cannot distribute a
        # scan that updates a slice of a tensor other strips were inserted into.
        slot = b.empty((n_, c_, *extent), ARGMAX_TYPE, like=x)
        argmax = b.insert_slice(scanned_first_argmax(b, x, window, slot, origin), argmax, (0, 0, top + origin[0], left + origin[1]))
    if interior is not None:
        origin, extent = interior
        at = (0, 0, top + origin[0], left + origin[1])
        slot = b.extract_slice(argmax, at, (n_, c_, *extent))
        argmax = b.insert_slice(interior_first_argmax(b, x, window, slot, origin), argmax, at)
    return argmax
