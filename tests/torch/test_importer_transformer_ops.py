"""The ops of a transformer's training step, imported from PyTorch, against PyTorch eager.

Each case applies ops to a parameter `w` (so their backward ops are w's gradient) and ends
in cross-entropy over the flattened result; `check_step` (test_importer_numerics) compares
the loss and every gradient by the relative L2 error: within 1e-9 of PyTorch's f64 step in
f64, within 1e-4 (or 4x PyTorch f32's own error) in f32. Indices are constants of the
model, which the step takes as lifted arguments. A negative `dim` is used wherever ATen
takes one. `F.scaled_dot_product_attention` reaches the flash kernel kept whole (causal,
a bool mask made a float bias by PyTorch, a float bias, an explicit scale, grouped-query
heads) and PyTorch's math path where that kernel does not apply (E != Ev).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.torch import export_training_step
from rlx_mlir.torch.errors import UnsupportedGraph
from test_importer_numerics import ParameterOp, check_step

aten = torch.ops.aten

INDEX = torch.tensor([[2, 0, 3], [1, 1, 0]])
"""A gather index of a [2, 4] input along its last dim (repeats: gradients accumulate)."""
PERMUTED = torch.tensor([[3, 0, 2, 1], [0, 2, 1, 3]])
"""A scatter index with no repeats in a row (PyTorch's scatter of repeats is unspecified)."""
ROWS = torch.tensor([2, 0, 2])
CAUSAL = torch.ones(3, 3, dtype=torch.bool).tril()
BIAS = torch.tensor([[0.5, -1.0, 0.0], [2.0, 0.25, -0.5], [0.0, 1.5, -2.0]])


def heads(w, h=2, length=3):
    """[B, T * H * E] -> [B, H, T, E]."""
    return w.reshape(w.shape[0], length, h, -1).transpose(1, 2)


SELECTION_CASES = {
    "where-tensor": ((2, 5), lambda w: torch.where(w > 0, w, 0.5 * w), []),
    "where-scalar-other": ((2, 5), lambda w: torch.where(w > 0, w, 0.25), []),
    "where-scalar-self": ((2, 5), lambda w: torch.where(w > 0, -1.0, w), []),
    "masked_fill": ((2, 5), lambda w: w.masked_fill(w < 0, -2.0), []),
    "masked_fill-tensor": ((2, 5), lambda w, v: w.masked_fill(w < 0, v.sum()), [(1,)]),
    "causal-mask-softmax": (
        (2, 3, 3), lambda w: w.masked_fill(~torch.ones(3, 3, dtype=torch.bool, device=w.device).tril(),
                                           float("-inf")).softmax(-1), []),
    "clamp": ((2, 6), lambda w: w.clamp(-0.5, 0.5), []),
    "clamp_min-clamp_max": ((2, 6), lambda w: torch.cat([w[:, :3].clamp_min(0.1), w[:, 3:].clamp_max(-0.1)], -1), []),
    "tril-triu": ((2, 4, 4), lambda w: w.tril(-1) + 2 * w.triu(1), []),
}

CREATION_CASES = {
    "arange-float": ((2, 4), lambda w: w * torch.arange(4, dtype=w.dtype), []),
    "arange-start-step": ((2, 4), lambda w: w * torch.arange(1.0, 3.0, 0.5, dtype=w.dtype), []),
    "arange-int-compare": ((2, 4), lambda w: torch.where(torch.arange(2, 6) < torch.full((4,), 4), w, 0.0), []),
    "bool-to-float": ((2, 5), lambda w: (w > 0).to(w.dtype) * w, []),
    "int-to-float": ((2, 4), lambda w: torch.arange(-2, 6, 2).to(w.dtype) * w, []),
    "zeros-bool-int": (
        (2, 4), lambda w: torch.where(torch.zeros(4, dtype=torch.bool) | (torch.ones(4, dtype=torch.int64) * 3 > 2),
                                      w, 0.0), []),
}

INDEXING_CASES = {
    "gather": ((2, 4), lambda w: torch.gather(w, -1, INDEX), []),
    "scatter-src": ((2, 4), lambda w, s: torch.scatter(w, -1, PERMUTED[:, :3], s), [(2, 3)]),
    "scatter-value": ((2, 4), lambda w: torch.scatter(w, 1, PERMUTED[:, :2], 0.5), []),
    "scatter_add": ((2, 4), lambda w, s: torch.scatter_add(w, -1, INDEX, s), [(2, 3)]),
    "index_select": ((2, 3, 4), lambda w: torch.index_select(w, -2, ROWS), []),
    "bmm": ((2, 3, 4), lambda w, k: torch.bmm(w, k), [(2, 4, 2)]),
}

ATTENTION_CASES = {
    "sdpa-causal": ((2, 24), lambda w, k, v: F.scaled_dot_product_attention(
        heads(w), heads(k), heads(v), is_causal=True), [(2, 24), (2, 24)]),
    "sdpa-bool-mask": ((2, 24), lambda w, k, v: F.scaled_dot_product_attention(
        heads(w), heads(k), heads(v), attn_mask=CAUSAL), [(2, 24), (2, 24)]),
    "sdpa-float-mask-scale": ((2, 24), lambda w, k, v: F.scaled_dot_product_attention(
        heads(w), heads(k), heads(v), attn_mask=BIAS.to(w.dtype), scale=0.3), [(2, 24), (2, 24)]),
    "sdpa-gqa": ((2, 24), lambda w, k, v: F.scaled_dot_product_attention(
        heads(w), heads(k, 1), heads(v, 1), is_causal=True, enable_gqa=True), [(2, 12), (2, 12)]),
    "sdpa-math-path": ((2, 24), lambda w, k, v: F.scaled_dot_product_attention(
        heads(w), heads(k), heads(v), is_causal=True), [(2, 24), (2, 36)]),
}

CASES = {**SELECTION_CASES, **CREATION_CASES, **INDEXING_CASES, **ATTENTION_CASES}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_transformer_ops_applied_to_a_parameter_match_pytorch(case, dtype):
    shape, op, weights = case
    torch.manual_seed(0)
    model = ParameterOp(shape, op, *weights)
    check_step(model, torch.zeros(shape[0]), torch.tensor([1, 0]), dtype=dtype)


def test_dropout_inside_the_flash_kernel_is_refused():
    """`rlx.attention` has no dropout; F.scaled_dot_product_attention sends dropout to its math
    path, so only a direct call of the kernel with dropout_p > 0 meets the refusal."""
    def flash_with_dropout(w, k, v):
        return aten._scaled_dot_product_flash_attention_for_cpu(heads(w), heads(k), heads(v), 0.1, True)[0]

    model = ParameterOp((2, 24), flash_with_dropout, (2, 24), (2, 24)).double()
    with pytest.raises(UnsupportedGraph, match="dropout_p=0.1 inside the flash kernel"):
        export_training_step(model, (torch.zeros(2), torch.tensor([1, 0])))
