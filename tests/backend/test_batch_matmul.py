"""Batched rlx.matmul under the optimizing pipelines (batch_matmul.mlir), against torch.bmm.

The schedule threads over the batch and vectorizes whole register tiles; the partial row and
column tiles that sizes such as 1, 3, 17 and 197 leave are peeled off (rows then computed one
at a time) and vectorized too where their shape is static, so those sizes check that the
kinds of tile together cover every element exactly once. A dynamic batch is split
between the threads at run time. A shared operand ([1, K, N], as GQA's keys or a weight
used by every head) reaches the product through rlx.expand, as PyTorch's broadcasting
matmul does.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rlx_mlir
from oracle import MLIR_ELEMENT, assert_matches

SHAPES = [
    # (batch, m, k, n): whole register tiles, then sizes that leave partial ones.
    (3, 16, 8, 64),
    (1, 17, 3, 33),
    (5, 1, 17, 3),
    (2, 197, 16, 197),  # attention over a ViT's 197 tokens: 24 whole row tiles and 5 rows
]


def tensor(shape, element) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def bmm_module(batch, m, k, n, element, shared_rhs=False) -> str:
    a, c, y = tensor((batch, m, k), element), tensor((batch, k, n), element), tensor((batch, m, n), element)
    if not shared_rhs:
        return f"""
func.func @f(%a: {a}, %c: {c}) -> {y} {{
  %y = rlx.matmul %a, %c : ({a}, {c}) -> {y}
  return %y : {y}
}}"""
    shared = tensor((1, k, n), element)
    return f"""
func.func @f(%a: {a}, %s: {shared}) -> {y} {{
  %c = rlx.expand %s : ({shared}) -> {c}
  %y = rlx.matmul %a, %c : ({a}, {c}) -> {y}
  return %y : {y}
}}"""


def random(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def run(text, *arrays):
    return rlx_mlir.compile(text, "optimizing")["f"](*arrays)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "b{}_{}x{}x{}".format(*s))
def test_batched_matmul_matches_torch_bmm(shape, dtype):
    batch, m, k, n = shape
    a, c = random((batch, m, k), dtype, 0), random((batch, k, n), dtype, 1)
    got = run(bmm_module(*shape, MLIR_ELEMENT[np.dtype(dtype)]), a, c)
    assert_matches(got, torch.bmm, (a, c))


@pytest.mark.parametrize("batch", [1, 3])
def test_dynamic_batch_matches_torch_bmm(batch):
    m, k, n = 8, 16, 32
    text = bmm_module("?", m, k, n, "f32")
    a, c = random((batch, m, k), np.float32, 2), random((batch, k, n), np.float32, 3)
    assert_matches(run(text, a, c), torch.bmm, (a, c))


def test_shared_operand_broadcasts_like_torch_matmul():
    batch, m, k, n = 4, 8, 16, 32
    a, shared = random((batch, m, k), np.float64, 4), random((1, k, n), np.float64, 5)
    got = run(bmm_module(batch, m, k, n, "f64", shared_rhs=True), a, shared)
    assert_matches(got, torch.matmul, (a, shared))
