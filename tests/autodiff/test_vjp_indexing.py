"""The VJPs of `rlx.embedding` and `rlx.embedding_backward` at the first and second order, against PyTorch.

The indices are constants of `@f` (integers get no cotangent). Both ops are linear in
their float operand, so every gradient is a sum of products with non-negative
coefficients (1, or 1/count) and tests/oracle.py's `K (eps + eps64) A` applies
(`vjp_harness.check`).

Oracles: `F.embedding` and `aten.embedding_dense_backward` under `torch.autograd.grad`.
PyTorch's double backward of `embedding_dense_backward` (`embedding_dense_double_backward`)
zeroes the padding rows but leaves out the 1/count of `scale_grad_by_freq`, so it is not
the adjoint of the op when an index repeats (the inner product <B(dy), g> = <dy, B*(g)>
fails for it). With `scale_grad_by_freq` the oracle is therefore the same gradient
written with PyTorch's `index_add` (each contribution times [t != padding_idx] / count(t)),
whose autograd is the exact adjoint; `test_pytorch_double_backward_ignores_frequency`
keeps that reason checked.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from vjp_harness import check

aten = torch.ops.aten
F64 = torch.float64
V, D = 5, 2
T = torch.tensor([[1, 3, 1], [0, 3, 3]])  # repeated rows, row 0 once, rows 2 and 4 unnamed
T_MLIR = "dense<[[1, 3, 1], [0, 3, 3]]> : tensor<2x3xi64>"


def properties(padding_idx: int, scale: bool) -> str:
    return (f" padding_idx {padding_idx}" if padding_idx >= 0 else "") + (" scale_grad_by_freq true" if scale else "")


def embedding_source(padding_idx: int, scale: bool) -> str:
    return f"""
func.func @f(%w: tensor<{V}x{D}xf64>) -> tensor<2x3x{D}xf64> {{
  %t = arith.constant {T_MLIR}
  %y = rlx.embedding %w, %t{properties(padding_idx, scale)} : (tensor<{V}x{D}xf64>, tensor<2x3xi64>) -> tensor<2x3x{D}xf64>
  return %y : tensor<2x3x{D}xf64>
}}
"""


def backward_source(padding_idx: int, scale: bool) -> str:
    return f"""
func.func @f(%dy: tensor<2x3x{D}xf64>) -> tensor<{V}x{D}xf64> {{
  %t = arith.constant {T_MLIR}
  %dw = rlx.embedding_backward %dy, %t{properties(padding_idx, scale)} : (tensor<2x3x{D}xf64>, tensor<2x3xi64>) -> tensor<{V}x{D}xf64>
  return %dw : tensor<{V}x{D}xf64>
}}
"""


def exact_embedding_backward(dy: torch.Tensor, padding_idx: int, scale: bool) -> torch.Tensor:
    """ATen's embedding_dense_backward as an `index_add`: its autograd is the exact adjoint."""
    flat = T.reshape(-1)
    factor = (flat != padding_idx).to(F64)
    if scale:
        factor = factor / torch.bincount(flat, minlength=V).to(F64)[flat]
    return torch.zeros(V, D, dtype=F64).index_add(0, flat, dy.reshape(-1, D) * factor[:, None])


CONFIGS = [(-1, False), (1, False), (-1, True), (3, True)]
IDS = ["plain", "pad1", "freq", "pad3_freq"]


EMBEDDING_ORDERS = [
    pytest.param(padding_idx, scale, order, id=f"{name}_order{order}")
    for (padding_idx, scale), name in zip(CONFIGS, IDS)
    # With scaling, PyTorch's second order of F.embedding is not the adjoint (see above); that
    # order is the gradient op's first, checked against the exact form below.
    for order in ((1,) if scale else (1, 2))
]


@pytest.mark.parametrize("padding_idx, scale, order", EMBEDDING_ORDERS)
def test_embedding_vjp_matches_pytorch(padding_idx, scale, order):
    """PyTorch's gradients of F.embedding (with padding_idx and the scaling)."""
    pad = padding_idx if padding_idx >= 0 else None
    fn = lambda w: F.embedding(T, w, padding_idx=pad, scale_grad_by_freq=scale)  # noqa: E731
    check(embedding_source(padding_idx, scale), fn, [(V, D)], np.float64, order, label="embedding")


@pytest.mark.parametrize("padding_idx, scale", CONFIGS, ids=IDS)
@pytest.mark.parametrize("order", [1, 2, 3])
def test_embedding_backward_vjp_matches_pytorch(padding_idx, scale, order):
    if scale:
        fn = lambda dy: exact_embedding_backward(dy, padding_idx, scale)  # noqa: E731
    else:
        fn = lambda dy: aten.embedding_dense_backward(dy, T, V, padding_idx, scale)  # noqa: E731
    """Orders 1 to 3: the third differentiates the row factor's product once more."""
    check(backward_source(padding_idx, scale), fn, [(2, 3, D)], np.float64, order, label="embedding_backward")


def test_pytorch_double_backward_ignores_frequency():
    """Why the scaled cases use the index_add oracle: PyTorch's derivative of
    embedding_dense_backward in grad_output drops the 1/count, the exact one keeps it."""
    dy = torch.randn(2, 3, D, dtype=F64, requires_grad=True)
    g = torch.randn(V, D, dtype=F64)
    torch_adjoint, = torch.autograd.grad(aten.embedding_dense_backward(dy, T, V, -1, True), dy, g)
    exact, = torch.autograd.grad(exact_embedding_backward(dy, -1, True), dy, g)
    assert torch.allclose((aten.embedding_dense_backward(dy, T, V, -1, True) * g).sum(), (dy * exact).sum())
    assert not torch.allclose(torch_adjoint, exact)
