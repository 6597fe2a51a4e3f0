"""`as_strided` and `as_strided_scatter` against PyTorch: the views RLX's layout ops express.

ConvNeXt's head is where torchvision models produce them (a [N, C, 1, 1] mean re-strided
to the channels-last strides of its input, and in the backward a flat zero buffer written
through a [N, C] view and read back as [N, C, 1, 1]). Here a parameter goes through every
form the importer maps (a transposing view, a window at an offset, a broadcast of stride
0) and the loss's backward writes each one back through `as_strided_scatter`; the step is
compared with PyTorch eager's by `test_importer_numerics.check_step` (its docstring gives
the bounds). Views RLX cannot express (overlapping windows) are refused by name.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from rlx_mlir.torch import UnsupportedGraph, export_training_step
from test_importer_numerics import check_step


class StridedViews(nn.Module):
    """logits = x @ w^T-as-a-view + x @ window(w) (offset 8) + a stride-0 broadcast row of w."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 4))

    def forward(self, x):
        flat = self.w.flatten()
        transposed = torch.as_strided(self.w, (4, 6), (1, 4))                  # w.t()
        window = torch.as_strided(flat, (4, 4), (1, 4), 8)                      # rows 2..5 of w, transposed
        broadcast = torch.as_strided(flat, (2, 4), (0, 1), 4)                   # row 1 of w, twice
        return torch.cat([x @ transposed, x @ window], 1) + (x * broadcast).sum(1, keepdim=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_strided_views_match_pytorch(dtype):
    torch.manual_seed(0)
    x, target = torch.randn(2, 4), torch.tensor([3, 7])
    step, _ = check_step(StridedViews(), x, target, dtype=dtype)
    assert "as_strided" not in step.mlir


class OverlappingWindows(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8))

    def forward(self, x):
        return x + torch.as_strided(self.w, (2, 3, 4), (0, 2, 1)).sum(0)      # windows overlap (stride 2 < 4)


def test_overlapping_as_strided_is_refused():
    with pytest.raises(UnsupportedGraph, match=r"as_strided with size \(2, 3, 4\), stride \(0, 2, 1\): not a dense view"):
        export_training_step(OverlappingWindows().double(), (torch.randn(3, 4, dtype=torch.float64),
                                                             torch.tensor([0, 1, 2])))
