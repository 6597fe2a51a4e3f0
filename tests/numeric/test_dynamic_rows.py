"""Elementwise and row ops over a dynamic batch, compiled once and run at several sizes,
against PyTorch.

A model exported with a dynamic batch gives its elementwise and row ops a dynamic first
dim ([B*T, C], [B, T, C]). `schedules/threads.mlir` splits such an op in thread parts
along its rows when its last loop, a row, has at least 64 iterations: each part then has
a dynamic number of rows, one part possibly none (a single row), and the split must be
invisible in the results. The rows here are 96 wide, so every op is split; the sizes
are one row, fewer than, exactly and one more than a multiple of the thread count, and
many.

Oracles and error bounds are the single-op tests' (`test_activation_ops`' smooth-op bound
for gelu and its gradient, `test_norm_ops`' cases for layer norm and its gradient); an add
is exact, bit for bit against PyTorch's in the same dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from numeric import test_activation_ops as activation
from numeric import test_norm_ops as norm
from oracle import assert_exact

SIZES = (1, 7, 8, 9, 300)
"""One row, around a multiple of the thread count, and many."""

ROW = 96

ACTIVATIONS = [("gelu", "f64"), ("gelu_backward", "f64"), ("gelu", "f32")]
"""gelu in f32 too: the GPT training step's."""

NORMS = [
    norm.LayerNorm(shape=(1, ROW), dynamic=True, dtype="f64"),
    norm.LayerNorm(shape=(1, 3, ROW), dynamic=True, dtype="f64"),
    norm.LayerNormBackward(shape=(1, ROW), dynamic=True, dtype="f64"),
    norm.LayerNormBackward(shape=(1, 3, ROW), dynamic=True, dtype="f64"),
]

ADD_TYPES = {"rows": f"tensor<?x{ROW}xf64>", "tokens": f"tensor<?x3x{ROW}xf64>"}


def _add_function(name: str, ty: str) -> str:
    body = f"  %y = rlx.add %a, %b : ({ty}, {ty}) -> {ty}\n  return %y : {ty}\n"
    return f"func.func @add_{name}(%a: {ty}, %b: {ty}) -> {ty} {{\n{body}}}\n"


@pytest.fixture(scope="module")
def compiled(compile_rlx):
    """Every op of this module as a function of one module per element type, compiled once
    (the activations' function names do not say their element type)."""
    texts = {
        element: "".join(
            activation.BY_NAME[name].function(element, f"?x{ROW}x") for name, e in ACTIVATIONS if e == element
        )
        for element in ("f32", "f64")
    }
    texts["f64"] += "".join(case.text() for case in NORMS)
    texts["f64"] += "".join(_add_function(name, ty) for name, ty in ADD_TYPES.items())
    return {element: compile_rlx(text) for element, text in texts.items()}


@pytest.mark.parametrize(("name", "element"), ACTIVATIONS, ids=lambda v: str(v))
def test_dynamic_rows_activation_matches_pytorch_at_every_size(name, element, compiled):
    op = activation.BY_NAME[name]
    for size in SIZES:
        rng = np.random.default_rng(size)
        dtype = activation.DTYPES[element]
        args = [(rng.standard_normal((size, ROW)) * 4).astype(dtype) for _ in range(2 if op.backward else 1)]
        got = activation._call(compiled, element, op, f"?x{ROW}x", args)
        assert got.shape == (size, ROW)
        activation.check(op, element, got, args)


@pytest.mark.parametrize("case", NORMS, ids=str)
def test_dynamic_rows_norm_matches_pytorch_at_every_size(case, compiled):
    for size in SIZES:
        rng = np.random.default_rng(size)
        inputs = case.inputs(rng, size)
        got = compiled["f64"][case.symbol](*inputs)
        case.check(got if isinstance(got, tuple) else (got,), inputs)


@pytest.mark.parametrize("name", ADD_TYPES)
def test_dynamic_rows_add_matches_pytorch_at_every_size(name, compiled):
    for size in SIZES:
        rng = np.random.default_rng(size)
        shape = (size, ROW) if name == "rows" else (size, 3, ROW)
        a, b = rng.standard_normal(shape), rng.standard_normal(shape)
        want = torch.add(torch.from_numpy(a), torch.from_numpy(b))
        assert_exact(compiled["f64"][f"add_{name}"](a, b), want)
