"""`torch.compile(model, backend="rlx")` against PyTorch eager, in a user's training loop.

The training loops are the user's, unchanged but for `torch.compile`: optimizers, a
learning-rate schedule, gradient clipping, batch-norm buffers updated in place, `eval()`
under `no_grad`, graph breaks. After a few optimizer steps, the weights, the losses and
the buffers must match PyTorch eager's by the oracle's step rule (`tests/oracle.py`): f64
within 1e-9 of PyTorch's f64 run; f32 against PyTorch's f64 run, within a multiple of
PyTorch f32's own error.
"""

from __future__ import annotations

import copy
import importlib.metadata
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn

from rlx_mlir.torch.dynamo import Statistics, rlx_backend
from rlx_mlir.torch.errors import UnsupportedGraph
from oracle import assert_step_matches


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def small_cnn() -> nn.Module:
    """Conv, batch norm, ReLU, max-pool, a linear head: the ops of a CNN step, small."""
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 4, 3, stride=2, bias=False), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 1 * 1, 5),
    )


def data(steps: int = 3, batch: int = 4):
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(batch, 3, 6, 6, generator=generator), torch.randint(0, 5, (batch,), generator=generator))
            for _ in range(steps)]


def train(model: nn.Module, dtype: torch.dtype, batches, make_optimizer, compiled: bool, clip: float | None = None,
          dynamic: bool | None = None, mark_batch_dynamic: bool = False, options: dict | None = None,
          loss_fn=nn.functional.cross_entropy) -> dict:
    """The user's loop: zero_grad, forward, loss, backward, [clip], step, schedule. Returns
    every loss, the final weights and the final buffers, by name. `dynamic` is
    `torch.compile`'s; `mark_batch_dynamic` marks each x's batch with `mark_dynamic`;
    `options` are the backend's (`torch.compile(..., options=options)`). A float `x` is
    cast to `dtype`; token ids stay integers."""
    model = model.to(dtype).train()
    optimizer = make_optimizer(model.parameters())
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    run = torch.compile(model, backend="rlx", dynamic=dynamic, options=options) if compiled else model
    record = {}
    for step, (x, target) in enumerate(batches):
        optimizer.zero_grad(set_to_none=step % 2 == 0)
        x = x.to(dtype) if x.is_floating_point() else x
        if mark_batch_dynamic:
            torch._dynamo.mark_dynamic(x, 0)
        loss = loss_fn(run(x), target)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        schedule.step()
        record[f"loss/{step}"] = loss.detach().numpy().copy()
    record.update({f"param/{n}": p.detach().numpy().copy() for n, p in model.named_parameters()})
    record.update({f"buffer/{n}": b.detach().numpy().copy() for n, b in model.named_buffers()})
    return record


def sgd(params):
    return torch.optim.SGD(params, lr=0.1, momentum=0.9)


def adamw(params):
    return torch.optim.AdamW(params, lr=0.01, weight_decay=0.1)


@pytest.mark.parametrize("make_optimizer", [sgd, adamw], ids=["sgd-momentum", "adamw"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_training_loop_matches_eager(dtype, make_optimizer):
    model, batches = small_cnn(), data()
    ours = train(copy.deepcopy(model), dtype, batches, make_optimizer, compiled=True, clip=1.0)
    reference = train(copy.deepcopy(model), torch.float64, batches, make_optimizer, compiled=False, clip=1.0)
    eager32 = train(copy.deepcopy(model), torch.float32, batches, make_optimizer, compiled=False, clip=1.0)
    assert_step_matches(ours, reference, eager32, dtype=np.dtype(str(dtype).removeprefix("torch.")),
                        label=f"torch.compile rlx {dtype}")


@pytest.mark.parametrize("dtype, how", [(torch.float64, "dynamic=True"), (torch.float32, "mark_dynamic")],
                         ids=["f64-dynamic", "f32-mark_dynamic"])
def test_a_dynamic_batch_is_compiled_once_for_an_epoch_with_a_partial_last_batch(dtype, how):
    """Batches of 4, 4 and 3 (an epoch's last partial batch): the forward and the backward
    graph are compiled once each, with a `?` batch, and nothing falls back to eager."""
    model, batches = small_cnn(), data(steps=2, batch=4) + data(steps=1, batch=3)
    torch._dynamo.reset()  # a frame Dynamo compiled for an earlier test in this process would be reused
    compiles = Statistics.native_compiles
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a fallback to eager warns
        ours = train(copy.deepcopy(model), dtype, batches, sgd, compiled=True, dynamic=how == "dynamic=True" or None,
                     mark_batch_dynamic=how == "mark_dynamic")
    assert Statistics.native_compiles - compiles == 2
    reference = train(copy.deepcopy(model), torch.float64, batches, sgd, compiled=False)
    eager32 = train(copy.deepcopy(model), torch.float32, batches, sgd, compiled=False)
    assert_step_matches(ours, reference, eager32, dtype=np.dtype(str(dtype).removeprefix("torch.")),
                        label=f"torch.compile rlx, batches 4, 4, 3, {how}, {dtype}")


def test_eval_under_no_grad_matches_eager():
    model = small_cnn().eval()
    x = torch.randn(3, 3, 6, 6)
    compiled = torch.compile(model, backend="rlx")
    with torch.no_grad():
        got, want = compiled(x), model(x)
    assert not got.requires_grad
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5 * float(want.abs().max()))


class Branchy(nn.Module):
    """Graph breaks: a print, and a branch on a tensor's value."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 3)

    def forward(self, x):
        h = torch.tanh(self.a(x))
        print("between the layers")
        if h.sum() > 0:
            h = h * 2
        return self.b(h)


def test_graph_breaks_and_data_dependent_branches(capsys):
    torch.manual_seed(0)
    model = Branchy().double()
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="rlx")
    for sign in (1.0, -1.0):  # both sides of the branch
        x = sign * torch.ones(2, 4, dtype=torch.float64)
        compiled(x).square().sum().backward()
        reference(x).square().sum().backward()
    assert "between the layers" in capsys.readouterr().out
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


class Flipper(nn.Module):
    """`torch.flip` has no RLX op: its graph runs in eager, the rest compiles."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return torch.flip(self.linear(x), dims=[1])


def test_a_graph_we_cannot_import_runs_in_eager_with_one_warning():
    torch.manual_seed(0)
    model = Flipper()
    compiled = torch.compile(model, backend="rlx")
    x = torch.randn(2, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compiled(x)
    messages = [str(w.message) for w in caught if "rlx backend" in str(w.message)]
    assert len(messages) == 1 and "flip" in messages[0], messages
    np.testing.assert_allclose(got.detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_a_dtype_we_cannot_import_warns_once_for_forward_and_backward():
    """Under bf16 autocast both of AOTAutograd's graphs are refused for their dtype; the
    backward's nodes name no source line, which made its message, and so its warning, another."""
    torch.manual_seed(0)
    compiled = torch.compile(nn.Sequential(nn.Linear(4, 4), nn.Tanh()), backend="rlx")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast("cpu", dtype=torch.bfloat16):
            compiled(torch.randn(2, 4)).float().square().sum().backward()
    messages = [str(w.message) for w in caught if "rlx backend" in str(w.message)]
    assert len(messages) == 1 and "unsupported dtype torch.bfloat16" in messages[0], messages


def test_strict_raises_the_importers_error():
    compiled = torch.compile(Flipper(), backend="rlx", options={"strict": True})
    with pytest.raises(Exception) as raised:
        compiled(torch.randn(2, 4))
    chain = [raised.value, raised.value.__cause__, raised.value.__context__]
    assert any(isinstance(e, UnsupportedGraph) and "flip" in str(e) for e in chain), chain


def test_unknown_option_is_refused():
    with pytest.raises(ValueError, match="unknown option"):
        rlx_backend(torch.fx.symbolic_trace(nn.Linear(2, 2)), [torch.randn(1, 2)], options={"fast": True})


def test_dropout_masks_are_reproducible_and_their_gradient_is_exact():
    """PyTorch's RNG stream is not replayed; what holds: the same seed draws the same masks,
    about 1 - p of the cells are kept, and the gradient is the mask's: dx = dy * mask / (1 - p)."""
    p = 0.25
    compiled = torch.compile(nn.Dropout(p), backend="rlx")

    def run(seed):
        torch.manual_seed(seed)
        x = torch.full((64, 64), 3.0, dtype=torch.float64, requires_grad=True)
        y = compiled(x)
        dy = torch.randn(64, 64, dtype=torch.float64, generator=torch.Generator().manual_seed(7))
        y.backward(dy)
        return y.detach(), x.grad

    y, dx = run(0)
    y_again, _ = run(0)
    y_other, _ = run(1)
    assert torch.equal(y, y_again) and not torch.equal(y, y_other)
    kept = y != 0
    assert abs(kept.double().mean().item() - (1 - p)) < 0.03
    assert torch.equal(y[kept], torch.full_like(y[kept], 3.0 / (1 - p)))
    dy = torch.randn(64, 64, dtype=torch.float64, generator=torch.Generator().manual_seed(7))
    torch.testing.assert_close(dx, dy * kept / (1 - p), rtol=1e-12, atol=0)


def test_the_backend_is_registered_under_its_name():
    names = {entry.name for entry in importlib.metadata.entry_points(group="torch_dynamo_backends")}
    assert "rlx" in names
    assert "rlx" in torch._dynamo.list_backends(exclude_tags=())
