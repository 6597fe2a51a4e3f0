"""Pool gradients: which windows reach which input cells, and where windows overhang.

The gather forms of the pool backward ops loop, for each input cell, over the windows
that contain it; these rules give the windows per stride phase, the frame a
window-indexed tensor needs, and the interior where no window overhangs the input.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlx_mlir.geometry.phases import phase_taps
from rlx_mlir.geometry.window import Pair, Window

Rect = tuple[Pair, Pair]
"""((row, col), (rows, cols)): a rectangle of a 2-D grid, by its origin and extent."""


def windows_tile_input(window: Window) -> bool:
    """Whether every input cell lies in at most one window, at offset `(h % KH, w % KW)`.

    True for stride == kernel without padding (the usual 2x2/2 pool); the rows and
    columns past the last window lie in none.
    """
    zero = (0,) * window.rank
    return (
        window.stride == window.kernel
        and window.low == window.high == zero
        and window.dilation == (1,) * window.rank
        and not window.ceil_mode
    )


@dataclass(frozen=True)
class PoolAxis:
    """One spatial axis of a pool: `size` input cells and `count` windows of `kernel` cells.

    Window `o` covers the input cells `o*S - P .. o*S - P + K - 1` (dilation 1). A stride
    phase `a` is the cells `i*S + a`; within a phase, the windows containing cell `i` are
    `i + d` for offsets `d` that do not depend on `i`.
    """

    size: int
    count: int
    kernel: int
    stride: int
    padding: int

    @staticmethod
    def of(window: Window, input_spatial: Pair, output_spatial: Pair) -> tuple[PoolAxis, PoolAxis]:
        """The (rows, cols) axes of a pool with `window` from `input_spatial` to `output_spatial`."""
        return tuple(  # type: ignore[return-value]
            PoolAxis(input_spatial[i], output_spatial[i], window.kernel[i], window.stride[i], window.padding[i])
            for i in range(2)
        )

    def phase_sizes(self) -> list[int]:
        """The number of cells `i*S + a` in `[0, size)` for each phase a: `ceil((size - a) / S)`."""
        return [-(-(self.size - phase) // self.stride) for phase in range(self.stride)]

    def phase_offsets(self, phase: int) -> list[int]:
        """The offsets d, increasing, of the windows `o = i + d` that contain cell `i*S + phase`.

        The cell sits at `k = phase + P - d*S` in window `i + d`, so d runs over the values
        with `0 <= k < K`: from `ceil((phase + P - K + 1) / S)` to `floor((phase + P) / S)`,
        the offsets of `phase_taps` (which lists them by increasing k, so decreasing d).
        Windows outside `[0, count)` are included: the caller frames them.
        """
        return [d for _, d in reversed(phase_taps(phase, self.kernel, self.stride, self.padding))]

    def offsets_of_all_phases(self) -> list[int]:
        """The union, increasing, of `phase_offsets` over the S phases."""
        return sorted({d for phase in range(self.stride) for d in self.phase_offsets(phase)})

    def halo(self) -> Pair:
        """(low, high): how far the windows `i + d` of the cells reach outside `[0, count)`.

        `low = max(0, -min d)`, `high = max(0, max (cells_a - 1 + d) - (count - 1))` over the
        non-empty phases a and their offsets d: the frame a tensor indexed by window needs
        so that every candidate window of every cell is in bounds.
        """
        reach = [
            (cells, d)
            for phase, cells in enumerate(self.phase_sizes()) if cells > 0
            for d in self.phase_offsets(phase)
        ]
        low = max([0] + [-d for _, d in reach])
        high = max([0] + [cells - 1 + d - (self.count - 1) for cells, d in reach])
        return low, high

    def interior(self) -> Pair:
        """[first, end) of the windows that lie entirely inside the unpadded input.

        Window o is inside when `o*S - P >= 0` and `o*S - P + K <= size`: from `ceil(P / S)`
        to `floor((size - K + P) / S)`, clipped to `[0, count)`, possibly empty
        (`first == end`).
        """
        first = min(self.count, -(-self.padding // self.stride))
        end = max(first, min(self.count, (self.size - self.kernel + self.padding) // self.stride + 1))
        return first, end


def peeled_windows(rows: PoolAxis, cols: PoolAxis) -> tuple[list[Rect], Rect | None]:
    """(border strips, interior): the count x count windows split by whether they overhang.

    The interior is the rectangle of windows entirely inside the unpadded input
    (`PoolAxis.interior` on both axes); the strips, in the order top, bottom, left, right
    and each non-empty, cover the other windows. Without an interior (empty on either
    axis) the one strip is the whole grid.
    """
    (top, bottom), (left, right) = rows.interior(), cols.interior()
    if top == bottom or left == right:
        return [((0, 0), (rows.count, cols.count))], None
    strips = [
        ((0, 0), (top, cols.count)),
        ((bottom, 0), (rows.count - bottom, cols.count)),
        ((top, 0), (bottom - top, left)),
        ((top, right), (bottom - top, cols.count - right)),
    ]
    interior = ((top, left), (bottom - top, right - left))
    return [(at, extent) for at, extent in strips if extent[0] > 0 and extent[1] > 0], interior


def frame_strips(shape: Pair, halo: tuple[Pair, Pair]) -> list[Rect]:
    """The non-empty strips, top, bottom, left, right, of the outer `halo` rows and columns of
    a `shape` grid: `((top, bottom), (left, right))` wide, disjoint, together the whole frame."""
    (top, bottom), (left, right) = halo
    h, w = shape
    strips = [
        ((0, 0), (top, w)),
        ((h - bottom, 0), (bottom, w)),
        ((top, 0), (h - top - bottom, left)),
        ((top, w - right), (h - top - bottom, right)),
    ]
    return [(at, extent) for at, extent in strips if extent[0] > 0 and extent[1] > 0]
