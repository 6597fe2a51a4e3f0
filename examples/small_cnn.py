"""A small CNN for `rlx-import-torch examples.small_cnn:small_cnn ...` (see README)."""

import torch
from torch import nn


def small_cnn(num_classes: int = 10) -> nn.Module:
    """conv, batch norm, ReLU, max pool, adaptive average pool, linear: a classifier."""
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, num_classes),
    )
