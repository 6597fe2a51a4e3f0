"""PyTorch's whole forward conv and pool semantics, 2-D and 3-D, lowered by `convert-rlx-to-linalg`.

Per-side padding, ceil mode (where it changes the output size and where it does not),
max-pool dilation and NaN propagation, avg-pool divisor_override and count_include_pad
both ways, transposed-conv output_padding up to max(stride, dilation) - 1, groups in 3-D,
im2col3d and the adaptive pools (sizes that divide, that do not, output > input). Each
family is one module (compiled once), each configuration one function and one test case
whose id names it; a dynamic batch (`?`) runs with two batch sizes.

The oracle is PyTorch: the functional op itself where PyTorch can state the case. Per-side
padding PyTorch's ops cannot take, so there the oracle is the PyTorch op on an explicitly
padded input (`F.pad`; for the pools padded past the last window's reach and the output
cropped to the op's size; the avg-pool divisor counted by the same sum pool over a mask).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.geometry import Window
from oracle import assert_exact, assert_matches, tensor_type

DTYPES = {"f32": np.float32, "f64": np.float64}


def _list(values) -> str:
    return f"[{', '.join(str(v) for v in values)}]"


def _x(values) -> str:
    return "x".join(str(v) for v in values)


def _torch_pad(low, high) -> list[int]:
    """F.pad's order: the last axis first, (low, high) each."""
    return [v for i in reversed(range(len(low))) for v in (low[i], high[i])]


def _crop(y: torch.Tensor, out) -> torch.Tensor:
    return y[(slice(None), slice(None), *(slice(0, o) for o in out))]


@dataclass(frozen=True)
class Case:
    """One configuration: an RLX op in a function `@<id>`, its inputs and its PyTorch oracle."""

    spatial: tuple[int, ...] = (8, 8)
    c: int = 3
    n: int = 2
    dtype: str = "f32"
    dynamic: bool = False

    exact: ClassVar[bool] = False
    name: ClassVar[str] = ""

    def __post_init__(self):
        """Spatial properties left empty default to one value per axis (stride 1, padding 0, ...)."""
        for name, value in (("stride", 1), ("padding", 0), ("dilation", 1), ("output_padding", 0)):
            if getattr(self, name, None) == ():
                object.__setattr__(self, name, (value,) * self.rank)

    def label(self) -> str: ...
    def attrs(self) -> str: ...
    def input_shapes(self, n: int) -> list[tuple[int, ...]]: ...
    def result_shape(self, n: int) -> tuple[int, ...]: ...
    def oracle(self, *inputs: torch.Tensor) -> torch.Tensor: ...

    @property
    def rank(self) -> int:
        return len(self.spatial)

    @property
    def op_name(self) -> str:
        return self.name.format(self.rank)

    def __str__(self) -> str:
        return f"{self.op_name.removeprefix('rlx.')}_{self.label()}_n{self.n}{'dyn' if self.dynamic else ''}_{self.dtype}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]

    def batched(self, index: int) -> bool:
        return index == 0

    def function(self) -> str:
        shapes = self.input_shapes(self.n)
        types = [tensor_type(s, self.np_dtype, self.dynamic and self.batched(i)) for i, s in enumerate(shapes)]
        result = tensor_type(self.result_shape(self.n), self.np_dtype, self.dynamic)
        args = [f"%a{i}" for i in range(len(shapes))]
        params = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
        return (
            f"func.func @{self.symbol}({params}) -> {result} {{\n"
            f"  %y = {self.op_name} {', '.join(args)}{self.attrs()} : ({', '.join(types)}) -> {result}\n"
            f"  return %y : {result}\n}}\n"
        )

    def batches(self) -> list[int]:
        return [self.n, self.n + 2] if self.dynamic else [self.n]

    def inputs(self, n: int, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(s).astype(self.np_dtype) for s in self.input_shapes(n)]

    def check(self, module) -> None:
        for n in self.batches():
            inputs = self.inputs(n)
            got = module[self.symbol](*inputs)
            assert got.shape == self.result_shape(n)
            if self.exact:
                assert_exact(got, self.oracle(*(torch.from_numpy(a) for a in inputs)), dtype=self.np_dtype)
            else:
                assert_matches(got, self.oracle, inputs, label=str(self))


# --------------------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvCase(Case):
    f: int = 4
    kernel: tuple[int, ...] = (3, 3)
    stride: tuple[int, ...] = ()
    padding: tuple[int, ...] = ()  # r values, or 2r (low then high)
    dilation: tuple[int, ...] = ()
    groups: int = 1

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, self.padding, self.dilation)

    def label(self) -> str:
        return (
            f"c{self.c}_{_x(self.spatial)}_f{self.f}_k{_x(self.kernel)}_s{_x(self.stride)}"
            f"_p{_x(self.padding)}_d{_x(self.dilation)}_g{self.groups}"
        )

    def attrs(self) -> str:
        return (
            f" stride {_list(self.stride)} padding {_list(self.padding)}"
            f" dilation {_list(self.dilation)} groups {self.groups}"
        )


@dataclass(frozen=True)
class Conv(ConvCase):
    name: ClassVar[str] = "rlx.conv{}d"

    def input_shapes(self, n):
        return [(n, self.c, *self.spatial), (self.f, self.c // self.groups, *self.kernel)]

    def result_shape(self, n):
        return (n, self.f, *self.window.output_size(self.spatial))

    def oracle(self, x, w):
        conv = {2: F.conv2d, 3: F.conv3d}[self.rank]
        window = self.window
        if window.is_symmetric:
            return conv(x, w, stride=self.stride, padding=window.low, dilation=self.dilation, groups=self.groups)
        xp = F.pad(x, _torch_pad(window.low, window.high))
        return conv(xp, w, stride=self.stride, dilation=self.dilation, groups=self.groups)


CONV = [
    Conv(padding=(0, 1, 1, 0)),  # per side
    Conv(spatial=(7, 9), kernel=(2, 3), stride=(2, 1), padding=(1, 0, 0, 2), dilation=(2, 1)),
    Conv(c=4, f=6, groups=2, spatial=(6, 7), kernel=(2, 2), padding=(0, 0, 1, 1)),  # "same" for an even kernel
    Conv(n=1, dynamic=True, spatial=(9, 8), stride=(3, 3), padding=(2, 0, 1, 1)),  # stride > kernel reach
    Conv(dtype="f64", c=4, f=4, groups=4, padding=(1, 2, 1, 0)),  # depthwise
    # Channels past one 16-channel step and filters past one 8-filter block, neither a
    # multiple (the schedule pads both with zeros): wide rows, and narrow rows (widened).
    Conv(c=24, f=12, spatial=(16, 16), padding=(1, 1)),
    Conv(n=3, dynamic=True, c=40, f=20, spatial=(7, 7), padding=(1, 1)),
    Conv(dtype="f64", c=17, f=9, spatial=(9, 20), kernel=(3, 1), padding=(1, 0)),
    # 3-D
    Conv(spatial=(5, 6, 7), kernel=(3, 3, 3), padding=(1, 1, 1)),
    Conv(spatial=(6, 5, 7), kernel=(2, 3, 2), stride=(2, 1, 3), padding=(1, 0, 1), dilation=(2, 1, 2)),
    Conv(c=4, f=6, groups=2, spatial=(4, 6, 5), kernel=(3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 1, 0, 1, 2)),
    Conv(c=4, f=8, groups=4, spatial=(5, 5, 5), kernel=(3, 3, 3), padding=(1, 1, 1)),  # depthwise, multiplier 2
    Conv(n=1, dynamic=True, c=2, f=3, spatial=(4, 5, 6), kernel=(4, 5, 6)),  # kernel = input
    Conv(dtype="f64", dynamic=True, c=4, f=4, groups=2, spatial=(5, 4, 6), kernel=(2, 2, 3), stride=(2, 2, 2), padding=(0, 1, 1, 1, 0, 1)),
]


@dataclass(frozen=True)
class ConvTranspose(ConvCase):
    name: ClassVar[str] = "rlx.conv_transpose{}d"
    output_padding: tuple[int, ...] = ()

    def label(self) -> str:
        return f"{super().label()}_op{_x(self.output_padding)}"

    def attrs(self) -> str:
        return (
            f" stride {_list(self.stride)} padding {_list(self.padding)} dilation {_list(self.dilation)}"
            f" output_padding {_list(self.output_padding)} groups {self.groups}"
        )

    def input_shapes(self, n):
        return [(n, self.c, *self.spatial), (self.c, self.f // self.groups, *self.kernel)]

    def result_shape(self, n):
        return (n, self.f, *self.window.transpose_output_size(self.spatial, self.output_padding))

    def oracle(self, x, w):
        conv = {2: F.conv_transpose2d, 3: F.conv_transpose3d}[self.rank]
        window = self.window
        if window.is_symmetric:
            return conv(
                x, w, stride=self.stride, padding=window.low, output_padding=self.output_padding,
                groups=self.groups, dilation=self.dilation,
            )
        # Per-side padding crops each side of the unpadded transposed conv.
        full = conv(x, w, stride=self.stride, output_padding=self.output_padding, groups=self.groups, dilation=self.dilation)
        return full[(slice(None), slice(None), *(slice(lo, full.shape[2 + i] - hi) for i, (lo, hi) in enumerate(zip(window.low, window.high))))]


CONV_TRANSPOSE = [
    ConvTranspose(spatial=(4, 5), stride=(2, 2), padding=(0, 1, 1, 2), output_padding=(1, 0)),
    # output_padding >= stride, legal because dilation is larger.
    ConvTranspose(spatial=(3, 4), kernel=(2, 3), stride=(3, 2), dilation=(4, 4), padding=(1, 1), output_padding=(2, 3)),
    ConvTranspose(c=4, f=6, groups=2, spatial=(4, 4), stride=(2, 3), padding=(2, 0, 1, 1), output_padding=(1, 2)),
    ConvTranspose(n=1, dynamic=True, spatial=(4, 5), kernel=(2, 2), stride=(3, 3), padding=(2, 2), output_padding=(1, 2)),
    # 3-D
    ConvTranspose(spatial=(3, 4, 3), kernel=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), output_padding=(1, 0, 1)),
    ConvTranspose(c=4, f=6, groups=2, spatial=(3, 3, 4), kernel=(2, 3, 2), stride=(1, 2, 3), dilation=(3, 1, 1), padding=(0, 1, 2, 1, 0, 0), output_padding=(2, 1, 0)),
    ConvTranspose(c=4, f=4, groups=4, spatial=(3, 4, 4), kernel=(3, 3, 3), padding=(1, 1, 1)),  # depthwise
    ConvTranspose(dtype="f64", dynamic=True, spatial=(2, 3, 4), kernel=(2, 2, 3), stride=(2, 1, 2), dilation=(1, 3, 1), padding=(1, 0, 1), output_padding=(1, 2, 0)),
]


# --------------------------------------------------------------------------------------
# Pools
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolCase(Case):
    kernel: tuple[int, ...] = (3, 3)
    stride: tuple[int, ...] = ()
    padding: tuple[int, ...] = ()
    ceil_mode: bool = False

    def window(self, dilation=None) -> Window:
        return Window.of(self.kernel, self.stride, self.padding, dilation, self.ceil_mode)

    def geometry_label(self) -> str:
        return f"c{self.c}_{_x(self.spatial)}_k{_x(self.kernel)}_s{_x(self.stride)}_p{_x(self.padding)}"

    def input_shapes(self, n):
        return [(n, self.c, *self.spatial)]

    def _explicitly_padded(self, x, low, high, fill: float) -> torch.Tensor:
        """x padded by `low`, and by `high` and then past the last window's reach (ceil mode
        may run past `high`), with `fill`."""
        window = self.window()
        past = tuple(h + s + e for h, s, e in zip(high, window.stride, window.extent))
        return F.pad(x, _torch_pad(low, past), value=fill)


@dataclass(frozen=True)
class MaxPool(PoolCase):
    name: ClassVar[str] = "rlx.max_pool{}d"
    exact: ClassVar[bool] = True
    dilation: tuple[int, ...] = ()
    nan: bool = False

    def label(self) -> str:
        return f"{self.geometry_label()}_d{_x(self.dilation)}{'_ceil' if self.ceil_mode else ''}{'_nan' if self.nan else ''}"

    def attrs(self) -> str:
        return (
            f" kernel_size {_list(self.kernel)} stride {_list(self.stride)} padding {_list(self.padding)}"
            f" dilation {_list(self.dilation)} ceil_mode {'true' if self.ceil_mode else 'false'}"
        )

    def result_shape(self, n):
        return (n, self.c, *self.window(self.dilation).output_size(self.spatial))

    def inputs(self, n, seed=0):
        # Mostly negative: a window whose real cells are all below 0 shows a zero pad.
        (x,) = (a - 2 for a in super().inputs(n, seed))
        if self.nan:
            x.reshape(-1)[:: 7] = np.nan
        return [x]

    def oracle(self, x):
        pool = {2: F.max_pool2d, 3: F.max_pool3d}[self.rank]
        window = self.window(self.dilation)
        if window.is_symmetric:
            return pool(x, self.kernel, self.stride, window.low, self.dilation, ceil_mode=self.ceil_mode)
        xp = F.pad(x, _torch_pad(window.low, tuple(h + s + e for h, s, e in zip(window.high, self.stride, window.extent))), value=float("-inf"))
        return _crop(pool(xp, self.kernel, self.stride, 0, self.dilation), self.result_shape(x.shape[0])[2:])


MAX_POOL = [
    MaxPool(spatial=(8, 8), kernel=(3, 3), stride=(2, 2), ceil_mode=True),  # ceil changes 3 -> 4
    MaxPool(spatial=(9, 9), kernel=(3, 3), stride=(2, 2), ceil_mode=True),  # ceil changes nothing
    MaxPool(spatial=(7, 8), kernel=(3, 2), stride=(2, 2), padding=(1, 1), ceil_mode=True),  # ceil changes nothing
    # Width 7 + 2 - 2 gives ceil 5 windows, but the 5th starts at 8 >= 7 + 1: dropped (4).
    MaxPool(spatial=(5, 7), kernel=(2, 2), stride=(2, 2), padding=(1, 1), ceil_mode=True),
    MaxPool(spatial=(9, 10), kernel=(3, 3), stride=(1, 2), dilation=(2, 3), padding=(1, 1)),
    MaxPool(spatial=(9, 8), kernel=(2, 3), stride=(3, 2), dilation=(2, 1), padding=(1, 0), ceil_mode=True),
    MaxPool(spatial=(8, 7), kernel=(3, 3), stride=(2, 2), padding=(0, 1, 1, 0)),  # per side
    MaxPool(spatial=(8, 9), kernel=(4, 3), stride=(2, 2), padding=(2, 0, 1, 1), ceil_mode=True),
    MaxPool(spatial=(7, 7), kernel=(2, 2), stride=(3, 3)),  # stride > kernel
    MaxPool(spatial=(5, 6), kernel=(5, 6), stride=(1, 1)),  # kernel = input
    MaxPool(spatial=(8, 8), kernel=(3, 3), stride=(2, 2), padding=(1, 1), nan=True),
    MaxPool(n=1, dynamic=True, spatial=(7, 9), kernel=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), ceil_mode=True),
    MaxPool(dtype="f64", spatial=(10, 7), kernel=(3, 2), stride=(3, 2), dilation=(1, 2), ceil_mode=True),
    # 3-D
    MaxPool(spatial=(5, 8, 7), kernel=(2, 3, 3), stride=(2, 2, 2), padding=(0, 1, 1), dilation=(1, 2, 2), ceil_mode=True),
    MaxPool(spatial=(6, 6, 6), kernel=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), dilation=(1, 1, 1)),
    MaxPool(spatial=(6, 5, 7), kernel=(2, 2, 3), stride=(2, 2, 2), padding=(1, 0, 1, 0, 1, 0), ceil_mode=True),
    MaxPool(spatial=(4, 5, 6), kernel=(2, 2, 2), stride=(3, 3, 3), dilation=(1, 1, 1), nan=True),
    MaxPool(n=1, dynamic=True, spatial=(3, 4, 5), kernel=(3, 4, 5), stride=(1, 1, 1), dilation=(1, 1, 1)),
    MaxPool(dtype="f64", dynamic=True, spatial=(5, 7, 6), kernel=(3, 2, 2), stride=(2, 2, 1), padding=(1, 1, 0), dilation=(1, 2, 1), ceil_mode=True),
]


@dataclass(frozen=True)
class AvgPool(PoolCase):
    name: ClassVar[str] = "rlx.avg_pool{}d"
    count_include_pad: bool = True
    divisor_override: int = 0

    def label(self) -> str:
        divisor = f"_div{self.divisor_override}" if self.divisor_override else ""
        return (
            f"{self.geometry_label()}{'_ceil' if self.ceil_mode else ''}_"
            f"{'incl' if self.count_include_pad else 'excl'}{divisor}"
        )

    def attrs(self) -> str:
        divisor = f" divisor_override {self.divisor_override}" if self.divisor_override else ""
        return (
            f" kernel_size {_list(self.kernel)} stride {_list(self.stride)} padding {_list(self.padding)}"
            f" ceil_mode {'true' if self.ceil_mode else 'false'}"
            f" count_include_pad {'true' if self.count_include_pad else 'false'}{divisor}"
        )

    def result_shape(self, n):
        return (n, self.c, *self.window().output_size(self.spatial))

    def oracle(self, x):
        pool = {2: F.avg_pool2d, 3: F.avg_pool3d}[self.rank]
        window = self.window()
        if window.is_symmetric:
            return pool(
                x, self.kernel, self.stride, window.low, ceil_mode=self.ceil_mode,
                count_include_pad=self.count_include_pad, divisor_override=self.divisor_override or None,
            )
        # Per side: the window sums of the zero-padded input, over the count of the cells
        # that PyTorch's rule counts (the padded input, or the input), each a sum pool.
        out = self.result_shape(x.shape[0])[2:]

        def sum_pool(t):
            return _crop(pool(t, self.kernel, self.stride, 0, divisor_override=1), out)

        sums = sum_pool(self._explicitly_padded(x, window.low, window.high, 0.0))
        if self.divisor_override:
            return sums / self.divisor_override
        ones = torch.ones((1, 1, *self.spatial), dtype=x.dtype)
        if self.count_include_pad:  # the padded input's cells count, the cells past it do not
            zero = (0,) * self.rank
            counted = self._explicitly_padded(F.pad(ones, _torch_pad(window.low, window.high), value=1.0), zero, zero, 0.0)
        else:
            counted = self._explicitly_padded(ones, window.low, window.high, 0.0)
        return sums / sum_pool(counted)


AVG_POOL = [
    *(
        AvgPool(count_include_pad=incl, **geometry)
        for incl in (True, False)
        for geometry in (
            dict(spatial=(8, 8), kernel=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True),  # ceil changes 4 -> 5
            dict(spatial=(8, 8), kernel=(3, 3), stride=(2, 2), ceil_mode=True),  # ceil changes 3 -> 4
            dict(spatial=(7, 9), kernel=(3, 2), stride=(2, 2), padding=(1, 1), ceil_mode=True),
            dict(spatial=(9, 8), kernel=(2, 4), stride=(3, 3), padding=(1, 2), ceil_mode=True),
            dict(spatial=(8, 7), kernel=(3, 3), stride=(2, 2), padding=(0, 1, 1, 0)),  # per side
            dict(spatial=(8, 9), kernel=(4, 3), stride=(2, 2), padding=(2, 0, 1, 1), ceil_mode=True),
        )
    ),
    AvgPool(spatial=(7, 7), kernel=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, divisor_override=5),
    AvgPool(spatial=(7, 7), kernel=(2, 2), stride=(3, 3), divisor_override=3),  # stride > kernel
    AvgPool(spatial=(5, 6), kernel=(5, 6), stride=(1, 1)),  # kernel = input
    AvgPool(n=1, dynamic=True, spatial=(7, 9), kernel=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, count_include_pad=False),
    AvgPool(dtype="f64", spatial=(10, 7), kernel=(3, 2), stride=(3, 2), padding=(1, 1), ceil_mode=True),
    # 3-D
    *(
        AvgPool(count_include_pad=incl, **geometry)
        for incl in (True, False)
        for geometry in (
            dict(spatial=(5, 8, 7), kernel=(2, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), ceil_mode=True),
            dict(spatial=(6, 5, 7), kernel=(2, 2, 3), stride=(2, 2, 2), padding=(1, 0, 1, 0, 1, 0), ceil_mode=True),
        )
    ),
    AvgPool(spatial=(4, 6, 6), kernel=(2, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), divisor_override=7),
    AvgPool(n=1, dynamic=True, spatial=(3, 4, 5), kernel=(3, 4, 5), stride=(1, 1, 1)),
    AvgPool(dtype="f64", dynamic=True, spatial=(5, 7, 6), kernel=(3, 2, 2), stride=(2, 2, 1), padding=(1, 1, 0), ceil_mode=True, count_include_pad=False),
]


@dataclass(frozen=True)
class Adaptive(Case):
    out: tuple[int, ...] = (3, 3)
    kind: str = "avg"
    nan: bool = False

    def inputs(self, n, seed=0):
        (x,) = super().inputs(n, seed)
        if self.nan:
            x.reshape(-1)[::11] = np.nan
        return [x]

    @property
    def exact(self) -> bool:
        return self.kind == "max"  # a max moves data: exact

    @property
    def op_name(self) -> str:
        return f"rlx.adaptive_{self.kind}_pool{self.rank}d"

    def label(self) -> str:
        return f"c{self.c}_{_x(self.spatial)}_to_{_x(self.out)}{'_nan' if self.nan else ''}"

    def attrs(self) -> str:
        return ""

    def input_shapes(self, n):
        return [(n, self.c, *self.spatial)]

    def result_shape(self, n):
        return (n, self.c, *self.out)

    def oracle(self, x):
        pool = {
            ("avg", 2): F.adaptive_avg_pool2d, ("avg", 3): F.adaptive_avg_pool3d,
            ("max", 2): F.adaptive_max_pool2d, ("max", 3): F.adaptive_max_pool3d,
        }[self.kind, self.rank]
        return pool(x, self.out)


ADAPTIVE = [
    Adaptive(kind=kind, **geometry)
    for kind in ("avg", "max")
    for geometry in (
        dict(spatial=(7, 9), out=(3, 4)),  # do not divide
        dict(spatial=(8, 6), out=(4, 2)),  # divide: the plain pool
        dict(spatial=(8, 7), out=(4, 3)),  # one axis divides
        dict(spatial=(3, 5), out=(5, 7)),  # output > input
        dict(spatial=(7, 7), out=(1, 1)),  # global
        dict(n=1, dynamic=True, spatial=(10, 9), out=(4, 5)),
        dict(dtype="f64", spatial=(9, 7), out=(2, 3)),
        dict(spatial=(5, 7, 6), out=(2, 3, 4)),
        dict(spatial=(4, 6, 8), out=(2, 3, 4)),  # divide
        dict(spatial=(2, 3, 4), out=(3, 4, 5)),  # output > input
        dict(dtype="f64", dynamic=True, spatial=(6, 5, 7), out=(4, 2, 3)),
        dict(spatial=(7, 9), out=(3, 4), nan=True),  # a NaN in a window is its max (and poisons its mean)
        dict(spatial=(5, 7, 6), out=(2, 3, 4), nan=True),
    )
]


@dataclass(frozen=True)
class Im2col(PoolCase):
    exact: ClassVar[bool] = True
    dilation: tuple[int, ...] = ()

    @property
    def op_name(self) -> str:
        return "rlx.im2col" if self.rank == 2 else f"rlx.im2col{self.rank}d"

    def label(self) -> str:
        return f"{self.geometry_label()}_d{_x(self.dilation)}"

    def attrs(self) -> str:
        return (
            f" kernel_size {_list(self.kernel)} stride {_list(self.stride)} padding {_list(self.padding)}"
            f" dilation {_list(self.dilation)}"
        )

    def result_shape(self, n):
        out = self.window(self.dilation).output_size(self.spatial)
        return (n * math.prod(out), self.c * math.prod(self.kernel))

    def oracle(self, x):
        """Rows (n, *out), columns (c, *K): the padded input's windows by `Tensor.unfold`."""
        window = self.window(self.dilation)
        patches = F.pad(x, _torch_pad(window.low, window.high))
        for i in range(self.rank):
            patches = patches.unfold(2 + i, window.extent[i], self.stride[i])
        taps = (slice(None),) * (2 + self.rank) + tuple(slice(None, None, d) for d in self.dilation)
        patches = patches[taps]  # [N, C, *out, *K]
        r = self.rank
        order = (0, *range(2, 2 + r), 1, *range(2 + r, 2 + 2 * r))
        return patches.permute(order).reshape(self.result_shape(x.shape[0]))


IM2COL = [
    Im2col(spatial=(7, 8), kernel=(3, 2), stride=(2, 1), padding=(1, 0, 0, 1), dilation=(1, 2)),  # per side
    Im2col(spatial=(5, 6, 7), kernel=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), dilation=(2, 1, 1)),
    Im2col(spatial=(4, 5, 6), kernel=(3, 2, 2), stride=(2, 1, 3), padding=(0, 1, 1, 1, 0, 0)),
    Im2col(n=1, dynamic=True, spatial=(4, 4, 5), kernel=(2, 2, 2), stride=(2, 2, 2), padding=(1, 1, 1)),
    Im2col(dtype="f64", spatial=(3, 5, 4), kernel=(3, 3, 2), padding=(1, 1, 1), dilation=(1, 2, 1)),
]


# --------------------------------------------------------------------------------------
# Tests: one compiled module per family, one case per configuration
# --------------------------------------------------------------------------------------

MATRICES = {
    "conv": CONV,
    "conv_transpose": CONV_TRANSPOSE,
    "max_pool": MAX_POOL,
    "avg_pool": AVG_POOL,
    "adaptive": ADAPTIVE,
    "im2col": IM2COL,
}

_compiled: dict[str, object] = {}


@pytest.fixture
def module_of(compile_rlx):
    def get(family: str):
        if family not in _compiled:
            _compiled[family] = compile_rlx("\n".join(case.function() for case in MATRICES[family]))
        return _compiled[family]

    return get


CASES = [pytest.param(family, case, id=str(case)) for family, matrix in MATRICES.items() for case in matrix]


def test_matrix_ids_are_unique():
    ids = [str(case) for matrix in MATRICES.values() for case in matrix]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]


def test_ceil_mode_cases_cover_both_outcomes():
    """Some ceil-mode pools change the output size and some do not."""
    changed = set()
    for case in (*MAX_POOL, *AVG_POOL):
        if case.ceil_mode:
            floor = replace(case, ceil_mode=False)
            changed.add(case.result_shape(1) != floor.result_shape(1))
    assert changed == {True, False}


@pytest.mark.parametrize(("family", "case"), CASES)
def test_forward_semantics_match_pytorch(family, case, module_of):
    case.check(module_of(family))


# --------------------------------------------------------------------------------------
# IR size: the lowering emits the same ops whatever the tensor and kernel sizes
# --------------------------------------------------------------------------------------


def _lowered_op_names(text: str) -> list[str]:
    from rlx_mlir.ir import make_context, parse_module, verify_module
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass

    ctx = make_context()
    module = parse_module(ctx, text, "<ir-size>")
    ConvertRlxToLinalgPass().apply(ctx, module)
    verify_module(module)
    return [op.name for op in module.walk()]


SIZE_CASES = [
    (Adaptive(spatial=(7, 9), out=(3, 4), kind="avg"), Adaptive(spatial=(223, 225), out=(5, 7), kind="avg")),
    (Adaptive(spatial=(7, 9), out=(3, 4), kind="max"), Adaptive(spatial=(223, 225), out=(5, 7), kind="max")),
    (Adaptive(spatial=(5, 7, 6), out=(2, 3, 4), kind="max"), Adaptive(spatial=(55, 57, 61), out=(3, 4, 7), kind="max")),
    (
        MaxPool(spatial=(8, 8, 8), kernel=(3, 3, 3), stride=(2, 2, 2), dilation=(1, 1, 1), ceil_mode=True),
        MaxPool(spatial=(57, 57, 57), kernel=(28, 28, 28), stride=(2, 2, 2), dilation=(1, 1, 1), ceil_mode=True),
    ),
    (
        AvgPool(spatial=(8, 8), kernel=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, count_include_pad=False),
        AvgPool(spatial=(224, 224), kernel=(56, 56), stride=(2, 2), padding=(1, 1), ceil_mode=True, count_include_pad=False),
    ),
    (
        Conv(c=4, f=6, groups=2, spatial=(4, 6, 5), kernel=(3, 2, 3), padding=(1, 0, 1, 0, 1, 2)),
        Conv(c=4, f=6, groups=2, spatial=(64, 64, 64), kernel=(9, 9, 9), padding=(1, 0, 1, 0, 1, 2)),
    ),
    (
        ConvTranspose(spatial=(3, 4, 3), kernel=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), output_padding=(1, 0, 1)),
        ConvTranspose(spatial=(30, 40, 30), kernel=(9, 9, 9), stride=(2, 2, 2), padding=(1, 1, 1), output_padding=(1, 0, 1)),
    ),
]


@pytest.mark.parametrize(("small", "large"), SIZE_CASES, ids=lambda c: str(c).split("_n")[0])
def test_ir_size_does_not_depend_on_tensor_or_kernel_sizes(small, large):
    """The same ops, constants aside: the pass keeps one constant per value, so sizes that
    happen to coincide (7 + 3 - 1 = 9 beside a width 9) share one."""
    def ops(case):
        return [name for name in _lowered_op_names(case.function()) if name != "arith.constant"]

    small_ops, large_ops = ops(small), ops(large)
    assert not any(name.startswith("rlx.") for name in small_ops)
    assert small_ops == large_ops


def test_adaptive_pool_that_divides_is_the_plain_pool():
    """n % m == 0 on every axis: the pool with kernel = stride = n/m (the named op in 2-D)."""
    ops = _lowered_op_names(Adaptive(spatial=(8, 6), out=(4, 2), kind="max").function())
    assert "linalg.pooling_nchw_max" in ops and "tensor.extract" not in ops
