"""Every backward op of a ResNet-18 training step at batch 8 (`examples/resnet18_backward.mlir`),
compiled with the default pipeline, against PyTorch autograd.

The layer shapes are the ones the schedules meet in practice (7x7 to 224x224 maps, 3 to 512
channels, strides 1 and 2, 1x1 downsamples, the stem, the pools): each compiled function
runs once on random data and must match PyTorch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects import func

from oracle import assert_matches
from rlx_mlir.dialects import rlx
from rlx_mlir.ir import make_context, parse_module

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "resnet18_backward.mlir"


def _functions() -> list[tuple[str, rlx.RlxOp]]:
    module = parse_module(make_context(), EXAMPLE.read_text(), str(EXAMPLE))
    found = []
    for op in module.body.block.ops:
        assert isinstance(op, func.FuncOp)
        (backward,) = [o for o in op.walk() if o.name.startswith("rlx.")]
        found.append((op.sym_name.data, backward))
    return found


FUNCTIONS = _functions()


@pytest.fixture(scope="module")
def native(compile_rlx):
    return compile_rlx(EXAMPLE.read_text())


def _shape(value) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def _oracle(op):
    """PyTorch's gradient as a function of the op's operands (float64 tensors), and the
    operands that only select (max pool's x)."""
    window = op.window()
    kwargs = dict(stride=window.stride, padding=window.padding)
    if isinstance(op, rlx.Conv2dBackwardWeightOp):
        def conv2d_weight(x, dy):
            return torch.nn.grad.conv2d_weight(x, _shape(op.result), dy, dilation=window.dilation, groups=op.groups(), **kwargs)
        return conv2d_weight, ()
    if isinstance(op, rlx.Conv2dBackwardInputOp):
        def conv2d_input(dy, w):
            return torch.nn.grad.conv2d_input(_shape(op.result), w, dy, dilation=window.dilation, groups=op.groups(), **kwargs)
        return conv2d_input, ()
    if isinstance(op, rlx.MaxPool2dBackwardOp):
        def max_pool2d_backward(x, dy):
            x = x.clone().requires_grad_(True)
            F.max_pool2d(x, window.kernel, dilation=window.dilation, **kwargs).backward(dy)
            return x.grad
        return max_pool2d_backward, (0,)
    assert isinstance(op, rlx.AvgPool2dBackwardOp)

    def avg_pool2d_backward(dy):
        x = torch.zeros(_shape(op.result), dtype=torch.float64, requires_grad=True)
        F.avg_pool2d(x, window.kernel, count_include_pad=op.count_include_pad, **kwargs).backward(dy)
        return x.grad
    return avg_pool2d_backward, ()


@pytest.mark.parametrize("name, op", FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_resnet18_backward_op_matches_pytorch(name, op, native):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(_shape(v)).astype(np.float32) for v in op.operands]
    oracle, selects = _oracle(op)
    assert_matches(native[name](*arrays), oracle, arrays, selects=selects)
