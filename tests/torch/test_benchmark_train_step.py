"""The training-step benchmark's correctness check (`benchmarks.train_step`): PyTorch's
dropouts replay the masks our step drew, so a model with dropout compares like one
without (before, MobileNetV2's check at 224x224 differed in the loss by 5e-4, each side
having drawn its own masks)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
rlx_torch = pytest.importorskip("rlx_mlir.torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.train_step import _eager_step, _replaying_dropouts  # noqa: E402


def test_pytorch_replays_the_dropout_masks_our_step_drew():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(12, 16), torch.nn.Dropout(0.5), torch.nn.ReLU(),
        torch.nn.Dropout(0.25), torch.nn.Linear(16, 5),
    ).double().train()
    x = torch.randn(4, 3, 2, 2, dtype=torch.float64)
    target = torch.randint(0, 5, (4,))
    step = rlx_torch.export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy)
    assert [m.kind for m in step.masks] == ["dropout", "dropout"]
    compiled = step.compile()
    loss, grads, _ = compiled(x, target)
    masks = [compiled.last_masks[m.name] for m in step.masks]
    assert all(0 < m.mean() < 1 for m in masks)  # both masks drop some cells and keep some

    with _replaying_dropouts(torch, masks):
        want = _eager_step(torch, model, x, target)()
    np.testing.assert_allclose(float(loss), want.item(), rtol=1e-12)
    for name, p in model.named_parameters():
        np.testing.assert_allclose(grads[name], p.grad.numpy(), rtol=1e-10, atol=1e-14, err_msg=name)
    # Outside the block PyTorch draws its own masks again.
    assert torch.nn.functional.dropout.__module__ == "torch.nn.functional"
