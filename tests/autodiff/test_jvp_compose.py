"""Forward mode composed with reverse mode, both ways, on a small CNN and a tanh MLP (the
shape of a physics-informed network), against PyTorch in f64 (1e-9).

- `--jvp` alone: `@loss_jvp` against `torch.func.jvp`.
- forward over reverse: `--autodiff` then `--jvp="func=loss_vjp"` gives the gradient and
  the Hessian-vector product H v;
- reverse over forward: `--jvp` then `--autodiff="func=loss_jvp"`, seeded with (0, 1), gives
  the gradient of the directional derivative, H v again;
both H v against `torch.func.hessian` contracted with v. The models are the HVP
benchmark's (`benchmarks/hvp.py`).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import rlx_mlir
from jvp_harness import assert_close_f64
from vjp_harness import lower_adjoint_ops

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's benchmarks/, not an installed one
from benchmarks.hvp import MODELS, Model, both_orders  # noqa: E402  (after the path above)


@functools.cache
def compiled(model: Model):
    module = both_orders(model)
    lower_adjoint_ops(module)
    return rlx_mlir.compile(module, pipeline="plain")


def torch_hvp(model: Model, data, params, tangents) -> list[np.ndarray]:
    """sum_j H_ij v_j from the full Hessian (`torch.func.hessian`) of the loss in the parameters."""
    data = [torch.tensor(d) for d in data]
    loss = lambda *p: model.fn(*data, *p)  # noqa: E731
    params, tangents = [torch.tensor(p) for p in params], [torch.tensor(v) for v in tangents]
    hessian = torch.func.hessian(loss, argnums=tuple(range(len(params))))(*params)
    return [
        sum(torch.tensordot(hessian[i][j], v, dims=v.dim()) for j, v in enumerate(tangents)).numpy()
        for i in range(len(params))
    ]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_jvp_of_the_loss_matches_torch_func_jvp(model):
    data, params, tangents = model.inputs()
    loss, loss_dot = compiled(model)["loss_jvp"](*data, *params, *tangents)
    fn = lambda *p: model.fn(*map(torch.tensor, data), *p)  # noqa: E731
    want, want_dot = torch.func.jvp(fn, tuple(map(torch.tensor, params)), tuple(map(torch.tensor, tangents)))
    assert_close_f64(loss, want.numpy(), f"{model.name} loss")
    assert_close_f64(loss_dot, want_dot.numpy(), f"{model.name} loss tangent")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_forward_over_reverse_hvp_matches_torch_hessian(model):
    data, params, tangents = model.inputs()
    got = compiled(model)["loss_vjp_jvp"](*data, *params, np.ones(()), *tangents)
    n = len(params)
    gradients = torch.func.grad(lambda *p: model.fn(*map(torch.tensor, data), *p), argnums=tuple(range(n)))(
        *map(torch.tensor, params)
    )
    for i, (g, want) in enumerate(zip(got[:n], gradients)):
        assert_close_f64(g, want.numpy(), f"{model.name} gradient {i}")
    for i, (hv, want) in enumerate(zip(got[n:], torch_hvp(model, data, params, tangents))):
        assert_close_f64(hv, want, f"{model.name} H v {i}")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_reverse_over_forward_hvp_matches_torch_hessian(model):
    data, params, tangents = model.inputs()
    got = compiled(model)["loss_jvp_vjp"](*data, *params, *tangents, np.zeros(()), np.ones(()))
    for i, (hv, want) in enumerate(zip(got, torch_hvp(model, data, params, tangents))):
        assert_close_f64(hv, want, f"{model.name} H v {i}")
