"""A CNN trained with quantization-aware training: its training step imported from PyTorch,
against PyTorch eager.

The fake quantization is placed by hand, as `torch.ao.quantization`'s FakeQuantize modules
place it once calibrated (observers off): every conv and linear weight is fake-quantized
per output channel to int8 (`fake_quantize_per_channel_affine`, symmetric, scale [C] f32
and zero point [C] int32 as ATen takes them, the scale from a percentile that clips the
largest tenth of each channel), every activation after a ReLU per tensor to uint8
(`fake_quantize_per_tensor_affine`, zero point 0, fixed ranges that clip some of them),
and the input per tensor with a zero point of 128. FakeQuantize itself does not export
(its `if self.observer_enabled[0] == 1` is data-dependent control flow to torch.export),
which is why the modules are written out.

The importer keeps the fake quantizations whole (`rlx.fake_quantize`,
`rlx.fake_quantize_per_channel`) and their gradients too (`rlx.ste_backward` clipped,
`rlx.fake_quantize_per_channel_backward`), checked on the emitted module. The comparison is
`oracle.assert_step_matches` on the same weights and images: f64 within 1e-9 of PyTorch's
f64 step, f32 against PyTorch's f64 step by the multiple of PyTorch f32's own error. (In
f64, ATen's per-tensor kernel still rounds y to f32, which RLX's op does too.)
The default export gives that step a dynamic batch: ATen's fake quantizations have no
kernel for a symbolic size, and the export registers their shapes while it traces
(`rlx_mlir.torch.fake_kernels`).

Then the model as users write it: `PreparedNet` through `torch.ao.quantization.prepare_qat`
under x86's default QAT config (eager-mode QAT: `FusedMovingAvgObsFakeQuantize` modules,
per-channel symmetric int8 weights, uint8 activations with reduce_range). Its fused
observer exports as `_fused_moving_avg_obs_fq_helper_functional`, which computes the grid
in the step; the importer keeps it as RLX's observer ops, and the step's updated buffers
(running min and max, scale, zero point) come out equal to PyTorch's.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq
import torch.nn as nn
import torch.nn.functional as F

from model_steps import check_cnn_step, imported_step, seeded_cnn_and_batch
from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step, named_step_inputs

rlx_torch = pytest.importorskip("rlx_mlir.torch")
step_module = pytest.importorskip("rlx_mlir.torch.step")

SIZE, CLASSES = 12, 10
INPUT_SCALE, INPUT_ZERO_POINT = 4.0 / 255, 128
"""The input's grid: standard-normal pixels, +-4 over 256 levels centred on 128."""


class WeightFakeQuantize(nn.Module):
    """int8 symmetric per-output-channel fake quantization of a weight, with the scale of a
    percentile calibration: the 90th percentile of |w_c| / 127, so that the largest tenth
    of each channel's weights is clipped and the gradient's mask is not all ones. The scale
    and zero point are tensors PyTorch lifts as constants (f32 and int32 whatever the
    model's dtype, as ATen requires)."""

    def __init__(self, weight: torch.Tensor):
        super().__init__()
        self.scale = (weight.detach().abs().flatten(1).quantile(0.9, dim=1) / 127).float()
        self.zero_point = torch.zeros(weight.shape[0], dtype=torch.int32)

    def forward(self, w):
        return torch.fake_quantize_per_channel_affine(w, self.scale, self.zero_point, 0, -128, 127)


class ActivationFakeQuantize(nn.Module):
    """uint8 per-tensor fake quantization with a fixed grid (observer off)."""

    def __init__(self, scale: float, zero_point: int = 0):
        super().__init__()
        self.scale, self.zero_point = scale, zero_point

    def forward(self, x):
        return torch.fake_quantize_per_tensor_affine(x, self.scale, self.zero_point, 0, 255)


class QatConvNet(nn.Module):
    """conv-ReLU-fq, conv-ReLU-fq, max pool, linear, each weight fake-quantized per channel."""

    def __init__(self):
        super().__init__()
        self.input_fq = ActivationFakeQuantize(INPUT_SCALE, INPUT_ZERO_POINT)
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.fc = nn.Linear(16 * (SIZE // 4) ** 2, CLASSES)
        self.weight_fq = nn.ModuleDict({name: WeightFakeQuantize(getattr(self, name).weight)
                                        for name in ("conv1", "conv2", "fc")})
        self.act1_fq = ActivationFakeQuantize(1.0 / 255)
        self.act2_fq = ActivationFakeQuantize(0.4 / 255)

    def forward(self, x):
        x = self.input_fq(x)
        x = self.act1_fq(F.relu(F.conv2d(x, self.weight_fq["conv1"](self.conv1.weight), self.conv1.bias, padding=1)))
        x = self.act2_fq(F.relu(F.conv2d(x, self.weight_fq["conv2"](self.conv2.weight), self.conv2.bias, padding=1,
                                         stride=2)))
        x = F.max_pool2d(x, 2).flatten(1)
        return F.linear(x, self.weight_fq["fc"](self.fc.weight), self.fc.bias)


def model_and_batch():
    return seeded_cnn_and_batch(QatConvNet, SIZE, CLASSES)


STATIC = {"dynamic_shapes": None}
"""The example's batch (the default's dynamic batch is tested on its own)."""


def test_the_default_export_has_a_dynamic_batch():
    """ATen's fake quantizations have no Meta kernel, so torch.export cannot trace them on a
    symbolic batch by itself; the export registers their shapes while it traces. One
    compiled step, no warning, runs batches 2 and 5 like PyTorch (f64 within 1e-9)."""
    model, _, _ = model_and_batch()
    model = model.double()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = rlx_torch.export_training_step(model, named_step_inputs(model, 2, SIZE, CLASSES, dtype=torch.float64),
                                              loss_fn=F.cross_entropy)
    assert not [w for w in caught if str(w.message).startswith("export_training_step")]
    assert "tensor<?x3x12x12xf64>" in step.mlir and step.mlir.count("rlx.fake_quantize ") == 3
    compiled = step.compile()
    for batch in (2, 5):
        x, target = named_step_inputs(model, batch, SIZE, CLASSES, seed=batch, dtype=torch.float64)
        loss, grads, buffers = compiled(x, target)
        ours = {"loss": np.asarray(loss), **{f"grad/{k}": v for k, v in grads.items()},
                **{f"buffer/{k}": v for k, v in buffers.items()}}
        assert_step_matches(ours, eager_step(model, x, target, masks=DropoutMasks()), None, np.float64,
                            label=f"qat cnn, dynamic batch {batch}")


def test_a_failed_dynamic_trace_falls_back_to_a_static_batch(monkeypatch):
    """Without the fake kernels (a PyTorch op the export has none for), the dynamic trace
    fails; the default export warns once, naming the op, and exports the example's batch,
    whose step matches PyTorch's (f64 within 1e-9). The failed trace leaves nothing behind
    that would make the static retry fail: torch.export marks the tensors it traces as
    dynamic and clears the marks only on success, so the attempt traces aliases."""
    monkeypatch.setattr(step_module, "fake_kernels", contextlib.nullcontext)
    model, x, target = model_and_batch()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_cnn_step(model, torch.float64, x, target, label="qat cnn, static fallback")
    ours = [str(w.message) for w in caught if str(w.message).startswith("export_training_step")]
    assert len(ours) == 1 and "a static batch" in ours[0] and "fake_quantize_per_tensor_affine_cachemask" in ours[0], ours


def test_pytorch_is_left_without_the_fake_kernels():
    """The fake kernels live only while the export traces: afterwards torch.export refuses
    a symbolic batch through the op as PyTorch itself does."""
    model, x, target = model_and_batch()
    rlx_torch.export_training_step(model, (x, target), loss_fn=F.cross_entropy)
    with pytest.raises(Exception, match="fake_quantize_per_tensor_affine_cachemask"):
        torch.export.export(ActivationFakeQuantize(0.1), (torch.randn(3, 4),), dynamic_shapes=({0: torch.export.Dim.AUTO},))


def test_fake_quantizations_and_their_gradients_are_kept_whole():
    model, x, target = model_and_batch()
    mlir = rlx_torch.export_training_step(model, (x, target), loss_fn=F.cross_entropy, **STATIC).mlir
    assert mlir.count("rlx.fake_quantize_per_channel ") == 3
    assert mlir.count("rlx.fake_quantize_per_channel_backward") == 3
    assert mlir.count("rlx.fake_quantize ") == 3
    # The input needs no gradient: the two activations' STEs only.
    assert mlir.count("rlx.ste_backward") == 2


class PreparedNet(nn.Module):
    """What a user hands to `prepare_qat`: a quant stub, conv-BN-ReLU, conv-ReLU, max pool, linear."""

    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.fc = nn.Linear(16 * (SIZE // 4) ** 2, CLASSES)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(self.quant(x))))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2).flatten(1)
        return self.fc(x)


def prepared_model_and_batch(calibrated: bool):
    """`PreparedNet` under x86's default QAT config. Its weights' per-channel observers
    have their running min and max sized by one look at the weights (what the model's
    first forward does; the step cannot guess their size), and the activations' observers
    are fresh (+-inf: the first call); `calibrated` runs one eager forward first, so that
    every observer is on its moving average."""
    model, x, target = seeded_cnn_and_batch(PreparedNet, SIZE, CLASSES)
    model.train().qconfig = tq.get_default_qat_qconfig("x86")
    tq.prepare_qat(model, inplace=True)
    with torch.no_grad():
        for module in (model.conv1, model.conv2, model.fc):
            module.weight_fake_quant(module.weight)
        if calibrated:
            model(x)
    return model, x, target


QAT_WARNINGS = ("ignore:torch.ao.quantization is deprecated", "ignore:Please use quant_min and quant_max")


@pytest.mark.filterwarnings(*QAT_WARNINGS)
@pytest.mark.parametrize("calibrated", [False, True], ids=["first_step", "moving_average"])
def test_prepare_qat_step_matches_pytorch(calibrated):
    """Loss, gradients and every buffer (the observers' running min and max, scale and zero
    point; batch norm's statistics) against PyTorch eager. The fused observer has only an
    f32 kernel (it reads x as floats), so the oracle is PyTorch's f32 step, default and
    channels_last, by `oracle.assert_step_matches`'s f32 rule with that default step
    (widened to f64, as the rule takes it) as the reference: within 1e-4, or M times the
    distance of the channels_last step from it. The integer buffers (zero points, the
    observers' flags) are equal."""
    model, x, target = prepared_model_and_batch(calibrated)
    step = rlx_torch.export_training_step(model, (x, target), loss_fn=F.cross_entropy)
    mlir = step.mlir
    assert mlir.count("rlx.moving_average_min_max") == mlir.count("rlx.choose_qparams") == 8
    assert mlir.count("rlx.fake_quantize_per_channel ") == 3
    assert mlir.count("rlx.fake_quantize_tensor_qparams ") == 5
    masks = DropoutMasks()
    want = eager_step(model, x, target, masks=masks)
    channels_last = eager_step(model, x, target, masks=masks, channels_last=True)
    ours = imported_step(model, torch.float32, x, target, masks)
    assert_step_matches(ours, widened(want), [channels_last], np.float32, label=f"prepare_qat cnn {calibrated=}")


DISABLED = {
    "observer": (tq.disable_observer, ("min_val", "max_val", "scale", "zero_point")),
    "fake_quant": (tq.disable_fake_quant, ("scale", "zero_point")),
}
"""`torch.ao.quantization`'s switches, and the buffers each freezes."""


@pytest.mark.filterwarnings(*QAT_WARNINGS)
@pytest.mark.parametrize("disabled", DISABLED)
def test_a_step_with_a_switch_off_matches_pytorch(disabled):
    """`disable_observer` (late in QAT, to freeze the grids) or `disable_fake_quant` (an
    observer warm-up: x passes unchanged, its gradient too): the step reads both flags,
    buffers, so one exported step serves every phase."""
    model, x, target = prepared_model_and_batch(calibrated=True)
    switch, frozen_names = DISABLED[disabled]
    model.apply(switch)
    masks = DropoutMasks()
    want = eager_step(model, x, target, masks=masks)
    channels_last = eager_step(model, x, target, masks=masks, channels_last=True)
    ours = imported_step(model, torch.float32, x, target, masks)
    buffers = dict(model.named_buffers())
    frozen = [name for name in buffers if name.endswith(frozen_names)]
    assert frozen and all(np.array_equal(ours[f"buffer/{name}"], buffers[name].numpy()) for name in frozen)
    assert_step_matches(ours, widened(want), [channels_last], np.float32, label=f"prepare_qat cnn, {disabled} off")


def widened(step: dict) -> dict:
    """PyTorch's f32 step as `assert_step_matches` takes its reference: f32 tensors widened to f64."""
    return {name: value.astype(np.float64) if value.dtype == np.float32 else value for name, value in step.items()}


@pytest.mark.filterwarnings(*QAT_WARNINGS)
def test_a_weight_observer_that_never_observed_is_refused():
    """A per-channel observer's running min and max are empty until it first runs: the
    step's buffer types are unknown, and the refusal says so, with the module."""
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten()).train()
    model.qconfig = tq.get_default_qat_qconfig("x86")
    tq.prepare_qat(model, inplace=True)
    with pytest.raises(rlx_torch.UnsupportedGraph, match=r"has not observed yet.*run the model once"):
        rlx_torch.export_training_step(model, (torch.randn(2, 3, 6, 6), torch.randint(0, 16, (2,))))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_qat_step_matches_pytorch(dtype):
    model, x, target = model_and_batch()
    check_cnn_step(model, dtype, x, target, label="qat cnn", **STATIC)
