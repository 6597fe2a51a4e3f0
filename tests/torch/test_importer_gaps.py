"""Importer gaps of issue 15 closed by composing RLX ops, each against PyTorch eager's step
(`test_importer_numerics.check_step`, whose docstring gives the bounds): `constant_pad_nd`
(positive pads, crops, a non-zero fill value; its backward is a crop) and `abs`, whose
backward `dy * sign(x)` needs `sign`, composed from two `threshold_backward`s."""

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
