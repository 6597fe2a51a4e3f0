"""`rlx.fake_quantize` and `rlx.ste_backward`, lowered and run natively, against PyTorch (CPU).

Oracles:
- fake_quantize: `torch.fake_quantize_per_tensor_affine` on the same inputs in the same
  dtype, compared bit for bit (NaN where NaN): the op reproduces ATen's kernel, its f32
  scale and inverse scale, its ties to even (x an odd multiple of scale / 2) and, for an
  f64 x, its f32 product; NaN and +-inf inputs included;
- ste_backward `clipped`: PyTorch's gradient of that op (`torch.autograd.grad`), exact;
- `identity`, `hard_tanh`: the formula in PyTorch (dy, and dy where -1 <= x <= 1), exact;
- fake_quantize_per_channel and its backward: `torch.fake_quantize_per_channel_affine`
  (f32 scales, i32 zero points) and its autograd gradient, bit for bit, NaN and +-inf
  included (ATen's per-channel kernel sends them to quant_min's level);
- `tanh`: `dy * (1 - tanh(x)^2)` in float64 on the inputs upcast, within
  `oracle.assert_within_bound` (k = 16) with A = |dy| (1 + tanh(x)^2): the rounding of
  tanh and of 1 - t^2 is relative to the terms 1 and t^2, not to their difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from oracle import assert_exact, assert_within_bound, tensor_type

DTYPES = {"f32": np.float32, "f64": np.float64}
GRIDS = {
    "int8": (0.1, 3, -128, 127),
    "uint8": (0.25, 0, 0, 255),
    "int4": (0.0173, -5, -8, 7),
}
"""(scale, zero_point, quant_min, quant_max): an int8 grid with an inexact scale, a uint8
one whose half steps are exact (ties), a narrow one that clips most of a standard normal."""


class _Named:
    """A case's function name (its id made an identifier) and its NumPy dtype."""

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]


@dataclass(frozen=True)
class Case(_Named):
    op: str  # "fake_quantize", or an STE kind
    grid: str = "int8"
    dtype: str = "f32"
    shape: tuple[int, ...] = (4, 33)
    dynamic: bool = False

    def __str__(self) -> str:
        name = self.op if self.op == "fake_quantize" else f"ste_{self.op}"
        dims = "x".join(map(str, self.shape))
        return f"{name}_{self.grid}_{dims}{'dyn' if self.dynamic else ''}_{self.dtype}"

    def grid_text(self) -> str:
        scale, zero, low, high = GRIDS[self.grid]
        return f"scale {scale!r} zero_point {zero} quant_min {low} quant_max {high}"

    def function(self) -> str:
        t = tensor_type(self.shape, self.np_dtype, self.dynamic)
        if self.op == "fake_quantize":
            return (
                f"func.func @{self.symbol}(%x: {t}) -> {t} {{\n"
                f"  %y = rlx.fake_quantize %x {self.grid_text()} : ({t}) -> {t}\n  return %y : {t}\n}}\n"
            )
        return (
            f"func.func @{self.symbol}(%dy: {t}, %x: {t}) -> {t} {{\n"
            f'  %dx = rlx.ste_backward %dy, %x kind "{self.op}" {self.grid_text()} : ({t}, {t}) -> {t}\n'
            f"  return %dx : {t}\n}}\n"
        )

    def x(self, batch: int) -> np.ndarray:
        """3 sigma of a standard normal (past every grid's range), the ties (k + 1/2) * scale
        for k around the zero point, the grid's two clipping edges, NaN and +-inf."""
        scale, zero, low, high = GRIDS[self.grid]
        rng = np.random.default_rng(batch + len(self.grid))
        x = (3 * rng.standard_normal((batch, *self.shape[1:]))).astype(self.np_dtype)
        flat = x.reshape(-1)
        ties = (np.arange(-8, 8) + 0.5) * np.float32(scale)
        edges = np.array([(low - zero) * scale, (high - zero) * scale, (low - zero - 0.5) * scale, (high - zero + 0.5) * scale])
        special = np.concatenate([ties, edges, [-1.0, 1.0, np.nan, np.inf, -np.inf]]).astype(self.np_dtype)
        flat[: special.size] = special
        return x

    def check(self, module) -> None:
        for batch in [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]]:
            x = self.x(batch)
            if self.op == "fake_quantize":
                want = torch.fake_quantize_per_tensor_affine(torch.from_numpy(x), *GRIDS[self.grid])
                assert_exact(module[self.symbol](x), want, dtype=self.np_dtype)
                continue
            dy = np.random.default_rng(batch).standard_normal(x.shape).astype(self.np_dtype)
            got = module[self.symbol](dy, x)
            if self.op == "tanh":
                x64, dy64 = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(dy.astype(np.float64))
                t = torch.tanh(x64)
                assert_within_bound(got, dy64 * (1 - t * t), dy64.abs() * (1 + t * t), label=str(self))
                continue
            assert_exact(got, self.exact_gradient(torch.from_numpy(dy), torch.from_numpy(x)), dtype=self.np_dtype)

    def exact_gradient(self, dy: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        if self.op == "identity":
            return dy
        if self.op == "hard_tanh":
            return torch.where((x >= -1) & (x <= 1), dy, torch.zeros_like(dy))
        leaf = x.clone().requires_grad_()
        y = torch.fake_quantize_per_tensor_affine(leaf, *GRIDS[self.grid])
        return torch.autograd.grad(y, leaf, dy)[0]


CASES = [
    *(Case("fake_quantize", grid, dtype) for grid in GRIDS for dtype in DTYPES),
    Case("fake_quantize", "uint8", "f32", (3, 17), dynamic=True),
    *(Case("clipped", grid, dtype) for grid in GRIDS for dtype in DTYPES),
    Case("clipped", "int4", "f64", (3, 17), dynamic=True),
    *(Case(kind, "int8", dtype) for kind in ("identity", "tanh", "hard_tanh") for dtype in DTYPES),
]


@dataclass(frozen=True)
class PerChannel(_Named):
    """Per-channel fake quantization (or its gradient) along `axis` of x."""

    shape: tuple[int, ...]
    axis: int
    backward: bool = False
    dtype: str = "f32"
    dynamic: bool = False
    quant_range: tuple[int, int] = (-8, 7)

    def __str__(self) -> str:
        dims = "x".join(map(str, self.shape))
        name = "fake_quantize_per_channel" + ("_backward" if self.backward else "")
        return f"{name}_{dims}{'dyn' if self.dynamic else ''}_axis{self.axis}_{self.dtype}"

    def function(self) -> str:
        t = tensor_type(self.shape, self.np_dtype, self.dynamic)
        c = self.shape[self.axis]
        grid = f"axis {self.axis} quant_min {self.quant_range[0]} quant_max {self.quant_range[1]}"
        if self.backward:
            return (
                f"func.func @{self.symbol}(%dy: {t}, %x: {t}, %s: tensor<{c}xf32>, %z: tensor<{c}xi32>) -> {t} {{\n"
                f"  %dx = rlx.fake_quantize_per_channel_backward %dy, %x, %s, %z {grid} : ({t}, {t}, tensor<{c}xf32>, tensor<{c}xi32>) -> {t}\n"
                f"  return %dx : {t}\n}}\n"
            )
        return (
            f"func.func @{self.symbol}(%x: {t}, %s: tensor<{c}xf32>, %z: tensor<{c}xi32>) -> {t} {{\n"
            f"  %y = rlx.fake_quantize_per_channel %x, %s, %z {grid} : ({t}, tensor<{c}xf32>, tensor<{c}xi32>) -> {t}\n"
            f"  return %y : {t}\n}}\n"
        )

    def grid(self) -> tuple[np.ndarray, np.ndarray]:
        """Scales from inexact (0.0173) to exact halves (0.25); zero points across the range."""
        c = self.shape[self.axis]
        rng = np.random.default_rng(c)
        scale = np.array([0.25, 0.1, 0.0173, 0.5, 0.03][:c] + list(rng.uniform(0.01, 0.5, max(0, c - 5))), np.float32)
        zero = rng.integers(self.quant_range[0], self.quant_range[1] + 1, c).astype(np.int32)
        return scale, zero

    def check(self, module) -> None:
        scale, zero = self.grid()
        for batch in [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]]:
            rng = np.random.default_rng(batch)
            x = rng.standard_normal((batch, *self.shape[1:])).astype(self.np_dtype)
            ties = np.moveaxis(x, self.axis, -1)  # channel c's ties at (k + 1/2) * scale[c]
            ties[..., :] = np.where(rng.random(ties.shape) < 0.3, (rng.integers(-6, 6, ties.shape) + 0.5) * scale, ties)
            x.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
            args = (torch.from_numpy(x), torch.from_numpy(scale), torch.from_numpy(zero), self.axis, *self.quant_range)
            if not self.backward:
                assert_exact(module[self.symbol](x, scale, zero), torch.fake_quantize_per_channel_affine(*args), dtype=self.np_dtype)
                continue
            dy = rng.standard_normal(x.shape).astype(self.np_dtype)
            leaf = args[0].clone().requires_grad_()
            (want,) = torch.autograd.grad(torch.fake_quantize_per_channel_affine(leaf, *args[1:]), leaf, torch.from_numpy(dy))
            assert_exact(module[self.symbol](dy, x, scale, zero), want, dtype=self.np_dtype)


PER_CHANNEL = [
    *(PerChannel((4, 3, 9), 1, backward, dtype) for backward in (False, True) for dtype in DTYPES),
    PerChannel((5, 7), 0, dtype="f64"),  # one grid per row, the leading axis
    PerChannel((3, 4, 6), 2, dynamic=True, quant_range=(0, 255)),
    PerChannel((3, 6), 1, backward=True, dynamic=True, quant_range=(0, 15)),
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    return compile_rlx("\n".join(c.function() for c in [*CASES, *PER_CHANNEL]))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_quantization_matches_pytorch(case, module):
    case.check(module)


@pytest.mark.parametrize("case", PER_CHANNEL, ids=str)
def test_per_channel_fake_quantize_matches_pytorch(case, module):
    case.check(module)
