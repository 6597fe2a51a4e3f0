"""Comparison with the oracle (PyTorch autograd, CPU) at tolerances fit for each dtype."""

from __future__ import annotations

import numpy as np
import torch

TOLERANCES = {
    np.dtype(np.float64): dict(rtol=1e-9, atol=1e-9),
    np.dtype(np.float32): dict(rtol=2e-4, atol=2e-4),
    np.dtype(np.float16): dict(rtol=2e-2, atol=2e-2),
}

MLIR_ELEMENT = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.float16): "f16"}


def assert_close(got, want, dtype=None) -> None:
    """`got` (NumPy, ours) against `want` (torch or NumPy, the oracle)."""
    if isinstance(want, torch.Tensor):
        want = want.detach().cpu().numpy()
    dtype = np.dtype(dtype or want.dtype)
    assert got.shape == want.shape, f"shape {got.shape} != oracle {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != oracle {want.dtype}"
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    tol = TOLERANCES[dtype]
    np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"] * scale)


def tensor_type(shape, dtype, dynamic_batch: bool = False) -> str:
    dims = ["?" if (dynamic_batch and i == 0) else str(d) for i, d in enumerate(shape)]
    return f"tensor<{'x'.join(dims)}x{MLIR_ELEMENT[np.dtype(dtype)]}>"
