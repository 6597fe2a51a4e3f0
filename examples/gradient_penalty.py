"""A WGAN-GP gradient penalty written in PyTorch, compiled by rlx-mlir.

    python examples/gradient_penalty.py

critic(x) = (leaky_relu(conv(x, w)) |> max_pool |> avg_pool |> flatten) @ fc
gp(critic, x) = lambda * mean_n (||d sum(critic(x)) / d x_n||_2 - 1)^2

The penalty is plain PyTorch: `torch.autograd.grad(..., create_graph=True)` for the input
gradient. `export_training_step(critic, (x,), step_fn=gradient_penalty)` traces it with
PyTorch's own double-backward formulas (the conv, LeakyReLU and max-pool gradients,
differentiated again), imports them as RLX ops and compiles the step: `compiled(x)` gives
the penalty and its gradient with respect to every parameter of the critic, the second
order. PyTorch's `torch.compile` refuses this step (no double backward in AOTAutograd).

The result is compared with PyTorch eager, `torch.autograd.grad(gp, critic.parameters())`.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from rlx_mlir.torch import export_training_step

LAMBDA = 10.0


class Critic(nn.Module):
    """One score per sample: a 3x3 conv, LeakyReLU(0.2), 2x2 max and average pools, a linear map."""

    def __init__(self, w: torch.Tensor, fc: torch.Tensor):
        super().__init__()
        self.w = nn.Parameter(w)
        self.fc = nn.Parameter(fc)

    def forward(self, x):
        features = F.avg_pool2d(F.max_pool2d(F.leaky_relu(F.conv2d(x, self.w, padding=1), 0.2), 2), 2)
        return features.flatten(1) @ self.fc


def gradient_penalty(critic: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """lambda * mean_n (||d sum(critic(x)) / d x_n||_2 - 1)^2, the WGAN-GP penalty at x."""
    x = x.requires_grad_(True)
    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return LAMBDA * ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()


def compiled_penalty(x: np.ndarray, w: np.ndarray, fc: np.ndarray):
    """(gp, d gp/dw, d gp/dfc) from the compiled step, for the critic of weights (w, fc)."""
    critic = Critic(torch.from_numpy(w), torch.from_numpy(fc))
    step = export_training_step(critic, (torch.from_numpy(x),), step_fn=gradient_penalty)
    gp, grads, _ = step.compile()(x)
    return gp, grads["w"], grads["fc"]


def main() -> None:
    rng = np.random.default_rng(0)
    x, w, fc = rng.standard_normal((2, 1, 8, 8)), rng.standard_normal((3, 1, 3, 3)), rng.standard_normal((12, 1))
    gp, dw, dfc = compiled_penalty(x, w, fc)
    print(f"gradient penalty {float(gp):.6f}; |d gp/dw| {np.linalg.norm(dw):.6f}, |d gp/dfc| {np.linalg.norm(dfc):.6f}")
    critic = Critic(torch.from_numpy(w), torch.from_numpy(fc))
    want_gp = gradient_penalty(critic, torch.from_numpy(x))
    want_dw, want_dfc = torch.autograd.grad(want_gp, (critic.w, critic.fc))
    worst = max(
        float(np.abs(got - ref.detach().numpy()).max() / np.abs(ref.detach().numpy()).max())
        for got, ref in ((gp, want_gp), (dw, want_dw), (dfc, want_dfc))
    )
    print(f"PyTorch: gradient penalty {want_gp.item():.6f}; largest difference {worst:.1e} of each result's largest value")


if __name__ == "__main__":
    main()
