"""Importer gaps closed by composing RLX ops, each against PyTorch eager's step
(`test_importer_numerics.check_step`, whose docstring gives the bounds): `constant_pad_nd`
(positive pads, crops, a non-zero fill value; its backward is a crop) and `abs`, whose
backward `dy * sign(x)` needs `sign`, composed from two `threshold_backward`s; and powers
with exponents other than ATen's special ones (integers by repeated squaring, others as
exp(c log x)). No ulp bound is stated for the powers yet: they are held to check_step's
relative-L2 rule only (1e-9 in f64; 1e-4 or 4x PyTorch f32's error in f32)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from test_importer_numerics import check_step


class PadsAndAbs(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(2, 3, 4))

    def forward(self, x):
        padded = F.pad(self.w, (1, 2, 0, 1)).abs().flatten(1)[:, :6]          # zeros around, abs
        cropped = F.pad(self.w, (1, -1, -1, 2), value=0.5).flatten(1)[:, 2:8]   # crop and fill 0.5
        return (padded + cropped) * x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_pad_and_abs_match_pytorch(dtype):
    torch.manual_seed(0)
    x, target = torch.randn(2, 6), torch.tensor([1, 4])
    step, _ = check_step(PadsAndAbs(), x, target, dtype=dtype)
    assert "rlx.slice_backward" in step.mlir


class Powers(nn.Module):
    """Integer powers of a signed parameter (5, -3, and 4 whose backward needs x ** 3), and a
    fractional one of a positive parameter: each power's backward is `c * x ** (c - 1) * dy`."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(2, 6) * 0.8)
        self.u = nn.Parameter(torch.rand(2, 6) + 0.5)

    def forward(self, x):
        return (self.w ** 5 + (self.w + 3.0) ** -3 + self.w ** 4 + self.u ** 1.7 + self.u ** -2.5) * x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_powers_match_pytorch(dtype):
    torch.manual_seed(0)
    x, target = torch.randn(2, 6), torch.tensor([0, 5])
    check_step(Powers(), x, target, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_batch_norm_without_running_stats_matches_pytorch(dtype):
    """`track_running_stats=False`: batch statistics in training mode, no buffers. (No conv bias:
    before a batch norm its gradient is zero in exact arithmetic, ~1e-17 noise in f64.)"""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4, track_running_stats=False), nn.ReLU(), nn.Flatten(1))
    x, target = torch.randn(2, 3, 5, 5), torch.tensor([3, 30])
    check_step(model, x, target, dtype=dtype)
