"""The imported training step against PyTorch eager's `loss.backward()` on the same weights.

Each case exports a small module with `rlx_mlir.torch.export_training_step`, compiles it
and compares the loss, every parameter gradient and every updated buffer, per tensor, by
the relative L2 error `||got - want|| / ||want||` (`||got||` where want is all zeros):

- f64: within 1e-9 of PyTorch's f64 step;
- f32: against PyTorch's f64 step on the same (f32) weights and inputs, within 1e-4, or
  within 4x PyTorch f32's own error on that tensor where the step is too ill-conditioned
  for 1e-4 (batch norm over a handful of values, gradients that cancel to ~0; the
  whole-model rule is tests/oracle.py's). Measured (2026-12-01): the worst f32 tensor of
  every case here is 7.5e-7 (conv3d's weight gradient; the small CNN: 3.4e-7, its
  running mean), so none needs the multiple; a ResNet-18 step (batch 2, 64x64, the importer outside these tests) is at
  1.3e-5 in f32 and 3.2e-14 in f64.

The conv and pool cases apply one op of the semantics issue to a parameter (so its
backward is the parameter's gradient) and end in cross-entropy over the flattened output.
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
F32_BOUND = 1e-4
F32_MULTIPLE = 4.0


def relative_l2(got, want) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = np.linalg.norm(want)
    return float(np.linalg.norm(got - want) / scale) if scale > 0 else float(np.linalg.norm(got))


def eager_step(model, x, target, loss_fn, dtype):
    """PyTorch's loss, gradients and buffers after one step of a copy of `model` in `dtype`."""
    model = copy.deepcopy(model).to(dtype)
    model.zero_grad()
    loss = loss_fn(model(x.to(dtype)), target)
    loss.backward()
    grads = {
        name: (p.grad if p.grad is not None else torch.zeros_like(p)).detach().numpy()
        for name, p in model.named_parameters()
    }
    buffers = {name: b.detach().numpy() for name, b in model.named_buffers()}
    return loss.detach().numpy(), grads, buffers


def check_step(model, x, target, loss_fn=F.cross_entropy, dtype=torch.float64, train=True):
    """Export, compile and run the step of `model` in `dtype` (in `model.train(train)`'s
    mode); compare as the docstring says."""
    model = model.to(dtype).train(train)
    x = x.to(dtype)
    step = export_training_step(model, (x, target), loss_fn=loss_fn)
    loss, grads, buffers = step.compile()(x, target)
    want = eager_step(model, x, target, loss_fn, torch.float64)
    pytorch32 = eager_step(model, x, target, loss_fn, torch.float32) if dtype == torch.float32 else None
    got = {"loss": loss, **{f"grad {k}": v for k, v in grads.items()}, **{f"buffer {k}": v for k, v in buffers.items()}}
    ref = {"loss": want[0], **{f"grad {k}": v for k, v in want[1].items()}, **{f"buffer {k}": v for k, v in want[2].items()}}
    assert set(got) == set(ref)
    worst = {}
    for name in ref:
        error = relative_l2(got[name], ref[name])
        if dtype == torch.float64:
            assert error <= F64_BOUND, f"{name}: relative L2 error {error:.3g} > {F64_BOUND}"
        else:
            theirs = relative_l2(
                pytorch32[0] if name == "loss" else
                pytorch32[1][name[5:]] if name.startswith("grad ") else pytorch32[2][name[7:]], ref[name])
            bound = max(F32_BOUND, F32_MULTIPLE * theirs)
            assert error <= bound, f"{name}: relative L2 error {error:.3g} > {bound:.3g} (PyTorch f32: {theirs:.3g})"
        worst[name] = error
    return step, worst


class ParameterOp(nn.Module):
    """`op(w)` for a parameter w: the op's backward is w's gradient."""

    def __init__(self, shape, op, *weights):
        super().__init__()
        self.w = nn.Parameter(torch.randn(*shape))
        self.k = nn.ParameterList([nn.Parameter(torch.randn(*s)) for s in weights])
        self.op = op

    def forward(self, x):
        return self.op(self.w, *self.k).flatten(1)


CONV_POOL_CASES = {
    "conv3d-stride2-pad1": ((2, 3, 5, 5, 5), lambda w, k: F.conv3d(w, k, stride=2, padding=1), [(4, 3, 3, 3, 3)]),
    "conv1d-dilation2-groups3": ((2, 3, 9), lambda w, k: F.conv1d(w, k, dilation=2, groups=3), [(6, 1, 3)]),
    "conv2d-bias": ((2, 3, 6, 6), lambda w, k, b: F.conv2d(w, k, b, padding=1), [(4, 3, 3, 3), (4,)]),
    "conv_transpose2d-stride2-outpad1": (
        (2, 3, 4, 4), lambda w, k: F.conv_transpose2d(w, k, stride=2, padding=1, output_padding=1), [(3, 2, 3, 3)]),
    "conv_transpose1d-groups": ((2, 4, 5), lambda w, k: F.conv_transpose1d(w, k, stride=2, groups=2), [(4, 3, 3)]),
    "adaptive_max_pool1d": ((2, 3, 7), lambda w: F.adaptive_max_pool1d(w, 3), []),
    "adaptive_max_pool2d": ((2, 3, 7, 5), lambda w: F.adaptive_max_pool2d(w, (3, 2)), []),
    "adaptive_avg_pool2d": ((2, 3, 7, 7), lambda w: F.adaptive_avg_pool2d(w, 3), []),
    "adaptive_avg_pool3d": ((2, 2, 5, 4, 3), lambda w: F.adaptive_avg_pool3d(w, 2), []),
    "avg_pool2d-ceil-divisor3": (
        (2, 3, 7, 7), lambda w: F.avg_pool2d(w, 3, 2, 1, ceil_mode=True, divisor_override=3), []),
    "avg_pool2d-exclude-pad": ((2, 3, 6, 6), lambda w: F.avg_pool2d(w, 3, 2, 1, count_include_pad=False), []),
    "avg_pool1d": ((2, 3, 8), lambda w: F.avg_pool1d(w, 2), []),
    "avg_pool3d": ((2, 2, 4, 4, 4), lambda w: F.avg_pool3d(w, 2), []),
    "max_pool2d-ceil-dilation": ((2, 3, 8, 8), lambda w: F.max_pool2d(w, 3, 2, 1, dilation=2, ceil_mode=True), []),
    "max_pool1d": ((2, 3, 9), lambda w: F.max_pool1d(w, 3, 2, 1), []),
    "max_pool3d": ((2, 2, 4, 4, 4), lambda w: F.max_pool3d(w, 2), []),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", CONV_POOL_CASES, ids=str)
def test_conv_and_pool_ops_applied_to_a_parameter_match_pytorch(case, dtype):
    shape, op, weights = CONV_POOL_CASES[case]
    torch.manual_seed(0)
    model = ParameterOp(shape, op, *weights)
    target = torch.tensor([1, 2])
    check_step(model, torch.zeros(shape[0]), target, dtype=dtype)


OTHER_OP_CASES = {
    "layer_norm": ((2, 3, 4), lambda w, g, b: F.layer_norm(w, (3, 4), g, b), [(3, 4), (3, 4)]),
    "layer_norm-no-affine": ((2, 5), lambda w: F.layer_norm(w, (5,)), []),
    "split-cat-slice-permute": (
        (2, 6, 4), lambda w: torch.cat(torch.split(w, [1, 3], 2)[::-1], 2)[:, 1:, ::2].permute(0, 2, 1), []),
    "select": ((2, 3, 4), lambda w: w[:, 1], []),
    "transpose-expand": ((2, 1, 3), lambda w: w.expand(2, 4, 3).transpose(1, 2), []),
    "log_softmax-dim0": ((2, 4), lambda w: F.log_softmax(w, 0), []),
    "softmax": ((2, 4), lambda w: F.softmax(w, 1), []),
    "activations": ((2, 12), lambda w: torch.cat([
        F.relu6(w[:, :2]), F.hardswish(w[:, 2:4]), F.hardsigmoid(w[:, 4:6]), torch.sigmoid(w[:, 6:8]),
        F.silu(w[:, 8:9]), F.gelu(w[:, 9:10]), F.gelu(w[:, 10:11], approximate="tanh"), F.leaky_relu(w[:, 11:]),
    ], 1), []),
    "arithmetic": ((2, 5), lambda w: (torch.tanh(w) - w / 3 + 2 * w.exp().sqrt() + torch.rsqrt(w * w + 1)) * w, []),
    "matmul-bias": ((2, 5), lambda w, a, b: torch.addmm(b, w, a, beta=0.5, alpha=2.0), [(5, 3), (3,)]),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", OTHER_OP_CASES, ids=str)
def test_layout_norm_activation_and_arithmetic_ops_match_pytorch(case, dtype):
    shape, op, weights = OTHER_OP_CASES[case]
    torch.manual_seed(0)
    model = ParameterOp(shape, op, *weights)
    if case == "activations":  # across every kink: hardtanh's 0 and 6, hardswish's -3 and 3
        with torch.no_grad():
            model.w.mul_(4.0)
    check_step(model, torch.zeros(shape[0]), torch.tensor([0, 1]), dtype=dtype)


@pytest.mark.parametrize(
    "loss_fn",
    [
        lambda y, t: F.cross_entropy(y, t, reduction="sum"),
        lambda y, t: F.cross_entropy(y, t, ignore_index=2),
        lambda y, t: F.cross_entropy(y, t, weight=torch.tensor([1.0, 2.0, 0.5, 1.5], dtype=y.dtype)),
        lambda y, t: F.nll_loss(F.log_softmax(y, 1), t, reduction="none").sum(),
        lambda y, t: F.cross_entropy(y.reshape(2, 2, 4).permute(0, 2, 1), t.reshape(2, 2)),
        lambda y, t: F.cross_entropy(y, t, label_smoothing=0.1),
        lambda y, t: F.cross_entropy(y, t, ignore_index=2, label_smoothing=0.2),
        # PyTorch's type promotion: a bool count summed as int64, then divided into a float
        lambda y, t: F.cross_entropy(y, t, reduction="sum") / (t != 2).sum() + (t * y[:, 0]).mean(),
    ],
    ids=["sum", "ignore_index", "class-weights", "none-then-sum", "2d-targets", "label-smoothing",
         "label-smoothing-ignore-index", "mixed-integer-and-float"],
)
def test_loss_variants_match_pytorch(loss_fn):
    torch.manual_seed(0)
    model = ParameterOp((4, 4), lambda w: w)
    check_step(model, torch.zeros(4), torch.tensor([0, 2, 3, 2]), loss_fn=lambda y, t: loss_fn(y, t))


class SmallCnn(nn.Module):
    """conv + batch norm + ReLU + max pool + linear: the layers of the digits example.

    The conv has no bias, as before every batch norm of torchvision: batch norm removes
    it, so its gradient is 0 in exact arithmetic and rounding noise in both programs.
    """

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(F.relu(self.bn(self.conv(x)))), 1))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_small_cnn_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    x = torch.randn(4, 1, 8, 8)
    target = torch.tensor([0, 3, 9, 3])
    step, _ = check_step(SmallCnn(), x, target, dtype=dtype)
    assert set(step.updated_buffer_names) == {"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}


def test_compiled_step_reads_the_model_at_each_call_and_takes_overrides():
    torch.manual_seed(0)
    model = SmallCnn().double().train()
    x, target = torch.randn(2, 1, 8, 8, dtype=torch.float64), torch.tensor([1, 2])
    compiled = export_training_step(model, (x, target)).compile()
    before, _, _ = compiled(x, target)
    with torch.no_grad():
        model.fc.bias += 1.0
        model.fc.weight.mul_(2.0)
    after, grads, buffers = compiled(x, target)
    want = eager_step(model, x, target, F.cross_entropy, torch.float64)
    assert relative_l2(after, want[0]) <= F64_BOUND and relative_l2(after, before) > 1e-3
    # Overrides by name: the old weights again give the old loss.
    old = {"fc.weight": model.fc.weight / 2.0, "fc.bias": model.fc.bias - 1.0}
    again, _, _ = compiled(x, target, params=old)
    assert relative_l2(again, before) <= F64_BOUND
    assert buffers["bn.num_batches_tracked"] == model.bn.num_batches_tracked.item() + 1


class DropoutNet(nn.Module):
    """Dropout, then stochastic depth as torchvision writes it (`empty().bernoulli_(p) / p`)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(8, 4)
        self.noise = lambda shape, survival: torch.empty(shape).bernoulli_(survival)

    def forward(self, x):
        h = self.drop(F.relu(self.fc1(x)))
        keep = self.noise((x.shape[0], 1), 0.75).to(h.dtype) / 0.75
        return self.fc2(h * keep + h)


def test_dropout_and_stochastic_depth_match_pytorch_fed_the_same_masks(monkeypatch):
    torch.manual_seed(0)
    model = DropoutNet().double().train()
    x, target = torch.randn(5, 6, dtype=torch.float64), torch.tensor([0, 1, 2, 3, 1])
    step = export_training_step(model, (x, target))
    assert [(m.kind, m.p) for m in step.masks] == [("dropout", 0.3), ("bernoulli", 0.75)]
    compiled = step.compile(seed=7)
    loss, grads, _ = compiled(x, target)
    dropout_mask, keep_mask = (torch.from_numpy(compiled.last_masks[m.name]) for m in step.masks)
    assert 0 < dropout_mask.sum() < dropout_mask.numel()  # a real draw, with cells kept and dropped
    # PyTorch, fed the same masks:
    monkeypatch.setattr(F, "dropout", lambda h, p, training, inplace: h * dropout_mask * (1 / (1 - p)))
    model.noise = lambda shape, survival: keep_mask.to(torch.float32)
    want_loss, want_grads, _ = eager_step(model, x, target, F.cross_entropy, torch.float64)
    assert relative_l2(loss, want_loss) <= F64_BOUND
    for name, grad in want_grads.items():
        assert relative_l2(grads[name], grad) <= F64_BOUND, name
    # The same seed draws the same masks; explicit masks replace the draw.
    again = step.compile(seed=7)
    again(x, target)
    assert all(np.array_equal(again.last_masks[k], v) for k, v in compiled.last_masks.items())
    explicit, _, _ = compiled(x, target, masks=[dropout_mask.numpy(), keep_mask.numpy()])
    assert relative_l2(explicit, loss) == 0


class WithUnusedLayers(nn.Module):
    """A layer the forward never calls, one it calls only in eval mode, and a weight tied to
    a used one: eager autograd leaves the unused ones' `.grad` None (zero in the step)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 5)
        self.head = nn.Linear(5, 4)
        self.spare = nn.Linear(6, 5)
        self.eval_head = nn.Linear(5, 4)
        self.tied = nn.Linear(6, 5)
        self.tied.weight = self.body.weight

    def forward(self, x):
        h = torch.tanh(self.body(x))
        return self.head(h) if self.training else self.eval_head(h)


def test_parameters_the_step_never_reads_get_zero_gradients():
    """torch.export's joint trace refuses a parameter without a gradient ("Found a parameter
    that did not receive a gradient"); a model with a spare layer still trains."""
    torch.manual_seed(0)
    model = WithUnusedLayers()
    x, target = torch.randn(3, 6), torch.tensor([0, 3, 1])
    check_step(model, x, target)
    step = export_training_step(model.double(), (x.double(), target))
    assert set(step.parameter_names) == {name for name, _ in model.named_parameters()}
