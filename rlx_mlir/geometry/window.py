"""The sliding window of convs, pools and im2col, and the output sizes it gives.

One value per spatial axis, so 1-D, 2-D and 3-D ops share every rule: PyTorch's output
size (floor or ceil mode), per-side padding, the transposed conv's output size and the
output_padding solved from two sizes, the adjoint padding of the input gradient.
"""

from __future__ import annotations

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
