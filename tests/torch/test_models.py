"""The reference models themselves: torchvision's sizes, and the replayed dropout. The
training-step tests are in `test_model_<name>.py`, one file per model."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import models
from step_reference import DropoutMasks


def test_reference_models_have_torchvisions_sizes():
    """The local definitions hold torchvision's parameter and buffer counts (torchvision 0.2x,
    `sum(p.numel() for p in m.parameters())`, `len(list(m.named_buffers()))`)."""
    sizes = {
        "resnet18": (11_689_512, 62, 60),
        "mobilenet_v2": (3_504_872, 158, 156),
        "vgg11_bn": (132_868_840, 38, 24),
    }
    for name, (numel, params, buffers) in sizes.items():
        model = models.build(name, torch.float32)
        assert sum(p.numel() for p in model.parameters()) == numel, name
        assert len(list(model.named_parameters())) == params, name
        assert len(list(model.named_buffers())) == buffers, name


def test_replayed_dropout_is_pytorchs_dropout():
    """`DropoutMasks` computes what `native_dropout` does with that mask: `x * mask * scale`,
    scale = 1 / (1 - p), and autograd's dx = dy * mask * scale (a 0/1 mask product is exact,
    so the order of the two products does not matter)."""
    x = torch.randn(4, 7, dtype=torch.float64, requires_grad=True)
    masks = DropoutMasks(seed=3)
    with masks.applied():
        y = F.dropout(x, 0.3, True)
    (y * torch.arange(28.0, dtype=torch.float64).reshape(4, 7)).sum().backward()
    keep = masks.masks[0].to(torch.float64)
    assert 0 < keep.sum() < 28
    scale = 1.0 / (1.0 - 0.3)                       # ATen's native_dropout scale, 1 / (1 - p)
    torch.testing.assert_close(y, x * keep * scale, rtol=0, atol=0)
    torch.testing.assert_close(x.grad, torch.arange(28.0, dtype=torch.float64).reshape(4, 7) * keep * scale,
                               rtol=0, atol=0)


def test_every_named_model_has_its_step_test():
    """A model the issue names is checked in its own file, `test_model_<name>.py`."""
    from pathlib import Path

    here = Path(__file__).parent
    assert [name for name in models.NAMED_MODELS if not (here / f"test_model_{name}.py").exists()] == []
