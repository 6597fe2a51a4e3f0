"""`rlx.fake_quantize` and `rlx.ste_backward`, lowered and run natively, against PyTorch (CPU).

Oracles:
- fake_quantize: `torch.fake_quantize_per_tensor_affine` on the same inputs in the same
  dtype, compared bit for bit (NaN where NaN): the op reproduces ATen's kernel, its f32
  scale and inverse scale, its ties to even (x an odd multiple of scale / 2) and, for an
  f64 x, its f32 product; NaN and +-inf inputs included;
- ste_backward `clipped`: PyTorch's gradient of that op (`torch.autograd.grad`), exact;
- `identity`, `hard_tanh`: the formula in PyTorch (dy, and dy where -1 <= x <= 1), exact;
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


@dataclass(frozen=True)
class Case:
    op: str  # "fake_quantize", or an STE kind
    grid: str = "int8"
    dtype: str = "f32"
    shape: tuple[int, ...] = (4, 33)
    dynamic: bool = False

    def __str__(self) -> str:
        name = self.op if self.op == "fake_quantize" else f"ste_{self.op}"
        dims = "x".join(map(str, self.shape))
        return f"{name}_{self.grid}_{dims}{'dyn' if self.dynamic else ''}_{self.dtype}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]

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


@pytest.fixture(scope="module")
def module(compile_rlx):
    return compile_rlx("\n".join(c.function() for c in CASES))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_quantization_matches_pytorch(case, module):
    case.check(module)
