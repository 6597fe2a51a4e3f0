"""The blocked layouts of :mod:`.kernels` for NumPy arrays, for the tests and the benchmark
(the ``*_blocked`` functions take and return these). Channels that the block does not
divide are padded with zeros, as `linalg.pack`'s padding value does."""

from __future__ import annotations

import numpy as np


def _pad_axis(a: np.ndarray, axis: int, block: int) -> np.ndarray:
    extra = -a.shape[axis] % block
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, extra)
    return np.pad(a, widths)


def block_activation(a: np.ndarray, block: int) -> np.ndarray:
    """a[n, c, h, w] as [n, c/B, h, w, B]."""
    a = _pad_axis(a, 1, block)
    n, c, h, w = a.shape
    return np.ascontiguousarray(a.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def unblock_activation(a: np.ndarray, channels: int) -> np.ndarray:
    """[n, c/B, h, w, B] back to [n, channels, h, w]."""
    n, cb, h, w, b = a.shape
    return np.ascontiguousarray(a.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w)[:, :channels])


def block_weight(w: np.ndarray, block: int) -> np.ndarray:
    """w[f, c, kh, kw] as [f/B, c/B, kh, kw, Bc, Bf] (forward and weight gradient)."""
    w = _pad_axis(_pad_axis(w, 0, block), 1, block)
    f, c, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(f // block, block, c // block, block, kh, kw).transpose(0, 2, 4, 5, 3, 1))


def unblock_weight(w: np.ndarray, filters: int, channels: int) -> np.ndarray:
    """[f/B, c/B, kh, kw, Bc, Bf] back to [filters, channels, kh, kw]."""
    fb, cb, kh, kw, b, _ = w.shape
    return np.ascontiguousarray(w.transpose(0, 5, 1, 4, 2, 3).reshape(fb * b, cb * b, kh, kw)[:filters, :channels])


def block_weight_for_input(w: np.ndarray, block: int) -> np.ndarray:
    """w[f, c, kh, kw] as the input gradient's [c/B, f/B, kh, kw, Bf, Bc], kernel flipped."""
    flipped = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    return block_weight(np.ascontiguousarray(flipped), block)
