"""The fused observer's ops, lowered and run natively, against PyTorch's fused observer (CPU).

Oracle: `torch.ops.aten._fused_moving_avg_obs_fq_helper_functional` (what
`FusedMovingAvgObsFakeQuantize`, the x86 default QAT qconfig's fake quantizer, calls) on
the same f32 inputs. One function chains the three ops as the importer does,

    (m', M') = rlx.moving_average_min_max(x, m, M, observer_on)
    (s, z)   = rlx.choose_qparams(m', M')
    y        = rlx.fake_quantize_tensor_qparams(x, s, z)      (per tensor)
             | rlx.fake_quantize_per_channel(x, s, z)         (per channel, axis 0)

and its five results are compared bit for bit with ATen's (y, running min, running max,
scale, zero point): the first call (running values +-inf, the observer's initial ones),
a later one (the moving average), the observer off, and the symmetric int8 weights'
grid. `rlx.fake_quantize_tensor_qparams` and its backward are also compared alone with
`_fake_quantize_per_tensor_affine_cachemask_tensor_qparams` and its autograd gradient, on
ties, the grid's edges, NaN and +-inf, in f32 and f64.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from oracle import assert_exact, tensor_type

AVERAGING = 0.01


@dataclass(frozen=True)
class Observed:
    """x observed and fake-quantized on [quant_min, quant_max], per tensor or per row (axis 0)."""

    shape: tuple[int, ...]
    quant_min: int
    quant_max: int
    per_channel: bool = False
    symmetric: bool = False

    def __str__(self) -> str:
        kind = "per_channel" + ("_symmetric" if self.symmetric else "") if self.per_channel else "per_tensor"
        return f"observed_{kind}_{'x'.join(map(str, self.shape))}_{self.quant_min}_{self.quant_max}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def statistics(self) -> tuple[int, ...]:
        return (self.shape[0],) if self.per_channel else ()

    def function(self) -> str:
        t = tensor_type(self.shape, np.float32)
        m = f"tensor<{''.join(f'{d}x' for d in self.statistics)}f32>"
        n = self.shape[0] if self.per_channel else 1
        s, z = f"tensor<{n}xf32>", f"tensor<{n}xi32>"
        grid = f"quant_min {self.quant_min} quant_max {self.quant_max}"
        axis = " axis 0" if self.per_channel else ""
        symmetric = " symmetric true" if self.symmetric else ""
        quantize = (
            f"rlx.fake_quantize_per_channel %x, %s, %z axis 0 {grid}" if self.per_channel
            else f"rlx.fake_quantize_tensor_qparams %x, %s, %z {grid}"
        )
        return (
            f"func.func @{self.symbol}(%x: {t}, %m: {m}, %M: {m}, %on: tensor<1xi64>) -> ({t}, {m}, {m}, {s}, {z}) {{\n"
            f"  %m2, %M2 = rlx.moving_average_min_max %x, %m, %M, %on averaging_constant {AVERAGING}{axis}"
            f" : ({t}, {m}, {m}, tensor<1xi64>) -> ({m}, {m})\n"
            f"  %s, %z = rlx.choose_qparams %m2, %M2 {grid}{symmetric} : ({m}, {m}) -> ({s}, {z})\n"
            f"  %y = {quantize} : ({t}, {s}, {z}) -> {t}\n"
            f"  return %y, %m2, %M2, %s, %z : {t}, {m}, {m}, {s}, {z}\n}}\n"
        )

    def check(self, module, history: str, observer_on: int) -> None:
        rng = np.random.default_rng(len(self.shape) + self.quant_max)
        x = (rng.standard_normal(self.shape) * rng.uniform(0.05, 3, (self.shape[0],) + (1,) * (len(self.shape) - 1)))
        x = (x + 0.3).astype(np.float32)  # off centre: the zero point is not the middle one
        if history == "first":
            low, high = np.full(self.statistics, np.inf, np.float32), np.full(self.statistics, -np.inf, np.float32)
        else:
            low = np.array(-rng.uniform(0.5, 4, self.statistics), np.float32)
            high = np.array(rng.uniform(0.5, 4, self.statistics), np.float32)
        on = np.array([observer_on], np.int64)
        n = self.shape[0] if self.per_channel else 1
        want = torch.ops.aten._fused_moving_avg_obs_fq_helper_functional(
            torch.from_numpy(x), torch.from_numpy(on), torch.ones(1, dtype=torch.int64),
            torch.from_numpy(low), torch.from_numpy(high), torch.ones(n), torch.zeros(n, dtype=torch.int32),
            AVERAGING, self.quant_min, self.quant_max, 0 if self.per_channel else -1, self.per_channel, self.symmetric,
        )
        got = module[self.symbol](x, low, high, on)
        for name, g, w in zip(("y", "running_min", "running_max", "scale", "zero_point"), got, (want[0], *want[2:])):
            assert_exact(np.asarray(g), w, dtype=w.numpy().dtype)


OBSERVED = [
    Observed((2, 3, 5, 5), 0, 127),  # x86's activations: uint8 with reduce_range
    Observed((7, 33), 0, 255),
    Observed((4, 3, 3, 3), -128, 127, per_channel=True, symmetric=True),  # x86's weights
    Observed((5, 8), -8, 7, per_channel=True),
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    return compile_rlx("\n".join([*(c.function() for c in OBSERVED), *(c.function() for c in TENSOR_QPARAMS)]))


@pytest.mark.parametrize("history, observer_on", [("first", 1), ("later", 1), ("later", 0)],
                         ids=["first_call", "moving_average", "observer_off"])
@pytest.mark.parametrize("case", OBSERVED, ids=str)
def test_fused_observer_matches_pytorch(case, history, observer_on, module):
    case.check(module, history, observer_on)


@dataclass(frozen=True)
class TensorQparams:
    """`rlx.fake_quantize_tensor_qparams` (or its backward) on the grid (scale, zero_point)."""

    dtype: str
    backward: bool = False
    grid: tuple[float, int, int, int] = (0.0173, 3, -8, 7)

    def __str__(self) -> str:
        return f"fake_quantize_tensor_qparams{'_backward' if self.backward else ''}_{self.dtype}"

    @property
    def symbol(self) -> str:
        return str(self)

    def function(self) -> str:
        t = tensor_type((6, 17), np.dtype(self.dtype))
        grid = f"quant_min {self.grid[2]} quant_max {self.grid[3]}"
        if self.backward:
            return (
                f"func.func @{self.symbol}(%dy: {t}, %x: {t}, %s: tensor<1xf32>, %z: tensor<1xi32>) -> {t} {{\n"
                f"  %dx = rlx.fake_quantize_tensor_qparams_backward %dy, %x, %s, %z {grid}"
                f" : ({t}, {t}, tensor<1xf32>, tensor<1xi32>) -> {t}\n  return %dx : {t}\n}}\n"
            )
        return (
            f"func.func @{self.symbol}(%x: {t}, %s: tensor<1xf32>, %z: tensor<1xi32>) -> {t} {{\n"
            f"  %y = rlx.fake_quantize_tensor_qparams %x, %s, %z {grid} : ({t}, tensor<1xf32>, tensor<1xi32>) -> {t}\n"
            f"  return %y : {t}\n}}\n"
        )

    def check(self, module) -> None:
        scale, zero, low, high = self.grid
        rng = np.random.default_rng(0)
        x = rng.standard_normal((6, 17)).astype(self.dtype)
        flat = x.reshape(-1)
        ties = (np.arange(-10, 10) + 0.5) * np.float32(scale)
        special = np.concatenate([ties, [(low - zero) * scale, (high - zero) * scale, np.nan, np.inf, -np.inf]])
        flat[: special.size] = special
        s, z = np.array([scale], np.float32), np.array([zero], np.int32)
        leaf = torch.from_numpy(x).requires_grad_()
        y, _mask = torch.ops.aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            leaf, torch.from_numpy(s), torch.from_numpy(z), torch.ones(1, dtype=torch.int64), low, high)
        if not self.backward:
            assert_exact(module[self.symbol](x, s, z), y.detach(), dtype=np.dtype(self.dtype))
            return
        dy = rng.standard_normal(x.shape).astype(self.dtype)
        (want,) = torch.autograd.grad(y, leaf, torch.from_numpy(dy))
        assert_exact(module[self.symbol](dy, x, s, z), want, dtype=np.dtype(self.dtype))


TENSOR_QPARAMS = [TensorQparams(dtype, backward) for dtype in ("float32", "float64") for backward in (False, True)]


@pytest.mark.parametrize("case", TENSOR_QPARAMS, ids=str)
def test_fake_quantize_tensor_qparams_matches_pytorch(case, module):
    case.check(module)
