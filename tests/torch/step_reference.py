"""PyTorch eager's training step, the oracle of the model tests: loss, gradients, updated buffers.

`eager_step` runs `loss_fn(model(x), target).backward()` on a private copy of the model, so
the caller's model (its weights and its batch-norm running statistics) is left as it was,
and returns NumPy arrays keyed as `export_training_step`'s result is:
`{"loss": ..., "grad/<parameter name>": ..., "buffer/<buffer name>": ...}`.

Dropout masks: our compiled step takes each dropout's mask as an argument (in graph order,
which is the order of the forward calls). `eager_step(..., masks=DropoutMasks())` makes
PyTorch's dropouts use explicit masks too: the first step draws them (from a seeded
generator, `keep = rand < 1 - p`) and records them in call order, every later step (the
other dtype, the other f32 implementations, and ours through `masks.for_step()`) replays
the same ones. The replacement computes `x * mask * (1 / (1 - p))`, which is ATen's
`native_dropout` with that mask (forward and, through autograd, backward
`dy * mask * scale`).
"""

from __future__ import annotations

import contextlib
import copy

import numpy as np
import torch
import torch.nn.functional as F

DROPOUT_SEED = 1234


class DropoutMasks:
    """The masks of a model's dropouts, in call order: drawn on the first step, replayed after."""

    def __init__(self, seed: int = DROPOUT_SEED):
        self.masks: list[torch.Tensor] = []
        self.generator = torch.Generator().manual_seed(seed)

    def for_step(self, dtype) -> list[np.ndarray]:
        """The masks as `compiled(..., masks=...)` takes them (0.0 / 1.0 in the step's dtype)."""
        return [m.numpy().astype(dtype) for m in self.masks]

    @contextlib.contextmanager
    def applied(self):
        """Within: `torch.nn.functional.dropout` uses (or draws and records) these masks."""
        original = F.dropout
        calls = iter(range(1 << 30))

        def dropout(x, p=0.5, training=True, inplace=False):
            if not training or p == 0:
                return x
            i = next(calls)
            if i == len(self.masks):
                self.masks.append(torch.rand(x.shape, generator=self.generator) < 1 - p)
            mask = self.masks[i]
            assert tuple(mask.shape) == tuple(x.shape), f"dropout {i}: mask {tuple(mask.shape)} for {tuple(x.shape)}"
            return x * mask.to(x.dtype) * (1.0 / (1.0 - p))

        F.dropout = dropout
        try:
            yield self
        finally:
            F.dropout = original


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
               *, masks: DropoutMasks | None = None, channels_last: bool = False,
               probe=None) -> dict[str, np.ndarray]:
    """One eager training step on a copy of `model`; `channels_last` picks PyTorch's other conv layout.

    Without `masks`, dropout draws from PyTorch's generator seeded with DROPOUT_SEED.
    `probe` (a `near_ties.DecisionProbe`) records, and may perturb, the inputs of the
    step's ReLUs and max pools.
    """
    model = copy.deepcopy(model).train()
    model.zero_grad(set_to_none=True)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    torch.manual_seed(DROPOUT_SEED)
    with masks.applied() if masks is not None else contextlib.nullcontext(), \
            probe.attached(model) if probe is not None else contextlib.nullcontext():
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
