"""A WGAN-GP gradient penalty on a small conv critic, differentiated by the autodiff pass.

critic(x) = (leaky_relu(conv(x, w)) |> max_pool |> avg_pool |> flatten) @ fc, one score per sample
gp(x, w, fc) = lambda * mean_n (||d sum(critic(x)) / d x_n||_2 - 1)^2

`--autodiff="func=critic wrt=0"` gives `@critic_vjp(x, w, fc, seed) -> d/dx`; the penalty
is written on top of that function's body in RLX ops (`@gp`), and `--autodiff="func=gp"`
differentiates it again, through the conv, activation and pool gradients, with respect
to every critic parameter: that is the second-order use the issue names. Against
`torch.autograd.grad(gp, params)` with `create_graph=True`, in float64. The penalty
composes selections (leaky_relu, max pool), a square root and sums, so the bound is 1e-11
of each gradient's largest magnitude, as in test_conv_net_orders.py (measured: ~1e-15).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

import rlx_mlir
from vjp_harness import lower_adjoint_ops


def _example():
    """examples/gradient_penalty.py, the README's example: its critic and penalty are the
    ones under test, so the example a user runs is the one checked here."""
    path = Path(__file__).resolve().parents[2] / "examples" / "gradient_penalty.py"
    spec = importlib.util.spec_from_file_location("gradient_penalty_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE = _example()
LAMBDA = EXAMPLE.LAMBDA


def gradient_penalty_module() -> str:
    """@critic, @critic_vjp and @gp: critic_vjp's body with the penalty instead of its return."""
    return EXAMPLE.penalty_module()


def test_gradient_penalty_parameter_gradients_match_pytorch():
    source = gradient_penalty_module()
    module = rlx_mlir.autodiff(source, "gp", wrt=[1, 2])
    lower_adjoint_ops(module)
    compiled = rlx_mlir.compile(module, pipeline="plain")
    rng = np.random.default_rng(0)
    x, w, fc = rng.standard_normal((2, 1, 8, 8)), rng.standard_normal((3, 1, 3, 3)), rng.standard_normal((12, 1))
    seed = np.ones((2, 1))
    gp = compiled["gp"](x, w, fc, seed)
    dw, dfc = compiled["gp_vjp"](x, w, fc, seed, np.array(1.0))

    tx, tw, tfc = (torch.tensor(v, requires_grad=True) for v in (x, w, fc))
    a = F.max_pool2d(F.leaky_relu(F.conv2d(tx, tw, padding=1), 0.2), 2)
    scores = F.avg_pool2d(a, 2).reshape(2, 12) @ tfc
    (g,) = torch.autograd.grad(scores.sum(), tx, create_graph=True)
    want_gp = LAMBDA * ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
    want = torch.autograd.grad(want_gp, (tw, tfc))
    for got, ref in ((gp, want_gp), (dw, want[0]), (dfc, want[1])):
        ref = ref.detach().numpy()
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 1e-11 * np.abs(ref).max()
