"""The imported training steps leave our compiler for any MLIR 22 tool: upstream `mlir-opt`
parses and verifies each after our passes, and IREE compiles and runs the GPT step.

Every module the importer emits for the GPT (with and without attention dropout), Llama,
ViT and BERT-style (post- and pre-norm) steps of the model tests, and for the GroupNorm
ResNet's and the QAT CNN's, in f32, at those tests' sizes and from their own builders,
is lowered as a user hands it on (`rlx-opt --decompose-backward --convert-rlx-to-linalg`:
`api.lower_to_linalg` with `strided_conv="direct"`, rlx-opt's default form). What remains
must be upstream dialects only, and `mlir-opt` 22 must accept the printed text as it is.

IREE (llvm-cpu, `iree_runtime`'s flags) then compiles the GPT step's whole function and
runs it on the model test's weights, tokens and dropout masks; its loss and gradients are
compared with PyTorch's eager step by `oracle.assert_step_matches`, as our native step is.
"""

from __future__ import annotations

import copy
import functools
import subprocess

import numpy as np
import pytest
import torch

import test_bert_step as bert
import test_groupnorm_resnet_step as group_norm_resnet
import test_llama_step as llama
import test_qat_step as qat
import test_transformer_steps as gpt
import test_vit_step as vit
from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step
from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend.toolchain import ToolchainError, find_tool

rlx_torch = pytest.importorskip("rlx_mlir.torch")

UPSTREAM = {"builtin", "func", "linalg", "tensor", "arith", "math", "scf"}


def tokens(vocabulary: int, batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and next-token targets: any in-range tokens export the same graph."""
    generator = torch.Generator().manual_seed(1)
    return tuple(torch.randint(0, vocabulary, (batch, length), generator=generator) for _ in range(2))


def gpt_step(attention_dropout: float):
    model, idx, targets = gpt.gpt_and_batch(attention_dropout)
    return model, (idx, targets), gpt.next_token_loss


def llama_step():
    torch.manual_seed(0)
    return llama.Llama(), tokens(llama.VOCAB, llama.BATCH, llama.LENGTH), llama.next_token_loss


def vit_step():
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, vit.IMAGE, vit.IMAGE, generator=generator)
    return vit.vit(), (x, torch.randint(0, vit.CLASSES, (2,), generator=generator)), torch.nn.functional.cross_entropy


def bert_step(norm_first: bool):
    torch.manual_seed(0)
    model = bert.Encoder(norm_first)
    return model, tokens(bert.VOCAB, len(bert.LENGTHS), bert.LENGTH), bert.masked_lm_loss


def cnn_step(test_module):
    model, x, target = test_module.model_and_batch()
    return model, (x, target), torch.nn.functional.cross_entropy


STEPS = {
    "gpt": lambda: gpt_step(0.0),
    "gpt-attention-dropout": lambda: gpt_step(gpt.DROPOUT),
    "llama": llama_step,
    "vit": vit_step,
    "bert-post-norm": lambda: bert_step(False),
    "bert-pre-norm": lambda: bert_step(True),
    "group-norm-resnet": lambda: cnn_step(group_norm_resnet),
    "qat-cnn": lambda: cnn_step(qat),
}


@functools.cache
def exported(name: str):
    """(model, inputs, loss_fn, the f32 step) of one of `STEPS`."""
    model, inputs, loss_fn = STEPS[name]()
    model = model.float().train()
    options = qat.STATIC if name == "qat-cnn" else {}  # test_qat_step.STATIC says why
    return model, inputs, loss_fn, rlx_torch.export_training_step(model, inputs, loss_fn=loss_fn, **options)


@functools.cache
def lowered(name: str):
    return lower_to_linalg(exported(name)[3].module, strided_conv="direct")


@pytest.mark.parametrize("name", list(STEPS))
def test_lowered_step_is_upstream_mlir_that_mlir_opt_verifies(name):
    module = lowered(name)
    dialects = {op.name.split(".")[0] for op in module.walk()}
    assert dialects <= UPSTREAM, f"left behind: {sorted(dialects - UPSTREAM)}"
    try:
        mlir_opt = str(find_tool("mlir-opt").path)
    except ToolchainError as error:
        pytest.skip(f"no mlir-opt 22: {error}")
    done = subprocess.run([mlir_opt, "--verify-each", "-"], input=str(module), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[:4000]


def test_iree_runs_the_gpt_step_and_matches_pytorch():
    from iree_runtime import IreeModule  # noqa: PLC0415  (imports IREE, which the mlir-opt checks do not need)

    model, (idx, targets), loss_fn, step = exported("gpt")
    masks = DropoutMasks()
    want64 = eager_step(copy.deepcopy(model).double(), idx, targets, loss_fn, masks=masks)
    want32 = [eager_step(model, idx, targets, loss_fn, masks=masks)]
    compiled = IreeModule.compile(lowered("gpt"))
    parameters = dict(model.named_parameters())
    arguments = [parameters[name].detach().numpy() for name in step.parameter_names]
    arguments += [idx.numpy(), targets.numpy()] + masks.for_step(np.float32)
    results = compiled[step.function_name](*arguments)
    ours = {"loss": np.asarray(results[0])}
    ours.update({f"grad/{name}": np.asarray(g) for name, g in zip(step.parameter_names, results[1:])})
    assert_step_matches(ours, want64, want32, np.float32, label="gpt f32 on IREE")
