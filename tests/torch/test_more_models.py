"""The other torchvision classification models of the shared note's twelve, against PyTorch eager.

The front end's promise: "any classification model whose ops all appear in the shared note's table must
import, compile and match, in f32 and f64. Models not named here will be tried." These are
torchvision's resnet50, googlenet, densenet121, mobilenet_v3_small, efficientnet_b0,
regnet_y_400mf, shufflenet_v2_x0_5 and convnext_tiny as its builders make them
(`models.MORE_MODELS`; 1000 classes, training mode), at batch 2 and 3x64x64, the size of
the named models' tests. Not 32x32, although every one of them accepts it: there the last
stage of each net is 1x1, its batch norms normalise over 2 values, and the step is
chaotic. Measured on ResNet-50 at 32x32: |grad conv1.weight| = 1.0e10, and PyTorch's own
f64 default and channels_last steps differ by 8.1e-5 relative (1.3e-12 at 64x64), so no
f64 implementation can meet 1e-9 there (ours: 3.3e-4). Each step is
exported with `export_training_step(model, (x, target), loss_fn=F.cross_entropy)`,
compiled, run, and its loss, parameter gradients and updated buffers compared with PyTorch
eager's `loss.backward()` by `oracle.assert_step_matches` (the rule and its measurement are
in its docstring), as `test_models.py` does for the three named models.

Random ops: our step takes every mask as an argument, in graph order (dropout, in-place
dropout, whose ATen form is `bernoulli`, and stochastic depth's `noise.bernoulli_`).
`RandomMasks` makes PyTorch's eager runs draw them once, in call order, and replay them in
every later run; ours gets the same ones.
"""

from __future__ import annotations

import contextlib

import pytest
import torch
import torch.nn.functional as F

import models
from asked_for import when_asked
from model_steps import DTYPES, check_against, our_step, pytorch_steps
from step_reference import DropoutMasks

IMAGE_SIZE = 64


class RandomMasks(DropoutMasks):
    """`DropoutMasks` for `F.dropout` and `Tensor.bernoulli_` (stochastic depth), in one call order.

    Dropout computes `x * keep * (1 / (1 - p))` as `DropoutMasks` does, the in-place one
    included (its ATen form, `bernoulli(1 - p)` then a division, takes the same keep mask);
    `bernoulli_(p)` fills the tensor with the recorded mask, 1 with probability p (`rand < p`).
    """

    @contextlib.contextmanager
    def applied(self):
        original_dropout, original_bernoulli = F.dropout, torch.Tensor.bernoulli_
        calls = iter(range(1 << 30))

        def mask(shape, p_one: float) -> torch.Tensor:
            i = next(calls)
            if i == len(self.masks):
                self.masks.append(torch.rand(shape, generator=self.generator) < p_one)
            assert tuple(self.masks[i].shape) == tuple(shape), f"random op {i}: mask {tuple(self.masks[i].shape)}"
            return self.masks[i]

        def dropout(x, p=0.5, training=True, inplace=False):
            if not training or p == 0:
                return x
            return x * mask(x.shape, 1 - p).to(x.dtype) * (1.0 / (1.0 - p))

        def bernoulli_(tensor, p=0.5, *, generator=None):
            with torch.no_grad():
                return tensor.copy_(mask(tensor.shape, p).to(tensor.dtype))

        F.dropout, torch.Tensor.bernoulli_ = dropout, bernoulli_
        try:
            yield self
        finally:
            F.dropout, torch.Tensor.bernoulli_ = original_dropout, original_bernoulli


# Measured on this 2-core machine (shared, loaded), one f64 test each: resnet50 and googlenet
# about 7 min, convnext_tiny 4 min, efficientnet_b0 149 s, mobilenet_v3_small 115 s,
# regnet_y_400mf 98 s, shufflenet_v2_x0_5 63 s; densenet121's export alone 111 s. The f64
# set is about 25 min, the f32 set about 18 min: more than the whole suite's budget, so
# the steps run only when asked for (RLX_MLIR_MODEL_TESTS=1); the copies' sizes always run.
# The six f64 steps that ran pass. convnext_tiny passes in f64 (170 s) and f32 (68 s) since
# transpose.mlir's fix for NHWC -> NCHW blocks; before it, two of its permute kernels ran
# mlir-opt past the stage limit and the step fell back to 'o3', which the suite treats as
# an error. densenet121 passes in f64 (239 s) and f32 (454 s, export included). f32, also
# passing: efficientnet_b0 112 s, mobilenet_v3_small 92 s, regnet_y_400mf 78 s,
# shufflenet_v2_x0_5 48 s, googlenet 138 s, resnet50 67 s (this Zen 3, quiet): every
# model here matches in both dtypes.


@when_asked("about 25 min for the f64 steps alone on 2 cores (measured, see above)")
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(models.MORE_MODELS), ids=str)
def test_training_step_matches_pytorch(name, dtype):
    steps = pytorch_steps(name, RandomMasks, IMAGE_SIZE)
    check_against(steps, our_step(name, DTYPES[dtype], steps.x, steps.target, steps.masks), name, dtype)


def test_copies_hold_torchvisions_parameter_counts():
    """Each copy has the `num_params` of torchvision's weights metadata for its builder."""
    for name, numel in models.TORCHVISION_SIZES.items():
        assert sum(p.numel() for p in models.build(name, torch.float32).parameters()) == numel, name
