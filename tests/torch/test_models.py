"""Whole training steps of torchvision models, imported, compiled and run, against PyTorch eager.

For ResNet-18, MobileNetV2 and VGG-11-BN as torchvision defines them (`models.py`; 1000
classes, training mode, batch 2, 3x64x64, cross-entropy), in f32 and in f64, and for two
models not named in the issue built from the shared note's ops only: export with
`export_training_step(model, (x, target), loss_fn=F.cross_entropy)`, compile, run, and
compare the loss, every parameter gradient and every updated buffer with PyTorch eager's
`loss.backward()` by `oracle.assert_step_matches` (the rule and its measurement are in its
docstring): f64 within 1e-9 relative L2 per tensor of PyTorch's f64 step; f32 against that
same f64 step, within 1e-4 or M times PyTorch f32's own error.

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
def pytorch_steps(name: str):
    """(x, target, masks, PyTorch's f64 step, [PyTorch's f32 steps]) of model `name`, seed 0.

    Cached for one model at a time: the f32 and f64 tests of a model share it, and VGG-11's
    steps (130M parameters) are not kept while the next model runs.
    """
    m32 = models.build(name, torch.float32)
    x, target = named_step_inputs(m32, classes=models.num_classes(m32))
    masks = DropoutMasks()
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
        "the step's dropout masks are not PyTorch's dropouts in call order"
    )
    loss, grads, buffers = step.compile()(x, target, masks=masks.for_step(NUMPY[dtype]))
    out = {"loss": np.asarray(loss)}
    out.update({f"grad/{k}": np.asarray(v) for k, v in grads.items()})
    out.update({f"buffer/{k}": np.asarray(v) for k, v in buffers.items()})
    return out


ALL_MODELS = [
    pytest.param(
        name,
        marks=pytest.mark.xfail(
            raises=Warning, strict=False,
            reason="known: the optimizing-omp mlir-opt stage exceeds its time limit on this net's kernel "
            "library (the transform schedules on ~160 kernels, measured 135 s under load) and the build "
            "falls back to 'o3', which the suite treats as an error",
        ),
    ) if name == "mixed_activation_net" else name
    for name in (*models.NAMED_MODELS, *models.OTHER_MODELS)
]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", ALL_MODELS, ids=str)
def test_training_step_matches_pytorch(name, dtype):
    x, target, masks, ref, f32 = pytorch_steps(name)
    ours = our_step(name, DTYPES[dtype], x, target, masks)
    assert_step_matches(ours, ref, f32, NUMPY[DTYPES[dtype]], label=f"{name} {dtype}")


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
