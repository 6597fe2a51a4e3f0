"""The autodiff pass on `rlx.cast`, first and second order, against PyTorch's autograd.

A float -> float cast's VJP is the cotangent cast back to the input's type (PyTorch's
_to_copy backward), and the VJP of that is the cast again: every gradient is one rounding
of one input, so it is compared bit for bit, with its own dtypes (the harness of the
other VJP tests draws every argument in one dtype).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rlx_mlir
from vjp_harness import differentiated

NUMPY = {"f32": np.float32, "f64": np.float64}
TORCH = {"f32": torch.float32, "f64": torch.float64}
SHAPE = (3, 4)


def _source(src: str, dst: str) -> str:
    a, b = f"tensor<3x4x{src}>", f"tensor<3x4x{dst}>"
    return f"func.func @f(%x: {a}) -> {b} {{\n  %y = rlx.cast %x : ({a}) -> {b}\n  return %y : {b}\n}}\n"


def _torch_vjp(src: str, dst: str, order: int, args):
    """PyTorch's gradients of the same construction (`vjp_harness.torch_vjp`'s, with dtypes)."""
    tensors = [torch.from_numpy(a).requires_grad_() for a in args]
    x = tensors[0]
    y = x.to(TORCH[dst])
    (x_bar,) = torch.autograd.grad(y, x, tensors[1], create_graph=True)
    if order == 1:
        return [x_bar]
    return torch.autograd.grad(x_bar, tensors[:2], tensors[2], allow_unused=True, materialize_grads=True)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("src, dst", [("f32", "f64"), ("f64", "f32")])
def test_cast_vjp_matches_pytorch(src, dst, order):
    rng = np.random.default_rng(0)
    types = [src, dst, src][: order + 1]
    args = [(rng.standard_normal(SHAPE) * 1e3).astype(NUMPY[t]) for t in types]
    module, name = differentiated(_source(src, dst), order)
    got = rlx_mlir.compile(module, pipeline="plain")[name](*args)
    got = got if isinstance(got, tuple) else (got,)
    want = _torch_vjp(src, dst, order, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.detach().numpy())
        assert g.dtype == w.detach().numpy().dtype
