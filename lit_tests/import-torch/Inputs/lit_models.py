"""Models the import-torch lit tests import (`rlx-import-torch lit_models:NAME`)."""

import torch
import torch.nn as nn


def conv_pool():
    """conv (with bias) -> max pool 3x3 s2 p1 -> flatten: the classifier's logits."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.MaxPool2d(3, 2, 1), nn.Flatten())


def cumsum():
    class Scan(nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 1).flatten(1)

    return Scan()
