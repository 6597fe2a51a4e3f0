"""PyTorch eager's training step, the oracle of the model tests: loss, gradients, updated buffers.

`eager_step` runs `loss_fn(model(x), target).backward()` on a private copy of the model, so
the caller's model (its weights and its batch-norm running statistics) is left as it was,
and returns NumPy arrays keyed as `export_training_step`'s result is:
`{"loss": ..., "grad/<parameter name>": ..., "buffer/<buffer name>": ...}`.

Dropout draws its masks from PyTorch's global generator. `eager_step` seeds it right before
the forward pass, so two steps of the same model in f32 and f64 (or ours and PyTorch's,
given the masks PyTorch drew) see the same masks: `torch.bernoulli_` draws the same bits for
a float32 and a float64 tensor of one shape from one seed (checked in `test_models.py`).
"""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F

DROPOUT_SEED = 1234


def step_tensors(loss, model: torch.nn.Module) -> dict[str, np.ndarray]:
    """The step's results of `model` after `loss.backward()`, flattened into one dict."""
    out = {"loss": loss.detach().cpu().numpy()}
    for name, p in model.named_parameters():
        grad = p.grad if p.grad is not None else torch.zeros_like(p)
        out[f"grad/{name}"] = grad.detach().cpu().numpy().copy()
    for name, b in model.named_buffers():
        out[f"buffer/{name}"] = b.detach().cpu().numpy().copy()
    return out


def eager_step(model: torch.nn.Module, x: torch.Tensor, target: torch.Tensor, loss_fn=F.cross_entropy,
               *, dropout_seed: int = DROPOUT_SEED, channels_last: bool = False) -> dict[str, np.ndarray]:
    """One eager training step on a copy of `model`; `channels_last` picks PyTorch's other conv layout."""
    model = copy.deepcopy(model).train()
    model.zero_grad(set_to_none=True)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    torch.manual_seed(dropout_seed)
    loss = loss_fn(model(x), target)
    loss.backward()
    return step_tensors(loss, model)


def named_step_inputs(model: torch.nn.Module, batch: int = 2, size: int = 64, classes: int = 1000,
                      seed: int = 0, dtype=torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of standard-normal images (drawn in f32, then cast) and uniform class labels."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, 3, size, size, generator=gen).to(dtype)
    target = torch.randint(0, classes, (batch,), generator=gen)
    return x, target
