"""Weight gradients of pointwise convs over single cells, lowered as one matrix product, against PyTorch.

A linear layer's weight gradient over a dynamic batch arrives as the weight gradient of a
1x1 conv1d over one cell (`rlx_mlir.torch.batch`); with a 1x1 kernel, unit stride, no
padding and one group, over inputs of one spatial cell, `transforms/conv/pointwise_weight.py`
lowers it to dyᵀ·x, a `linalg.matmul` whose reduction is the batch. Compared with
`torch.nn.grad.conv{1,2}d_weight` in float64 within the error model of `tests/oracle.py`, f32
and f64, 1-D and 2-D (a squeeze-and-excitation conv after a global pool), a static and a
dynamic batch run at several sizes from one compile. Also: which convs take the form.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from oracle import assert_matches
from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import compile_module
from rlx_mlir.backend.interface import module_text


def weight_gradient_source(batch, c, f, cells, dtype, kernel=1, stride=1, padding=0, groups=1, name="f") -> str:
    rank = len(cells)
    element = {np.float32: "f32", np.float64: "f64"}[dtype]
    out = [(size + 2 * padding - kernel) // stride + 1 for size in cells]

    def ty(*shape):
        return "tensor<" + "x".join(map(str, shape)) + f"x{element}>"

    x, dy, dw = ty(batch, c, *cells), ty(batch, f, *out), ty(f, c // groups, *[kernel] * rank)
    window = (f"kernel_size {[kernel] * rank} stride {[stride] * rank} padding {[padding] * rank}"
              f" dilation {[1] * rank} groups {groups}")
    return (f"func.func @{name}(%x: {x}, %dy: {dy}) -> {dw} {{\n"
            f"  %dw = rlx.conv{rank}d_backward_weight %x, %dy {window} : ({x}, {dy}) -> {dw}\n"
            f"  return %dw : {dw}\n}}\n")


def reference(x, dy):
    """PyTorch's conv weight gradient (`torch.nn.grad.conv{1,2}d_weight`)."""
    rank = x.dim() - 2
    weight_gradient = {1: torch.nn.grad.conv1d_weight, 2: torch.nn.grad.conv2d_weight}[rank]
    return weight_gradient(x, (dy.shape[1], x.shape[1], *[1] * rank), dy)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize(
    "c,f,cells,dynamic",
    [(96, 72, (1,), True), (33, 17, (1,), True), (96, 72, (1,), False), (40, 24, (1, 1), False), (40, 24, (1, 1), True)],
    ids=["linear_dynamic", "odd_channels_dynamic", "linear_static", "squeeze_excite_2d", "squeeze_excite_2d_dynamic"],
)
def test_pointwise_weight_gradient_matches_pytorch(c, f, cells, dynamic, dtype):
    batches = (1, 7, 8, 130, 300) if dynamic else (130,)
    fn = compile_module(lower_to_linalg(weight_gradient_source("?" if dynamic else batches[0], c, f, cells, dtype)))["f"]
    rng = np.random.default_rng(0)
    for batch in batches:
        x = rng.standard_normal((batch, c, *cells)).astype(dtype)
        dy = rng.standard_normal((batch, f, *cells)).astype(dtype)
        assert_matches(fn(x, dy), reference, (x, dy), label=f"batch {batch}")


@pytest.mark.parametrize(
    "cells,kwargs,matmul",
    [((1,), {}, True), ((1, 1), {}, True), ((5,), {}, False), ((1,), {"padding": 1, "kernel": 3}, False),
     ((1,), {"groups": 2}, False)],
    ids=["one_cell_1d", "one_cell_2d", "five_cells", "padded_kernel_3", "grouped"],
)
def test_only_pointwise_convs_over_single_cells_become_a_matmul(cells, kwargs, matmul):
    text = weight_gradient_source("?", 4, 6, cells, np.float32, **kwargs)
    assert ("linalg.matmul" in module_text(lower_to_linalg(text))) == matmul
