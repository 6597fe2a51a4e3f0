"""Conv and pool geometry: the one place that answers every shape question.

Verifiers, rewrite patterns, the IRDL generator and the tests all ask this module for
output sizes (floor or ceil mode), per-side paddings, adjoint paddings, solved output
paddings and adaptive windows, so a convention (PyTorch's output size, NC + spatial layout,
padding per side) is stated exactly once. A window has one value per spatial axis: 1-D,
2-D and 3-D ops share every rule.

Everything here is plain integers: no xDSL, no MLIR. A `GeometryError` carries a
sentence that a verifier can put straight into its diagnostic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Pair = tuple[int, int]
Sizes = tuple[int, ...]
"""One value per spatial axis, outermost first (PyTorch's order: depth, height, width)."""

AXIS_NAMES = {1: ("length",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def axis_names(rank: int) -> tuple[str, ...]:
    """How a diagnostic names each spatial axis of a rank-`rank` window."""
    return AXIS_NAMES.get(rank, tuple(f"spatial dimension {i}" for i in range(rank)))


class GeometryError(ValueError):
    """A configuration that no convolution or pooling can have."""


def conv_output_size(
    size: int, kernel: int, stride: int, padding: int, dilation: int, high: int | None = None, ceil_mode: bool = False
) -> int:
    """PyTorch's `floor((in + pl + ph - d*(k-1) - 1) / s) + 1` (`high` defaults to `padding`).

    In ceil mode the division rounds up, and a last window that would start at or past the
    input's end plus the low padding is dropped (PyTorch's `pooling_output_shape`), so every
    window starts inside the input or its low padding. Python's `//` floors towards minus
    infinity, so an input smaller than the dilated kernel gives a size <= 0, which callers
    reject.
    """
    high = padding if high is None else high
    reach = size + padding + high - dilation * (kernel - 1) - 1
    if not ceil_mode:
        return reach // stride + 1
    out = -(-reach // stride) + 1
    if (out - 1) * stride >= size + padding:
        out -= 1
    return out


def conv_transpose_output_size(
    size: int, kernel: int, stride: int, padding: int, dilation: int, output_padding: int, high: int | None = None
) -> int:
    """`(in - 1)*s - pl - ph + d*(k-1) + output_padding + 1`, the forward conv's left inverse."""
    high = padding if high is None else high
    return (size - 1) * stride - padding - high + dilation * (kernel - 1) + output_padding + 1


def smallest_conv_input(out: int, kernel: int, stride: int, padding: int, dilation: int, high: int | None = None) -> int:
    """The smallest input size that a forward conv maps to `out` outputs.

    The floor division means `stride` consecutive input sizes share one output size:
    `[smallest, smallest + stride - 1]`. The input gradient must accept all of them.
    """
    high = padding if high is None else high
    return (out - 1) * stride + dilation * (kernel - 1) + 1 - padding - high


def split_padding(padding: Sequence[int], rank: int) -> tuple[Sizes, Sizes]:
    """(low, high) from an op's `padding`: `rank` values (both sides alike) or `2 * rank`
    values `[low_0, .., low_{r-1}, high_0, .., high_{r-1}]`, as `tensor.pad` states them."""
    values = tuple(padding)
    if len(values) == rank:
        return values, values
    if len(values) == 2 * rank:
        return values[:rank], values[rank:]
    raise GeometryError(
        f"expected padding to have {rank} values (each side alike) or {2 * rank} (low then high per axis), "
        f"got {len(values)}"
    )


def adaptive_window(index: int, size: int, out: int) -> tuple[int, int]:
    """[start, end) of output cell `index` of an adaptive pool from `size` cells to `out`:
    PyTorch's `[floor(index * size / out), ceil((index + 1) * size / out))`."""
    return (index * size) // out, -(-((index + 1) * size) // out)


def adaptive_kernel(size: int, out: int) -> int:
    """The largest adaptive window from `size` cells to `out` (the extent of a loop over
    any window's cells): `ceil(size / out)`, plus one where the windows do not divide evenly."""
    return max(end - start for start, end in (adaptive_window(i, size, out) for i in range(out)))


def adaptive_windows_of_cell(cell: int, size: int, out: int) -> tuple[int, int]:
    """[first, end) of the adaptive windows that contain input cell `cell`: a contiguous range.

    Window o contains the cell when `floor(o*size/out) <= cell < ceil((o+1)*size/out)`,
    that is `o >= floor(cell*out/size)` and `o < ceil((cell+1)*out/size)`.
    """
    return (cell * out) // size, -(-((cell + 1) * out) // size)


def adaptive_windows_per_cell(size: int, out: int) -> int:
    """The most adaptive windows (from `size` cells to `out`) that one input cell lies in:
    the extent of a loop over a cell's windows (more than one where they overlap, or out > size)."""
    return max(end - first for first, end in (adaptive_windows_of_cell(i, size, out) for i in range(size)))


@dataclass(frozen=True)
class Window:
    """The sliding window shared by convs, pools and im2col, one value per spatial axis.

    `low` and `high` are the padding before and after each axis. Build from an op's
    properties with `Window.of`, which accepts PyTorch's symmetric padding as the short form.
    """

    kernel: Sizes
    stride: Sizes
    low: Sizes
    high: Sizes
    dilation: Sizes
    ceil_mode: bool = False

    @staticmethod
    def of(
        kernel: Sequence[int],
        stride: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int] | None = None,
        ceil_mode: bool = False,
    ) -> Window:
        """A window from an op's properties; every length is checked against the kernel's."""
        rank = len(kernel)
        for name, values in (("stride", stride), ("dilation", dilation)):
            if values is not None and len(values) != rank:
                raise GeometryError(
                    f"expected {name} to have {rank} values (one per spatial axis), got {len(values)}"
                )
        low, high = split_padding(padding, rank)
        return Window(
            kernel=tuple(kernel),
            stride=tuple(stride),
            low=low,
            high=high,
            dilation=tuple(dilation) if dilation is not None else (1,) * rank,
            ceil_mode=ceil_mode,
        )

    @property
    def rank(self) -> int:
        return len(self.kernel)

    @property
    def axes(self) -> range:
        return range(self.rank)

    @property
    def is_symmetric(self) -> bool:
        return self.low == self.high

    @property
    def padding(self) -> Sizes:
        """The padding of each side, for callers that handle only symmetric padding.

        Asymmetric padding reaching such a caller is a bug of ours (the op's pattern should
        have read `low` and `high`), hence an internal error, never a user's.
        """
        if not self.is_symmetric:
            raise AssertionError(f"symmetric padding expected here, got low {list(self.low)} high {list(self.high)}")
        return self.low

    @property
    def extent(self) -> Sizes:
        """The dilated kernel's reach along each axis: `d*(k-1) + 1`."""
        return tuple(self.dilation[i] * (self.kernel[i] - 1) + 1 for i in self.axes)

    def validate(self) -> None:
        """Reject the values no window can have (the length checks belong to `of`)."""
        for name, values, low in (
            ("kernel_size", self.kernel, 1),
            ("stride", self.stride, 1),
            ("dilation", self.dilation, 1),
            ("padding", self.low + self.high, 0),
        ):
            if any(v < low for v in values):
                bound = "positive" if low == 1 else "non-negative"
                shown = values if name != "padding" or not self.is_symmetric else self.low
                raise GeometryError(f"expected {name} to be {bound}, got {list(shown)}")

    def _axis_output(self, size: int, i: int) -> int:
        return conv_output_size(
            size, self.kernel[i], self.stride[i], self.low[i], self.dilation[i], self.high[i], self.ceil_mode
        )

    def output_size(self, spatial: Sequence[int]) -> Sizes:
        """The forward output size, or a GeometryError when an axis has no window."""
        self._expect_rank(spatial, "input")
        out = tuple(self._axis_output(spatial[i], i) for i in self.axes)
        for i, size in enumerate(out):
            if size < 1:
                raise GeometryError(
                    f"the {axis_names(self.rank)[i]} has no complete window: input {spatial[i]} "
                    f"padded by {self._padding_words(i)} is smaller than the "
                    f"(dilated) kernel extent {self.extent[i]}"
                )
        return out

    def _padding_words(self, i: int) -> str:
        if self.low[i] == self.high[i]:
            return f"{self.low[i]} on each side"
        return f"{self.low[i]} low and {self.high[i]} high"

    def _expect_rank(self, spatial: Sequence[int], what: str) -> None:
        if len(spatial) != self.rank:
            raise GeometryError(f"expected the {what} to have {self.rank} spatial dimensions, got {len(spatial)}")

    def reach_high(self, spatial: Sequence[int]) -> Sizes:
        """How far past the input's end the last window reads, per axis (the high padding a
        lowering must materialise; negative where the windows stop short of the end).

        In floor mode it is at most `high`; in ceil mode the last window may run past it.
        """
        out = self.output_size(spatial)
        return tuple(
            (out[i] - 1) * self.stride[i] + self.extent[i] - self.low[i] - spatial[i] for i in self.axes
        )

    def transpose_output_size(self, spatial: Sequence[int], output_padding: Sequence[int]) -> Sizes:
        """The transposed conv's output size, or a GeometryError when it is not positive."""
        self._expect_rank(spatial, "input")
        out = tuple(
            conv_transpose_output_size(
                spatial[i], self.kernel[i], self.stride[i], self.low[i], self.dilation[i], output_padding[i],
                self.high[i],
            )
            for i in self.axes
        )
        for i, size in enumerate(out):
            if size < 1:
                raise GeometryError(f"the transposed convolution's output {axis_names(self.rank)[i]} would be {size}")
        return out

    def validate_output_padding(self, output_padding: Sequence[int]) -> None:
        """PyTorch's rule for a transposed conv: `0 <= output_padding < max(stride, dilation)`."""
        if len(output_padding) != self.rank:
            raise GeometryError(
                f"expected output_padding to have {self.rank} values (one per spatial axis), got {len(output_padding)}"
            )
        for i in self.axes:
            if not 0 <= output_padding[i] < max(self.stride[i], self.dilation[i]):
                raise GeometryError(
                    f"expected output_padding to be non-negative and smaller than stride or dilation, "
                    f"got {list(output_padding)} with stride {list(self.stride)} and dilation {list(self.dilation)}"
                )

    def solved_output_padding(self, grad_spatial: Sequence[int], input_spatial: Sequence[int]) -> Sizes:
        """The output_padding that makes conv_transpose(dy) exactly `input_spatial` big.

        RLX's `max(0, in - base)`; here a value outside `[0, stride)` is an error instead of
        a silent clamp, because it means dy cannot have come from an input of that size.
        """
        self._expect_rank(input_spatial, "input")
        solved = []
        for i in self.axes:
            base = smallest_conv_input(
                grad_spatial[i], self.kernel[i], self.stride[i], self.low[i], self.dilation[i], self.high[i]
            )
            extra = input_spatial[i] - base
            if not 0 <= extra < self.stride[i]:
                sizes = f"{base}" if self.stride[i] == 1 else f"{base}..{base + self.stride[i] - 1}"
                name = axis_names(self.rank)[i]
                raise GeometryError(
                    f"an input {name} of {input_spatial[i]} does not give "
                    f"{grad_spatial[i]} outputs; expected an input {name} of {sizes}"
                )
            solved.append(extra)
        return tuple(solved)

    def solved_transpose_output_padding(self, input_spatial: Sequence[int], output_spatial: Sequence[int]) -> Sizes:
        """The output_padding by which a transposed conv maps `input_spatial` to `output_spatial`,
        or a GeometryError naming the sizes it could have produced instead."""
        self._expect_rank(input_spatial, "input")
        solved = []
        for i in self.axes:
            base = conv_transpose_output_size(
                input_spatial[i], self.kernel[i], self.stride[i], self.low[i], self.dilation[i], 0, self.high[i]
            )
            extra = output_spatial[i] - base
            bound = max(self.stride[i], self.dilation[i])
            if not 0 <= extra < bound:
                sizes = f"{base}" if bound == 1 else f"{base}..{base + bound - 1}"
                name = axis_names(self.rank)[i]
                raise GeometryError(
                    f"a transposed convolution of input {name} {input_spatial[i]} gives an output {name} of "
                    f"{sizes}, got {output_spatial[i]}"
                )
            solved.append(extra)
        return tuple(solved)

    def adjoint_padding(self) -> Sizes:
        """Low padding of the stride-dilated dy in the input gradient: `d*(k-1) - pl`.

        Negative where the forward padding exceeds the dilated kernel reach; the pattern
        slices instead of padding there.
        """
        return tuple(self.dilation[i] * (self.kernel[i] - 1) - self.low[i] for i in self.axes)

    def validate_pool_padding(self) -> None:
        """PyTorch's pooling rule: each side's padding at most half the kernel, so no window is all padding."""
        for i in self.axes:
            if max(self.low[i], self.high[i]) > self.kernel[i] // 2:
                shown = list(self.low) if self.is_symmetric else list(self.low + self.high)
                raise GeometryError(
                    f"expected padding to be at most half the kernel size, got padding "
                    f"{shown} for kernel_size {list(self.kernel)}"
                )

    def windows_per_cell(self) -> Sizes:
        """How many windows along each axis can contain one input cell: `ceil(extent / s)`.

        The extent of the window loop of a gather over the windows that contain an input
        cell (the pool backward ops).
        """
        return tuple(-(-self.extent[i] // self.stride[i]) for i in self.axes)


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


@dataclass(frozen=True)
class StridePhase:
    """The taps of one axis of a strided conv's kernel that read input rows of one residue.

    Output row `o` reads padded input row `s*o + d*k` for tap `k`. Writing `d*k = s*q + r`
    (`r = d*k mod s`), that row is `s*(o + q) + r`: the taps of residue `r` read only the
    rows `r, r + s, r + 2s, ...`, i.e. the phase `x_r[i] = xpad[s*i + r]`, at `o + q`. They
    are `taps` (ascending, `s / gcd(s, d)` apart), at positions `offset, offset + d', ...`
    with `d' = d / gcd(s, d)`, so one phase is the stride-1 correlation

        y[o] += sum_t x_r[offset + o + t*d'] * w[taps[t]]

    over `rows(out)` rows of `x_r` from row `offset`.
    """

    residue: int
    taps: tuple[int, ...]
    offset: int
    dilation: int

    @staticmethod
    def split(kernel: int, stride: int, dilation: int) -> list[StridePhase]:
        """The residues some tap reads (every tap in exactly one), with their taps."""
        sub_dilation = dilation // math.gcd(stride, dilation)
        phases = []
        for residue in range(stride):
            taps = tuple(k for k in range(kernel) if dilation * k % stride == residue)
            if taps:
                phases.append(StridePhase(residue, taps, dilation * taps[0] // stride, sub_dilation))
        return phases

    @property
    def tap_step(self) -> int:
        """Kernel index between consecutive taps: `s / gcd(s, d)`."""
        return self.taps[1] - self.taps[0] if len(self.taps) > 1 else 1

    def rows(self, out: int) -> int:
        """Rows of the phase that `out` output rows read."""
        return out + (len(self.taps) - 1) * self.dilation

    def first_row(self, stride: int) -> int:
        """The padded input row of the phase's first row read: `s*offset + r`."""
        return stride * self.offset + self.residue


# -- pool gradients: which windows reach which cells ----------------------------------------

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
