"""A ResNet-style CNN with GroupNorm: its training step imported from PyTorch, against PyTorch eager.

The model is torchvision's ResNet built with `norm_layer=lambda c: nn.GroupNorm(8, c)` (the
usual way to train a ResNet at small batch sizes), at a small width and depth: a 3x3 stem
of 16 channels with GroupNorm, ReLU and max pool, then two of torchvision's BasicBlocks
(`models.BasicBlock`, unchanged), 16 -> 16 and 16 -> 32 with stride 2 and a 1x1
downsample with its own GroupNorm, global average pooling and a linear head. GroupNorm
keeps no running statistics, so the step has no buffers; its gradient is PyTorch's own
`native_group_norm_backward`, which the importer keeps whole as `rlx.group_norm_backward`
(checked on the emitted module).

The comparison is `oracle.assert_step_matches`: in f64 within 1e-9 of PyTorch's f64 step,
in f32 against PyTorch's f64 step with a multiple of PyTorch f32's own error.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from model_steps import check_cnn_step, seeded_cnn_and_batch
from models import BasicBlock, conv1x1

rlx_torch = pytest.importorskip("rlx_mlir.torch")

GROUPS, WIDTH, SIZE, CLASSES = 8, 16, 16, 10


def group_norm(channels: int) -> nn.GroupNorm:
    return nn.GroupNorm(GROUPS, channels)


class GroupNormResNet(nn.Module):
    """A two-block torchvision ResNet with `norm_layer=group_norm` (module docstring)."""

    def __init__(self, width: int = WIDTH, num_classes: int = CLASSES):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = group_norm(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = BasicBlock(width, width, norm_layer=group_norm)
        downsample = nn.Sequential(conv1x1(width, 2 * width, stride=2), group_norm(2 * width))
        self.layer2 = BasicBlock(width, 2 * width, stride=2, downsample=downsample, norm_layer=group_norm)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(2 * width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.GroupNorm):
                # Not torchvision's constant 1 and 0: random affine parameters make every
                # term of the GroupNorm gradient count.
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.5, 0.5)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def model_and_batch():
    return seeded_cnn_and_batch(GroupNormResNet, SIZE, CLASSES)


def test_group_norm_backward_is_kept_whole():
    model, x, target = model_and_batch()
    step = rlx_torch.export_training_step(model.double(), (x.double(), target), loss_fn=F.cross_entropy)
    norms = sum(isinstance(m, nn.GroupNorm) for m in model.modules())
    assert step.mlir.count("rlx.group_norm_backward") == norms
    assert step.mlir.count("rlx.group_norm ") == norms


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_group_norm_resnet_step_matches_pytorch(dtype):
    model, x, target = model_and_batch()
    check_cnn_step(model, dtype, x, target, label="group-norm resnet")
