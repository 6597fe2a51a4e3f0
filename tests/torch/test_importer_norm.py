"""Group norm and eval-mode batch norm through the importer, against PyTorch eager's step.

`native_group_norm` and `native_group_norm_backward` are kept whole (`rlx.group_norm`,
`rlx.group_norm_backward`), and so is the gradient of a batch norm in `model.eval()`
(`native_batch_norm_backward(train=False)`, `rlx.batch_norm_inference_backward`): a
pretrained net fine-tuned with its batch-norm statistics frozen. The comparison is
`test_importer_numerics.check_step`'s (relative L2 per tensor: 1e-9 in f64; in f32 1e-4
of PyTorch's f64 step, or 4x PyTorch f32's own error).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from rlx_mlir.dialects import rlx
from rlx_mlir.torch import export_training_step
from test_importer_numerics import check_step

DTYPES = pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])


class ConvNorm(nn.Module):
    """conv -> norm -> relu -> conv -> norm -> linear head on every feature (not pooled:
    a per-channel norm without affine, then a channel mean, would feed the head zeros)."""

    def __init__(self, norm):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), norm(8), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), norm(8),
            nn.Flatten(), nn.Linear(8 * 6 * 6, 5),
        )

    def forward(self, x):
        return self.body(x)


def _inputs(seed=0):
    torch.manual_seed(seed)
    return torch.randn(2, 3, 6, 6), torch.randint(0, 5, (2,))


def _ops(step) -> set[str]:
    return {op.name for op in step.module.walk()}


def _pretrained_batch_norms(model):
    """Running statistics away from their initial (0, 1), as a pretrained net has them."""
    generator = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=generator))
            m.running_var.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
            m.weight.data.copy_(torch.randn(m.num_features, generator=generator))
    return model


@DTYPES
def test_conv_group_norm_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    model = ConvNorm(lambda c: nn.GroupNorm(4, c))
    step, _ = check_step(model, *_inputs(), dtype=dtype)
    assert {rlx.GroupNormOp.name, rlx.GroupNormBackwardOp.name} <= _ops(step)


@DTYPES
def test_group_norm_without_affine_matches_pytorch(dtype):
    """Two groups: with one channel per group the conv bias's gradient would be exactly 0
    (the norm removes a per-channel constant), which a relative error cannot judge."""
    torch.manual_seed(0)
    model = ConvNorm(lambda c: nn.GroupNorm(2, c, affine=False))
    step, _ = check_step(model, *_inputs(), dtype=dtype)
    assert rlx.GroupNormBackwardOp.name in _ops(step)


@DTYPES
def test_frozen_batch_norm_fine_tuning_step_matches_pytorch(dtype):
    """model.eval() with trainable parameters: the gradient through the frozen statistics."""
    torch.manual_seed(0)
    model = _pretrained_batch_norms(ConvNorm(nn.BatchNorm2d))
    step, _ = check_step(model, *_inputs(), dtype=dtype, train=False)
    ops = _ops(step)
    assert rlx.BatchNormInferenceBackwardOp.name in ops and rlx.BatchNormBackwardOp.name not in ops


def test_frozen_batch_norm_without_affine_matches_pytorch():
    torch.manual_seed(0)
    model = ConvNorm(lambda c: nn.BatchNorm2d(c, affine=False))
    check_step(model, *_inputs(), train=False)
