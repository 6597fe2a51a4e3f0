"""The check of a whole training step, shared by the per-model test files
(`test_model_<name>.py`, one file per model so that the suite's workers, a file each, run
the models side by side).

For a model of `models.py` (1000 classes, training mode, batch 2, 3x64x64, cross-entropy),
in f32 or f64: export with `export_training_step(model, (x, target), loss_fn=F.cross_entropy)`,
compile, run, and compare the loss, every parameter gradient and every updated buffer with
PyTorch eager's `loss.backward()` by `oracle.assert_step_matches` (the rule and its
measurement are in its docstring): f64 within 1e-9 relative L2 per tensor of PyTorch's f64
step; f32 against that same f64 step, within 1e-4 or M times PyTorch f32's own error.

The f32 floor is the worst of three of PyTorch's own f32 implementations (default,
channels_last, mkldnn disabled), on the same f32-valued weights and inputs. Dropout masks
are arguments of our step: PyTorch's dropouts draw them once (`step_reference.DropoutMasks`)
and every run, ours included, uses the same ones.
"""


from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import models
from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step, named_step_inputs

rlx_torch = pytest.importorskip("rlx_mlir.torch")

DTYPES = {"f32": torch.float32, "f64": torch.float64}
NUMPY = {torch.float32: np.float32, torch.float64: np.float64}


@functools.lru_cache(maxsize=1)
def pytorch_steps(name: str, masks_type: type[DropoutMasks] = DropoutMasks, size: int = 64):
    """(x, target, masks, PyTorch's f64 step, [PyTorch's f32 steps]) of model `name`, seed 0.

    Cached for one model at a time: the f32 and f64 tests of a model share it, and VGG-11's
    steps (130M parameters) are not kept while the next model runs.
    """
    m32 = models.build(name, torch.float32)
    x, target = named_step_inputs(m32, size=size, classes=models.num_classes(m32))
    masks = masks_type()
    ref = eager_step(m32.double(), x.double(), target, masks=masks)
    m32 = models.build(name, torch.float32)
    f32 = [eager_step(m32, x, target, masks=masks), eager_step(m32, x, target, masks=masks, channels_last=True)]
    with torch.backends.mkldnn.flags(enabled=False):
        f32.append(eager_step(m32, x, target, masks=masks))
    return x, target, masks, ref, f32


def our_step(name: str, dtype: torch.dtype, x, target, masks: DropoutMasks) -> dict[str, np.ndarray]:
    model = models.build(name, dtype)
    x = x.to(dtype)
    step = rlx_torch.export_training_step(model, (x, target), loss_fn=F.cross_entropy)
    assert [tuple(m.shape) for m in step.masks] == [tuple(m.shape) for m in masks.masks], (
        "the step's random masks are not PyTorch's random ops in call order"
    )
    loss, grads, buffers = step.compile()(x, target, masks=masks.for_step(NUMPY[dtype]))
    out = {"loss": np.asarray(loss)}
    out.update({f"grad/{k}": np.asarray(v) for k, v in grads.items()})
    out.update({f"buffer/{k}": np.asarray(v) for k, v in buffers.items()})
    return out



def check_training_step(name: str, dtype: str) -> None:
    x, target, masks, ref, f32 = pytorch_steps(name)
    ours = our_step(name, DTYPES[dtype], x, target, masks)
    assert_step_matches(ours, ref, f32, NUMPY[DTYPES[dtype]], label=f"{name} {dtype}")
