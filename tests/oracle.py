"""Comparison with the oracle (PyTorch autograd, CPU) at tolerances fit for each dtype."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

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


def max_pool_every_tie_grad(x: torch.Tensor, dy: torch.Tensor, kernel, stride, padding) -> torch.Tensor:
    """pool-ties=all's rule (RLX's fast path): dx = sum over windows of dy * (x == window max).

    Independent of the code under test: the window max is PyTorch's max_pool2d output, the
    windows come from unfold over the -inf padded input, and fold sums their shares. Every
    size is spelled out (no `view(..., -1)`), so an empty batch gives an empty gradient:
    the `-1` of a view of zero elements is ambiguous and raised at N=0.
    """
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    (kh, kw), (sh, sw), (ph, pw) = pair(kernel), pair(stride), pair(padding)
    n, c, h, w = x.shape
    y = F.max_pool2d(x, (kh, kw), (sh, sw), (ph, pw))
    windows = y.shape[2] * y.shape[3]
    xpad = F.pad(x, (pw, pw, ph, ph), value=float("-inf"))
    cols = F.unfold(xpad, (kh, kw), stride=(sh, sw)).reshape(n, c, kh * kw, windows)
    hits = (cols == y.reshape(n, c, 1, windows)).to(x.dtype)
    share = (hits * dy.reshape(n, c, 1, windows)).reshape(n, c * kh * kw, windows)
    dxpad = F.fold(share, (h + 2 * ph, w + 2 * pw), (kh, kw), stride=(sh, sw))
    return dxpad[:, :, ph:ph + h, pw:pw + w]
