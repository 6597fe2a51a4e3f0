"""A training step exported once with a dynamic batch runs every batch, against PyTorch eager.

`export_training_step(..., dynamic_shapes=DYNAMIC_BATCH)` (or a `torch.export.Dim` on dim 0
of x and the target) gives a step whose batch is `?`; one compile serves batches 1, 3 and
2 (a batch-norm model's statistics depend on the batch, so each batch is its own check).
The small GPT's loss merges the batch with the sequence (`view(-1, V)`, [B, T, V] ->
[B*T, V]), and its gradient splits it again: the step stays dynamic through both.
The comparison is `oracle.assert_step_matches` against PyTorch's step on the same batch:
f64 within 1e-9 of PyTorch's f64; f32 by the oracle's rule against PyTorch's f32 and f64.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from torch.export import Dim

from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step
from test_dynamo_backend import small_cnn
from test_transformer_steps import BLOCK, VOCAB, gpt_and_batch, next_token_loss

import rlx_mlir
from rlx_mlir.errors import UserValueError
from rlx_mlir.torch.step import DYNAMIC_BATCH, export_training_step

NUMPY = {torch.float32: np.float32, torch.float64: np.float64}
CLASSES, SIZE = 5, 6


def batch_of(size: int, dtype: torch.dtype, seed: int):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(size, 3, SIZE, SIZE, generator=generator).to(dtype)
    return x, torch.randint(0, CLASSES, (size,), generator=generator)


def our_step(compiled, x, target) -> dict[str, np.ndarray]:
    loss, grads, buffers = compiled(x, target)
    return {"loss": np.asarray(loss), **{f"grad/{k}": np.asarray(v) for k, v in grads.items()},
            **{f"buffer/{k}": np.asarray(v) for k, v in buffers.items()}}


@pytest.fixture(scope="module", params=[torch.float64, torch.float32], ids=["f64", "f32"])
def cnn_step(request):
    """The small CNN (conv, batch norm, ReLU, max-pool, linear) exported at batch 4, compiled once."""
    dtype = request.param
    model = small_cnn().to(dtype).train()
    step = export_training_step(model, batch_of(4, dtype, seed=0), dynamic_shapes=DYNAMIC_BATCH)
    return model, dtype, step, step.compile()


@pytest.mark.parametrize("batch", [1, 3, 2])
def test_cnn_step_exported_once_runs_every_batch(cnn_step, batch):
    model, dtype, step, compiled = cnn_step
    assert "tensor<?x3x6x6x" in step.mlir
    x, target = batch_of(batch, dtype, seed=batch)
    want64 = eager_step(model.double(), x.double(), target)
    want32 = [eager_step(model.float(), x.float(), target)]
    model.to(dtype)
    assert_step_matches(our_step(compiled, x, target), want64, want32, NUMPY[dtype],
                        label=f"cnn, dynamic batch, at batch {batch}, {dtype}")


def test_a_non_batch_size_that_differs_is_refused_with_its_place(cnn_step):
    _, dtype, _, compiled = cnn_step
    x, target = batch_of(3, dtype, seed=0)
    with pytest.raises(UserValueError, match=r"x has shape \(3, 3, 7, 7\); the step was exported for \(\?, 3, 6, 6\)"):
        compiled(torch.randn(3, 3, 7, 7, dtype=dtype), target)
    with pytest.raises(UserValueError, match=r"target has shape \(2,\); x has a batch of 3 \(.* for \(\?,\)\)"):
        compiled(x, target[:2])


def test_a_dim_of_torch_export_makes_the_batch_dynamic():
    batch = Dim("batch")
    step = export_training_step(small_cnn().double().train(), batch_of(4, torch.float64, seed=0),
                                dynamic_shapes={"x": {0: batch}, "target": {0: batch}})
    assert "tensor<?x3x6x6xf64>" in step.mlir and "tensor<?xi64>" in step.mlir


def test_the_batch_is_dynamic_by_default():
    step = export_training_step(small_cnn().double().train(), batch_of(4, torch.float64, seed=0))
    assert "tensor<?x3x6x6xf64>" in step.mlir and "tensor<?xi64>" in step.mlir


def test_dynamic_shapes_none_keeps_the_example_shapes():
    step = export_training_step(small_cnn().double().train(), batch_of(4, torch.float64, seed=0), dynamic_shapes=None)
    assert "?" not in step.mlir and "tensor<4x3x6x6xf64>" in step.mlir


class FixedBatch(torch.nn.Module):
    """A model whose code fixes the batch (`x.view(4, -1)`)."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3 * SIZE * SIZE, CLASSES)

    def forward(self, x):
        return self.linear(x.view(4, -1))


def test_a_batch_the_model_fixes_falls_back_to_static_with_a_warning():
    with pytest.warns(UserWarning, match="a static batch, as the example's: .*reshape"):
        step = export_training_step(FixedBatch().double(), batch_of(4, torch.float64, seed=0),
                                    dynamic_shapes=DYNAMIC_BATCH)
    assert "?" not in step.mlir


def test_an_example_batch_of_one_is_specialised_and_said_so():
    with pytest.warns(UserWarning, match="torch.export specialised the batch"):
        step = export_training_step(small_cnn().double().train(), batch_of(1, torch.float64, seed=0),
                                    dynamic_shapes=DYNAMIC_BATCH)
    assert "?" not in step.mlir


@pytest.fixture(scope="module")
def gpt_step():
    """The small GPT (f64) exported at batch 2 with a dynamic batch, compiled once."""
    model, idx, targets = gpt_and_batch()
    model = model.double().train()
    step = export_training_step(model, (idx, targets), loss_fn=next_token_loss, dynamic_shapes=DYNAMIC_BATCH)
    return model, step, step.compile()


def tokens(batch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(0, VOCAB, (batch, BLOCK), generator=generator),
            torch.randint(0, VOCAB, (batch, BLOCK), generator=generator))


@pytest.mark.parametrize("batch", [1, 3, 2])
def test_gpt_step_exported_once_runs_every_batch(gpt_step, batch):
    model, step, compiled = gpt_step
    assert f"(tensor<?x{BLOCK}x{VOCAB}xf64>) -> tensor<?x{VOCAB}xf64>" in step.mlir  # the batch merged
    idx, targets = tokens(batch, seed=batch)
    masks = DropoutMasks(seed=batch)
    want64 = eager_step(model, idx, targets, next_token_loss, masks=masks)
    want32 = [eager_step(copy.deepcopy(model).float(), idx, targets, next_token_loss, masks=masks)]
    loss, grads, _ = compiled(idx, targets, masks=masks.for_step(np.float64))
    ours = {"loss": np.asarray(loss), **{f"grad/{k}": np.asarray(v) for k, v in grads.items()}}
    assert_step_matches(ours, want64, want32, np.float64, label=f"gpt, dynamic batch, at batch {batch}, f64")


MERGED_THEN_ADDED = """
func.func @f(%x: tensor<?x4xf64>, %t: tensor<?xf64>) -> tensor<?xf64> {
  %r = rlx.reshape %x : (tensor<?x4xf64>) -> tensor<?xf64>
  %y = rlx.add %r, %t : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  return %y : tensor<?xf64>
}
"""


def test_a_merged_batch_is_not_tied_to_the_batch_it_merges():
    """x's batch B and t's B*4 meet only through the merge: the runtime must not ask them to agree."""
    function = rlx_mlir.compile(MERGED_THEN_ADDED)["f"]
    assert function.signature.tied == ()
    x, t = torch.randn(3, 4, dtype=torch.float64), torch.randn(12, dtype=torch.float64)
    np.testing.assert_allclose(function(x.numpy(), t.numpy()), (x.reshape(-1) + t).numpy(), rtol=1e-15)


class DropoutOverTokens(torch.nn.Module):
    """A dropout after the batch is merged with the sequence: its mask is [B*T, C]."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(SIZE, SIZE)
        self.drop = torch.nn.Dropout(0.25)
        self.head = torch.nn.Linear(SIZE, CLASSES)

    def forward(self, x):
        return self.head(self.drop(self.embed(x).view(-1, SIZE)))


def token_loss(logits, targets):
    return torch.nn.functional.cross_entropy(logits, targets.view(-1))


def test_a_mask_of_the_merged_batch_has_batch_times_tokens_rows():
    torch.manual_seed(0)
    model = DropoutOverTokens().double().train()
    example = (torch.randn(2, 4, SIZE, dtype=torch.float64), torch.randint(0, CLASSES, (2, 4)))
    step = export_training_step(model, example, loss_fn=token_loss, dynamic_shapes=DYNAMIC_BATCH)
    assert [tuple(m.shape)[1:] for m in step.masks] == [(SIZE,)] and "tensor<?x4x6xf64>" in step.mlir
    compiled = step.compile()
    for batch in (3, 1):
        x = torch.randn(batch, 4, SIZE, dtype=torch.float64)
        target = torch.randint(0, CLASSES, (batch, 4))
        loss, grads, _ = compiled(x, target)  # the step draws its mask: [batch * 4, SIZE]
        drawn = compiled.last_masks[step.masks[0].name]
        assert drawn.shape == (batch * 4, SIZE)
        masks = DropoutMasks()
        masks.masks.append(torch.from_numpy(drawn).bool())
        want64 = eager_step(model, x, target, token_loss, masks=masks)
        want32 = [eager_step(copy.deepcopy(model).float(), x.float(), target, token_loss, masks=masks)]
        ours = {"loss": np.asarray(loss), **{f"grad/{k}": np.asarray(v) for k, v in grads.items()}}
        assert_step_matches(ours, want64, want32, np.float64, label=f"dropout over B*T rows, at batch {batch}")
    with pytest.raises(UserValueError, match=r"mask0 has shape \(3, 6\); x's batch of 3 gives it 12 rows"):
        compiled(x.expand(3, 4, SIZE), target.expand(3, 4), masks=[np.ones((3, SIZE))])
