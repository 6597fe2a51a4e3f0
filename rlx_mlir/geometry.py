"""Conv and pool geometry: the one place that answers every shape question.

Verifiers, rewrite patterns, the IRDL generator and the tests all ask this module for
output sizes, adjoint paddings and solved output paddings, so a convention (PyTorch's
floor-division output size, NCHW, symmetric padding) is stated exactly once.

Everything here is plain integers: no xDSL, no MLIR. A `GeometryError` carries a
sentence that a verifier can put straight into its diagnostic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Pair = tuple[int, int]
SPATIAL_AXES = ("height", "width")


class GeometryError(ValueError):
    """A configuration that no convolution or pooling can have."""


def conv_output_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """PyTorch's `floor((in + 2p - d*(k-1) - 1) / s) + 1`.

    Python's `//` floors towards minus infinity, so an input smaller than the dilated
    kernel gives a size <= 0, which callers reject.
    """
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_transpose_output_size(
    size: int, kernel: int, stride: int, padding: int, dilation: int, output_padding: int
) -> int:
    """`(in - 1)*s - 2p + d*(k-1) + output_padding + 1`, the forward conv's left inverse."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def smallest_conv_input(out: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """The smallest input size that a forward conv maps to `out` outputs.

    The floor division means `stride` consecutive input sizes share one output size:
    `[smallest, smallest + stride - 1]`. The input gradient must accept all of them.
    """
    return (out - 1) * stride + dilation * (kernel - 1) + 1 - 2 * padding


@dataclass(frozen=True)
class Window2d:
    """The 2-D sliding-window configuration shared by convs, pools and im2col."""

    kernel: Pair
    stride: Pair
    padding: Pair
    dilation: Pair = (1, 1)

    def validate(self) -> None:
        """Reject the values no window can have (the length checks belong to the op)."""
        for name, values, low in (
            ("kernel_size", self.kernel, 1),
            ("stride", self.stride, 1),
            ("dilation", self.dilation, 1),
            ("padding", self.padding, 0),
        ):
            if any(v < low for v in values):
                bound = "positive" if low == 1 else "non-negative"
                raise GeometryError(f"expected {name} to be {bound}, got {list(values)}")

    def output_size(self, spatial: Pair) -> Pair:
        """The forward output size, or a GeometryError when a side has no window."""
        out = tuple(
            conv_output_size(spatial[i], self.kernel[i], self.stride[i], self.padding[i], self.dilation[i])
            for i in range(2)
        )
        for i, size in enumerate(out):
            if size < 1:
                extent = self.dilation[i] * (self.kernel[i] - 1) + 1
                raise GeometryError(
                    f"the {SPATIAL_AXES[i]} has no complete window: input {spatial[i]} "
                    f"padded by {self.padding[i]} on each side is smaller than the "
                    f"(dilated) kernel extent {extent}"
                )
        return out  # type: ignore[return-value]

    def transpose_output_size(self, spatial: Pair, output_padding: Pair) -> Pair:
        """The transposed conv's output size, or a GeometryError when it is not positive."""
        out = tuple(
            conv_transpose_output_size(
                spatial[i], self.kernel[i], self.stride[i], self.padding[i], self.dilation[i], output_padding[i]
            )
            for i in range(2)
        )
        for i, size in enumerate(out):
            if size < 1:
                raise GeometryError(f"the transposed convolution's output {SPATIAL_AXES[i]} would be {size}")
        return out  # type: ignore[return-value]

    def solved_output_padding(self, grad_spatial: Pair, input_spatial: Pair) -> Pair:
        """The output_padding that makes conv_transpose(dy) exactly `input_spatial` big.

        RLX's `max(0, in - base)`; here a value outside `[0, stride)` is an error instead of
        a silent clamp, because it means dy cannot have come from an input of that size.
        """
        solved = []
        for i in range(2):
            base = smallest_conv_input(
                grad_spatial[i], self.kernel[i], self.stride[i], self.padding[i], self.dilation[i]
            )
            extra = input_spatial[i] - base
            if not 0 <= extra < self.stride[i]:
                sizes = (
                    f"{base}" if self.stride[i] == 1 else f"{base}..{base + self.stride[i] - 1}"
                )
                raise GeometryError(
                    f"an input {SPATIAL_AXES[i]} of {input_spatial[i]} does not give "
                    f"{grad_spatial[i]} outputs; expected an input {SPATIAL_AXES[i]} of {sizes}"
                )
            solved.append(extra)
        return (solved[0], solved[1])

    def adjoint_padding(self) -> Pair:
        """Low padding of the stride-dilated dy in the input gradient: `d*(k-1) - p`.

        Negative where the forward padding exceeds the dilated kernel reach; the pattern
        slices instead of padding there.
        """
        return (
            self.dilation[0] * (self.kernel[0] - 1) - self.padding[0],
            self.dilation[1] * (self.kernel[1] - 1) - self.padding[1],
        )

    def validate_pool_padding(self) -> None:
        """PyTorch's pooling rule: padding at most half the kernel, so no window is all padding."""
        for i in range(2):
            if self.padding[i] > self.kernel[i] // 2:
                raise GeometryError(
                    f"expected padding to be at most half the kernel size, got padding "
                    f"{list(self.padding)} for kernel_size {list(self.kernel)}"
                )

    def windows_per_cell(self) -> Pair:
        """How many windows along each axis can contain one input cell: `ceil(k / s)`.

        The extent of the window loop of a gather over the windows that contain an input
        cell (the pool backward ops); pools have dilation 1.
        """
        return (
            -(-self.kernel[0] // self.stride[0]),
            -(-self.kernel[1] // self.stride[1]),
        )


# -- stride phases: which taps of which windows reach a cell ---------------------------------


def phase_taps(phase: int, kernel: int, stride: int, padding: int, dilation: int = 1) -> list[tuple[int, int]]:
    """The pairs (k, d), k increasing, by which every cell `i*S + phase` is tap `k` of window `i + d`.

    Window `o` reads the cells `o*S - P + k*D` for taps `0 <= k < K`, so cell `i*S + phase`
    is tap k of window `o = i + d` exactly when `phase + P - k*D = d*S`: the taps with
    `(phase + P - k*D) % S == 0`, with `d = (phase + P - k*D) / S`, the same for every i.
    A pool's windows (D = 1) and the adjoint of a conv's (dx gathering from dy) alike.
    """
    return [
        (k, (phase + padding - k * dilation) // stride)
        for k in range(kernel)
        if (phase + padding - k * dilation) % stride == 0
    ]


@dataclass(frozen=True)
class AxisPhase:
    """The dx rows `start, start + s, start + 2s, ...` (`count` of them) along one axis of a
    conv's input gradient.

    Row `i = s*q + start` receives the taps `k` with `(start + p - k*d) % s == 0`, which
    are `taps` (ascending, `step = s / gcd(s, d)` apart), each from dy row
    `o = q + e - t*d'` for the t-th tap, with `e = (start + p - taps[0]*d) / s` and
    `d' = d / gcd(s, d)` (`phase_taps`). Read in reverse tap order that is a stride-1
    correlation:

        dx[s*q + start] = sum_t dyw[q + t*d'] * w[taps[T-1-t]]

    of the dy window `dyw` = dy padded low by `low = (T-1)*d' - e` (cropped where
    negative), `count + (T-1)*d'` long.
    """

    start: int
    count: int
    taps: tuple[int, ...]
    dilation: int
    low: int

    @property
    def window(self) -> int:
        """Length of the dy window the phase reads."""
        return self.count + (len(self.taps) - 1) * self.dilation

    @staticmethod
    def split(size: int, kernel: int, stride: int, padding: int, dilation: int) -> list[AxisPhase]:
        """The phases of an axis of `size` dx rows; those no tap reaches are left out (their
        rows get no gradient)."""
        sub_dilation = dilation // math.gcd(stride, dilation)
        phases = []
        for start in range(min(stride, size)):
            reached = phase_taps(start, kernel, stride, padding, dilation)
            if not reached:
                continue
            (_, first_dy_row), *_ = reached
            phases.append(
                AxisPhase(
                    start=start,
                    count=-(-(size - start) // stride),
                    taps=tuple(k for k, _ in reached),
                    dilation=sub_dilation,
                    low=(len(reached) - 1) * sub_dilation - first_dy_row,
                )
            )
        return phases

    def high(self, out: int) -> int:
        """High padding of dy (negative: cropped) for this phase's window."""
        return self.window - self.low - out


# -- pool gradients: which windows reach which cells ----------------------------------------

Rect = tuple[Pair, Pair]
"""((row, col), (rows, cols)): a rectangle of a 2-D grid, by its origin and extent."""


def windows_tile_input(window: Window2d) -> bool:
    """Whether every input cell lies in at most one window, at offset `(h % KH, w % KW)`.

    True for stride == kernel without padding (the usual 2x2/2 pool); the rows and
    columns past the last window lie in none.
    """
    return window.stride == window.kernel and window.padding == (0, 0)


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
    def of(window: Window2d, input_spatial: Pair, output_spatial: Pair) -> tuple[PoolAxis, PoolAxis]:
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
