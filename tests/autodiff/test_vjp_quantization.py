"""The VJPs of `rlx.fake_quantize` and `rlx.ste_backward` at the first and second order,
against PyTorch's autograd in float64.

Oracles: `torch.fake_quantize_per_tensor_affine` (its gradient is the clipped STE, its
double backward the mask times the cotangent); the STE kinds as their formulas in
PyTorch, `dy * mask(x)` (the mask a constant of x, as PyTorch's cached mask is) and
`dy * (1 - tanh(x)^2)`.

Error bound: the masked ones are sums of products with non-negative coefficients given
the mask, so tests/oracle.py's `K (eps + eps64) A` applies with x passed unchanged
(`selects`, it only selects); tanh's gradients are held to SMOOTH_ULPS eps(f64) of each
gradient's largest magnitude (`ulps`).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rlx_mlir
from rlx_mlir.ir import DiagnosticError
from vjp_harness import check

SMOOTH_ULPS = 64
SHAPE = (3, 7)
SCALE, ZERO, LOW, HIGH = 0.25, 1, -6, 5
GRID = f"scale {SCALE} zero_point {ZERO} quant_min {LOW} quant_max {HIGH}"
T = "tensor<3x7xf64>"


def _inside(x: torch.Tensor) -> torch.Tensor:
    q = torch.round(x.detach() * (1 / SCALE)) + ZERO  # torch.round: half to even
    return ((q >= LOW) & (q <= HIGH)).to(x.dtype)


STE = {
    "identity": lambda dy, x: dy + 0 * x,
    "clipped": lambda dy, x: dy * _inside(x),
    "hard_tanh": lambda dy, x: dy * ((x.detach() >= -1) & (x.detach() <= 1)).to(x.dtype),
    "tanh": lambda dy, x: dy * (1 - torch.tanh(x) ** 2),
}


@pytest.mark.parametrize("order", [1, 2])
def test_fake_quantize_vjp_matches_pytorch(order):
    source = f"""
func.func @f(%x: {T}) -> {T} {{
  %y = rlx.fake_quantize %x {GRID} : ({T}) -> {T}
  return %y : {T}
}}
"""
    fn = lambda x: torch.fake_quantize_per_tensor_affine(x, SCALE, ZERO, LOW, HIGH)  # noqa: E731
    check(source, fn, [SHAPE], np.float64, order, selects=(0,), label="fake_quantize")


PARAMS = [
    pytest.param(kind, order, id=f"ste_{kind}_order{order}") for kind in STE for order in (1, 2)
]


@pytest.mark.parametrize("kind, order", PARAMS)
def test_ste_backward_vjp_matches_pytorch(kind, order):
    source = f"""
func.func @f(%dy: {T}, %x: {T}) -> {T} {{
  %dx = rlx.ste_backward %dy, %x kind "{kind}" {GRID} : ({T}, {T}) -> {T}
  return %dx : {T}
}}
"""
    if kind == "tanh":
        check(source, STE[kind], [SHAPE, SHAPE], np.float64, order, label=f"ste {kind}", ulps=SMOOTH_ULPS)
    else:
        check(source, STE[kind], [SHAPE, SHAPE], np.float64, order, selects=(1,), label=f"ste {kind}")


T3 = "tensor<2x3x5xf64>"
AXIS_SCALE = [0.25, 0.1, 0.5]
AXIS_ZERO = [1, 0, -2]


def per_channel_source(backward: bool) -> str:
    grid = "axis 1 quant_min -4 quant_max 3"
    constants = (
        f"  %s = arith.constant dense<{AXIS_SCALE}> : tensor<3xf32>\n"
        f"  %z = arith.constant dense<{AXIS_ZERO}> : tensor<3xi32>\n"
    )
    if backward:
        return (
            f"func.func @f(%dy: {T3}, %x: {T3}) -> {T3} {{\n{constants}"
            f"  %dx = rlx.fake_quantize_per_channel_backward %dy, %x, %s, %z {grid} : ({T3}, {T3}, tensor<3xf32>, tensor<3xi32>) -> {T3}\n"
            f"  return %dx : {T3}\n}}\n"
        )
    return (
        f"func.func @f(%x: {T3}) -> {T3} {{\n{constants}"
        f"  %y = rlx.fake_quantize_per_channel %x, %s, %z {grid} : ({T3}, tensor<3xf32>, tensor<3xi32>) -> {T3}\n"
        f"  return %y : {T3}\n}}\n"
    )


def _per_channel(x):
    scale, zero = torch.tensor(AXIS_SCALE, dtype=torch.float32), torch.tensor(AXIS_ZERO, dtype=torch.int32)
    return torch.fake_quantize_per_channel_affine(x, scale, zero, 1, -4, 3)


def _per_channel_backward(dy, x):
    leaf = x.detach().requires_grad_()
    mask = torch.autograd.grad(_per_channel(leaf), leaf, torch.ones_like(leaf))[0]
    return dy * mask + 0 * x


@pytest.mark.parametrize("order", [1, 2])
def test_fake_quantize_per_channel_vjp_matches_pytorch(order):
    check(per_channel_source(False), _per_channel, [(2, 3, 5)], np.float64, order, selects=(0,), label="per channel")


@pytest.mark.parametrize("order", [1, 2])
def test_fake_quantize_per_channel_backward_vjp_matches_pytorch(order):
    check(per_channel_source(True), _per_channel_backward, [(2, 3, 5), (2, 3, 5)], np.float64, order, selects=(1,),
          label="per channel backward")


def test_a_per_channel_scale_argument_is_refused_with_its_location():
    """PyTorch refuses a scale that requires grad; a zero cotangent would be wrong."""
    source = (
        f"func.func @f(%x: {T3}, %s: tensor<3xf32>, %z: tensor<3xi32>) -> {T3} {{\n"
        f"  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min -4 quant_max 3 : ({T3}, tensor<3xf32>, tensor<3xi32>) -> {T3}\n"
        f"  return %y : {T3}\n}}\n"
    )
    with pytest.raises(DiagnosticError, match="not differentiable with respect to its scale") as error:
        rlx_mlir.autodiff(source, "f")
    assert ":2:" in str(error.value)


def tensor_qparams_source(backward: bool) -> str:
    """The grid operands are constants here: the harness differentiates in x (and dy) only."""
    grid = f"quant_min {LOW} quant_max {HIGH}"
    constants = (
        f"  %s = arith.constant dense<{SCALE}> : tensor<1xf32>\n"
        f"  %z = arith.constant dense<{ZERO}> : tensor<1xi32>\n"
    )
    if backward:
        return (
            f"func.func @f(%dy: {T}, %x: {T}) -> {T} {{\n{constants}"
            f"  %dx = rlx.fake_quantize_tensor_qparams_backward %dy, %x, %s, %z {grid} : ({T}, {T}, tensor<1xf32>, tensor<1xi32>) -> {T}\n"
            f"  return %dx : {T}\n}}\n"
        )
    return (
        f"func.func @f(%x: {T}) -> {T} {{\n{constants}"
        f"  %y = rlx.fake_quantize_tensor_qparams %x, %s, %z {grid} : ({T}, tensor<1xf32>, tensor<1xi32>) -> {T}\n"
        f"  return %y : {T}\n}}\n"
    )


def _tensor_qparams(x):
    scale, zero = torch.tensor([SCALE], dtype=torch.float32), torch.tensor([ZERO], dtype=torch.int32)
    on = torch.ones(1, dtype=torch.int64)
    return torch.ops.aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(x, scale, zero, on, LOW, HIGH)[0]


@pytest.mark.parametrize("order", [1, 2])
def test_fake_quantize_tensor_qparams_vjp_matches_pytorch(order):
    check(tensor_qparams_source(False), _tensor_qparams, [SHAPE], np.float64, order, selects=(0,),
          label="tensor qparams")


@pytest.mark.parametrize("order", [1, 2])
def test_fake_quantize_tensor_qparams_backward_vjp_matches_pytorch(order):
    check(tensor_qparams_source(True), STE["clipped"], [SHAPE, SHAPE], np.float64, order, selects=(1,),
          label="tensor qparams backward")


def test_an_observed_grid_gets_no_gradient():
    """x observed, its grid chosen and x fake-quantized on it, as the importer emits
    PyTorch's fused observer: x's gradient is the clipped STE on the observed grid, as
    PyTorch's autograd of `fused_moving_avg_obs_fake_quant` gives it (f32, exact); the
    statistics pass none back."""
    t, m = "tensor<3x7xf32>", "tensor<f32>"
    source = (
        f"func.func @f(%x: {t}, %low: {m}, %high: {m}) -> {t} {{\n"
        f"  %on = arith.constant dense<1> : tensor<1xi64>\n"
        f"  %m2, %M2 = rlx.moving_average_min_max %x, %low, %high, %on averaging_constant 0.01 : ({t}, {m}, {m}, tensor<1xi64>) -> ({m}, {m})\n"
        f"  %s, %z = rlx.choose_qparams %m2, %M2 quant_min 0 quant_max 15 : ({m}, {m}) -> (tensor<1xf32>, tensor<1xi32>)\n"
        f"  %y = rlx.fake_quantize_tensor_qparams %x, %s, %z quant_min 0 quant_max 15 : ({t}, tensor<1xf32>, tensor<1xi32>) -> {t}\n"
        f"  return %y : {t}\n}}\n"
    )
    x = np.random.default_rng(0).standard_normal((3, 7)).astype(np.float32)
    x[0, :3] = [-9.0, 9.0, 0.0]  # the range: the grid [-9, 9] in 16 levels, half of x's levels tied
    dy = np.random.default_rng(1).standard_normal((3, 7)).astype(np.float32)
    low, high = np.array(np.inf, np.float32), np.array(-np.inf, np.float32)  # the observer's first call
    got = rlx_mlir.compile(rlx_mlir.autodiff(source, "f"))["f_vjp"](x, low, high, dy)
    got = got[0] if isinstance(got, tuple) else got
    leaf = torch.from_numpy(x).requires_grad_()
    y = torch.fused_moving_avg_obs_fake_quant(
        leaf, torch.ones(1, dtype=torch.int64), torch.ones(1, dtype=torch.int64), torch.tensor(np.inf),
        torch.tensor(-np.inf), torch.ones(1), torch.zeros(1, dtype=torch.int32), 0.01, 0, 15, -1)
    (want,) = torch.autograd.grad(y, leaf, torch.from_numpy(dy))
    np.testing.assert_array_equal(got, want.numpy())
