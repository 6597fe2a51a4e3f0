"""ResNet-18's forward imported alone (`rlx_mlir.torch.forward.export_forward`),
differentiated by the autodiff pass, compiled, against PyTorch's `loss.backward()`.

Two independent routes to the parameter gradients: PyTorch's autograd, and the RLX VJP
rules applied to the imported forward (no PyTorch backward op is imported). Batch 2,
32x32, float64, training mode (batch norm with batch statistics).

Error model: both sides compute in f64 with the same reduction orders up to
reassociation; the gradient of each parameter is a sum over the batch and the spatial
positions of products through ~20 layers, so its relative L2 error is a modest multiple of
eps(f64) * depth * log(terms), well below 1e-12; the bound is the issue's 1e-9 relative L2.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "torch"))

import rlx_mlir  # noqa: E402
from vjp_harness import lower_adjoint_ops  # noqa: E402


def _gradients_by_autodiff(model, x, target):
    from rlx_mlir.torch.forward import export_forward

    fwd = export_forward(model, (x, target), loss_fn=F.cross_entropy)
    assert not fwd.masks
    module = rlx_mlir.autodiff(fwd.module, fwd.function_name, wrt=fwd.parameter_indices)
    lower_adjoint_ops(module)
    vjp = rlx_mlir.compile(module, outline=True)[fwd.function_name + "_vjp"]
    state = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    args = [state[name].detach().numpy() for name in [*fwd.parameter_names, *fwd.buffer_names]]
    args += [x.numpy(), target.numpy(), *[value.numpy() for _, value in fwd.constants], np.array(1.0)]
    grads = vjp(*args)
    return dict(zip(fwd.parameter_names, grads if isinstance(grads, tuple) else (grads,)))


def test_resnet18_forward_autodiff_matches_pytorch_backward():
    from models import build

    model = build("resnet18", torch.float64)
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((2, 3, 32, 32)))
    target = torch.tensor([3, 7])
    reference = build("resnet18", torch.float64)
    F.cross_entropy(reference(x), target).backward()
    want = {name: p.grad.numpy() for name, p in reference.named_parameters()}

    got = _gradients_by_autodiff(model, x, target)
    assert set(got) == set(want)
    for name, w in want.items():
        g = got[name]
        assert g.shape == w.shape, name
        error = np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-300)
        assert error <= 1e-9, f"{name}: relative L2 error {error:.3g}"
