"""The JAX column of `benchmarks.higher_order`: the same three steps written with `jax.grad`.

Each loss is the PyTorch step function of `tests/torch/test_higher_order_steps.py` term for
term, on the PyTorch model's parameters (its `named_parameters()` names, NCHW/OIHW
layouts), so the gradients can be compared with PyTorch eager's. The inner gradient is
`jax.grad` where PyTorch calls `torch.autograd.grad(..., create_graph=True)`; the whole step
is `jax.jit(jax.grad(loss))` over the parameters.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

LAMBDA = 10.0


def linear(params, prefix, x):
    return x @ params[f"{prefix}.weight"].T + params[f"{prefix}.bias"]


def dcgan_critic(params, x):
    """Stride-2 4x4 convs (padding 1) with LeakyReLU(0.2), then the linear score."""
    layer = 0
    while f"convs.{layer}.weight" in params:
        x = jax.lax.conv_general_dilated(x, params[f"convs.{layer}.weight"], (2, 2), [(1, 1), (1, 1)],
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        x = x + params[f"convs.{layer}.bias"][None, :, None, None]
        x = jnp.where(x > 0, x, 0.2 * x)
        layer += 1
    return linear(params, "score", x.reshape(x.shape[0], -1))


def wgan_gp(params, real, fake, eps):
    mixed = eps * real + (1 - eps) * fake
    g = jax.grad(lambda x: dcgan_critic(params, x).sum())(mixed)
    penalty = ((jnp.sqrt((g.reshape(g.shape[0], -1) ** 2).sum(1)) - 1) ** 2).mean()
    return dcgan_critic(params, fake).mean() - dcgan_critic(params, real).mean() + LAMBDA * penalty


def tanh_mlp(params, prefix, x, layers=3):
    for i in range(layers):
        x = linear(params, f"{prefix}.{2 * i}", x)
        if i < layers - 1:
            x = jnp.tanh(x)
    return x


def pair_energy(params, pos):
    """E = sum over atom pairs i < j of the MLP of their distance."""
    first, second = np.triu_indices(pos.shape[1], 1)
    r = jnp.sqrt(((pos[:, first] - pos[:, second]) ** 2).sum(-1))
    return tanh_mlp(params, "mlp", r[..., None])[..., 0].sum(1)


def force_matching(params, pos, energy, forces):
    e = pair_energy(params, pos)
    de_dpos = jax.grad(lambda p: pair_energy(params, p).sum())(pos)
    return ((e - energy) ** 2).mean() + ((-de_dpos - forces) ** 2).mean()


def poisson_residual(params, interior, forcing, boundary):
    def u(xy):
        return tanh_mlp(params, "net", xy)[..., 0]

    grad_u = jax.grad(lambda xy: u(xy).sum())
    hess_x = jax.grad(lambda xy: grad_u(xy)[:, 0].sum())(interior)
    hess_y = jax.grad(lambda xy: grad_u(xy)[:, 1].sum())(interior)
    laplacian = hess_x[:, 0] + hess_y[:, 1]
    return ((laplacian - forcing) ** 2).mean() + (u(boundary) ** 2).mean()


LOSSES = {"wgan_gp": wgan_gp, "force_matching": force_matching, "pinn": poisson_residual}


def jax_step(name: str, params: dict, inputs: list):
    """() -> the parameter gradients of step `name` (jitted; the first call compiles)."""
    gradient = jax.jit(jax.grad(LOSSES[name]))
    params = {k: jnp.asarray(v) for k, v in params.items()}
    inputs = [jnp.asarray(x) for x in inputs]
    return lambda: gradient(params, *inputs)
