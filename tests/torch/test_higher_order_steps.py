"""Higher-order training steps written in PyTorch (`export_training_step(..., step_fn=f)`)
against PyTorch eager running the same `f` with `create_graph=True`.

Each step's loss differentiates inside itself: a gradient penalty at random interpolates
(WGAN-GP), R1 at the real samples, forces `-dE/dpos` of an MLP potential, the Laplacian of
a PINN, one inner SGD step of MAML. The step's result is the loss and the gradient of
every parameter of that loss (second or third order in the parameters and inputs).

The comparison is `oracle.assert_step_matches`: our step in f64 within 1e-9 of PyTorch's
f64 step, in f32 by the oracle's rule against PyTorch's f32 and f64 steps, all on the same
(f32-valued) weights and inputs. The two-routes test checks the imported WGAN-GP step
against the critic imported alone (`export_forward`) and differentiated twice by our
`autodiff`: PyTorch's double-backward formulas against our VJP rules.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from model_steps import NUMPY
from oracle import assert_step_matches
from rlx_mlir.torch import export_training_step

DTYPES = {"f64": torch.float64, "f32": torch.float32}
LAMBDA = 10.0


def eager_step(model, step_fn, inputs, dtype) -> dict[str, np.ndarray]:
    """PyTorch eager: `step_fn` on a copy of `model` in `dtype`, then the parameter gradients."""
    model = copy.deepcopy(model).to(dtype)
    inputs = [t.to(dtype) if t.is_floating_point() else t for t in inputs]
    loss = step_fn(model, *inputs)
    params = dict(model.named_parameters())
    grads = torch.autograd.grad(loss, list(params.values()), allow_unused=True)
    out = {"loss": loss.detach().numpy()}
    out.update({f"grad/{name}": (torch.zeros_like(p) if g is None else g).detach().numpy()
                for (name, p), g in zip(params.items(), grads)})
    out.update({f"buffer/{name}": b.detach().numpy() for name, b in model.named_buffers()})
    return out


def our_step(model, step_fn, inputs, dtype) -> dict[str, np.ndarray]:
    model = copy.deepcopy(model).to(dtype)
    inputs = [t.to(dtype) if t.is_floating_point() else t for t in inputs]
    step = export_training_step(model, tuple(inputs), step_fn=step_fn)
    loss, grads, buffers = step.compile()(*inputs)
    out = {"loss": np.asarray(loss)}
    out.update({f"grad/{k}": np.asarray(v) for k, v in grads.items()})
    out.update({f"buffer/{k}": np.asarray(v) for k, v in buffers.items()})
    return out


def check(model, step_fn, inputs, dtype: str) -> None:
    want64 = eager_step(model, step_fn, inputs, torch.float64)
    want32 = [eager_step(model, step_fn, inputs, torch.float32)]
    ours = our_step(model, step_fn, inputs, DTYPES[dtype])
    assert set(ours) == set(want64)
    assert_step_matches(ours, want64, want32, NUMPY[DTYPES[dtype]], label=f"{step_fn.__name__} {dtype}")


# -- WGAN-GP -------------------------------------------------------------------------------

class DcganCritic(nn.Module):
    """DCGAN's critic, small: stride-2 4x4 convs with LeakyReLU(0.2), then one linear score."""

    def __init__(self, channels=(3, 4, 8), size=8):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 4, 2, 1) for a, b in zip(channels, channels[1:]))
        side = size >> len(self.convs)
        self.score = nn.Linear(channels[-1] * side * side, 1)

    def forward(self, x):
        for conv in self.convs:
            x = F.leaky_relu(conv(x), 0.2)
        return self.score(x.flatten(1))


def gradient_penalty(critic, x):
    """mean_n (||d critic(x)_n / d x_n|| - 1)^2."""
    x = x.requires_grad_(True)
    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()


def wgan_gp(critic, real, fake, eps):
    """The WGAN-GP critic loss, the penalty at the interpolates eps * real + (1 - eps) * fake."""
    mixed = eps * real + (1 - eps) * fake
    return critic(fake).mean() - critic(real).mean() + LAMBDA * gradient_penalty(critic, mixed)


def wgan_inputs(batch=2, size=8):
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(batch, 3, size, size, generator=generator), torch.randn(batch, 3, size, size, generator=generator),
            torch.rand(batch, 1, 1, 1, generator=generator))


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_wgan_gp_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    check(DcganCritic(), wgan_gp, wgan_inputs(), dtype)
