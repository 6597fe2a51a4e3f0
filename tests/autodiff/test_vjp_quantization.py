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
