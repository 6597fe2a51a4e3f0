"""examples/gradient_penalty.py: a WGAN-GP penalty written in PyTorch, compiled through `step_fn`.

critic(x) = (leaky_relu(conv(x, w)) |> max_pool |> avg_pool |> flatten) @ fc, one score per sample
gp(x, w, fc) = lambda * mean_n (||d sum(critic(x)) / d x_n||_2 - 1)^2

The example's step holds PyTorch's double-backward formulas of the conv, the activation
and the pools (the max pool's read at its argmax: `max_pool_gather`), imported as RLX ops.
Against `torch.autograd.grad(gp, params)` with `create_graph=True`, in float64. The
penalty composes selections (leaky_relu, max pool), a square root and sums, so the bound
is 1e-11 of each result's largest magnitude, as in test_conv_net_orders.py (measured:
~1e-15). The same penalty differentiated twice by our own autodiff is
tests/torch/test_higher_order_steps.py's two-routes test.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import torch


def _example():
    """examples/gradient_penalty.py, the README's example: the example a user runs is the one checked here."""
    path = Path(__file__).resolve().parents[2] / "examples" / "gradient_penalty.py"
    spec = importlib.util.spec_from_file_location("gradient_penalty_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE = _example()


def test_gradient_penalty_parameter_gradients_match_pytorch():
    rng = np.random.default_rng(0)
    x, w, fc = rng.standard_normal((2, 1, 8, 8)), rng.standard_normal((3, 1, 3, 3)), rng.standard_normal((12, 1))
    gp, dw, dfc = EXAMPLE.compiled_penalty(x, w, fc)

    critic = EXAMPLE.Critic(torch.from_numpy(w), torch.from_numpy(fc))
    want_gp = EXAMPLE.gradient_penalty(critic, torch.from_numpy(x))
    want = torch.autograd.grad(want_gp, (critic.w, critic.fc))
    for got, ref in ((gp, want_gp), (dw, want[0]), (dfc, want[1])):
        ref = ref.detach().numpy()
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 1e-11 * np.abs(ref).max()
