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
channels_last, mkldnn disabled), on the same f32-valued weights and inputs. On top of it
the f32 check allows what the step's near-ties can cost: the distance of PyTorch's f64
step with every ReLU and max-pool decision that f32 rounding may flip taken the other way
(`near_ties`). Dropout masks
are arguments of our step: PyTorch's dropouts draw them once (`step_reference.DropoutMasks`)
and every run, ours included, uses the same ones.
"""


from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import models
from oracle import assert_step_matches
from near_ties import DecisionProbe, near_tie_perturbation
from step_reference import DropoutMasks, eager_step, named_step_inputs

rlx_torch = pytest.importorskip("rlx_mlir.torch")

DTYPES = {"f32": torch.float32, "f64": torch.float64}
NUMPY = {torch.float32: np.float32, torch.float64: np.float64}


class PyTorchSteps(NamedTuple):
    x: torch.Tensor
    target: torch.Tensor
    masks: DropoutMasks
    ref: dict
    """PyTorch's f64 step on the f32-valued weights and inputs: the oracle."""
    f32: list[dict]
    """PyTorch's f32 steps: default, channels_last, mkldnn disabled."""
    flipped: dict
    """PyTorch's f64 step with its near-ties (`near_ties`) taken the other way."""
    near_ties: int
    """How many ReLU and max-pool calls of the step have a near-tie."""


@functools.lru_cache(maxsize=1)
def pytorch_steps(name: str, masks_type: type[DropoutMasks] = DropoutMasks, size: int = 64,
                  input_seed: int = 0) -> PyTorchSteps:
    """PyTorch's steps of model `name`, seed 0, that our step is checked against.

    Cached for one model at a time: the f32 and f64 tests of a model share it, and VGG-11's
    steps (130M parameters) are not kept while the next model runs.
    """
    m32 = models.build(name, torch.float32)
    x, target = named_step_inputs(m32, size=size, classes=models.num_classes(m32), seed=input_seed)
    masks = masks_type()
    m64 = m32.double()
    probe64 = DecisionProbe()
    ref = eager_step(m64, x.double(), target, masks=masks, probe=probe64)
    m32 = models.build(name, torch.float32)
    probes32 = [DecisionProbe() for _ in range(3)]
    f32 = [eager_step(m32, x, target, masks=masks, probe=probes32[0]),
           eager_step(m32, x, target, masks=masks, channels_last=True, probe=probes32[1])]
    with torch.backends.mkldnn.flags(enabled=False):
        f32.append(eager_step(m32, x, target, masks=masks, probe=probes32[2]))
    perturbation, ties = near_tie_perturbation(probe64, probes32)
    flipped = eager_step(m64, x.double(), target, masks=masks, probe=DecisionProbe(perturbation)) if ties else ref
    return PyTorchSteps(x, target, masks, ref, f32, flipped, ties)


def our_step(name: str, dtype: torch.dtype, x, target, masks: DropoutMasks) -> dict[str, np.ndarray]:
    return imported_step(models.build(name, dtype), dtype, x.to(dtype), target, masks)


def imported_step(model, dtype: torch.dtype, x, target, masks: DropoutMasks, loss_fn=F.cross_entropy,
                  **export_options) -> dict[str, np.ndarray]:
    """Our step of `model` (already in `dtype`), run on PyTorch's dropout masks, keyed as `eager_step`'s."""
    step = rlx_torch.export_training_step(model, (x, target), loss_fn=loss_fn, **export_options)
    assert step.mask_shapes(x.shape[0]) == [tuple(m.shape) for m in masks.masks], (
        "the step's random masks are not PyTorch's random ops in call order"
    )
    loss, grads, buffers = step.compile()(x, target, masks=masks.for_step(NUMPY[dtype]))
    out = {"loss": np.asarray(loss)}
    out.update({f"grad/{k}": np.asarray(v) for k, v in grads.items()})
    out.update({f"buffer/{k}": np.asarray(v) for k, v in buffers.items()})
    return out



def check_training_step(name: str, dtype: str) -> None:
    steps = pytorch_steps(name)
    check_against(steps, our_step(name, DTYPES[dtype], steps.x, steps.target, steps.masks), name, dtype)


def check_against(steps: PyTorchSteps, ours: dict, name: str, dtype: str) -> None:
    """`oracle.assert_step_matches`; in f32 with the near-ties' cost (f64 rounding makes no such flips)."""
    flipped = steps.flipped if dtype == "f32" else None
    assert_step_matches(ours, steps.ref, steps.f32, NUMPY[DTYPES[dtype]], flipped=flipped,
                        label=f"{name} {dtype} ({steps.near_ties} decision calls with near-ties)")


def check_cnn_step(model, dtype: torch.dtype, x, target, label: str, **export_options) -> None:
    """Our step of a small CNN (no dropout, cross-entropy) against PyTorch's f64 step and its
    default and channels_last f32 steps, on `model`'s f32-valued weights and `x`."""
    masks = DropoutMasks()
    want64 = eager_step(model.double(), x.double(), target, masks=masks)
    want32 = [eager_step(model.float(), x.float(), target, masks=masks),
              eager_step(model.float(), x.float(), target, masks=masks, channels_last=True)]
    ours = imported_step(model.to(dtype).train(), dtype, x.to(dtype), target, masks, **export_options)
    assert_step_matches(ours, want64, want32, NUMPY[dtype], label=f"{label} {dtype}")


def seeded_cnn_and_batch(build, size: int, classes: int):
    """`build()` under seed 0, and a batch of 2 images of `size` with labels of `classes`."""
    torch.manual_seed(0)
    model = build()
    return (model, *named_step_inputs(model, size=size, classes=classes))
