"""PyTorch's side of the scans: the recurrence written as a Python loop over the steps.

A loop of `narrow`, multiply, add and `cat` is what a PyTorch user writes for a
state-space recurrence, and autograd differentiates it to any order; it is the oracle the
numeric and the autodiff tests share.
"""

from __future__ import annotations

import torch


def linear_scan(a: torch.Tensor, x: torch.Tensor, dim: int, reverse: bool = False) -> torch.Tensor:
    """h[t] = a[t] * h[t-1] + x[t] along `dim`, h[-1] = 0 (reverse: from the last step, h[T] = 0)."""
    length = x.shape[dim]
    steps = range(length - 1, -1, -1) if reverse else range(length)
    h = torch.zeros_like(x.narrow(dim, 0, 1))
    out = [None] * length
    for t in steps:
        h = a.narrow(dim, t, 1) * h + x.narrow(dim, t, 1)
        out[t] = h
    return torch.cat(out, dim)
