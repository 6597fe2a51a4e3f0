"""An nn.Embedding + nn.Linear training step, imported from PyTorch, against PyTorch eager.

The step exports `aten.embedding` and `aten.embedding_dense_backward` (with a padding row,
the frequency scaling and repeated tokens); the loss and every parameter gradient are
compared by the relative L2 error, within 1e-9 in f64 (tests/torch/test_importer_numerics.py's
bound; the ops add and gather only).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from rlx_mlir.torch import export_training_step

F64_BOUND = 1e-9


class Bag(nn.Module):
    """Tokens [B, T] -> embeddings [B, T, D] -> mean over T -> logits."""

    def __init__(self, padding_idx, scale_grad_by_freq):
        super().__init__()
        self.embed = nn.Embedding(7, 4, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
        self.head = nn.Linear(4, 3)

    def forward(self, tokens):
        return self.head(self.embed(tokens).mean(1))


def relative_l2(got, want) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = np.linalg.norm(want)
    return float(np.linalg.norm(got - want) / scale) if scale > 0 else float(np.linalg.norm(got))


@pytest.mark.parametrize("padding_idx, scale", [(None, False), (0, True)], ids=["plain", "pad0_freq"])
def test_embedding_linear_step_matches_pytorch(padding_idx, scale):
    torch.manual_seed(0)
    model = Bag(padding_idx, scale).to(torch.float64).train()
    tokens = torch.tensor([[1, 3, 1, 0], [5, 3, 3, 2]])
    target = torch.tensor([2, 0])
    step = export_training_step(model, (tokens, target), loss_fn=F.cross_entropy)
    loss, grads, _ = step.compile()(tokens, target)
    eager = copy.deepcopy(model)
    want_loss = F.cross_entropy(eager(tokens), target)
    want_loss.backward()
    assert relative_l2(loss, want_loss.detach().numpy()) <= F64_BOUND
    for name, p in eager.named_parameters():
        error = relative_l2(grads[name], p.grad.numpy())
        assert error <= F64_BOUND, f"{name}: relative L2 error {error:.3g}"
