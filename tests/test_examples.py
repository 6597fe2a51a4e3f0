"""The shipped examples: they lower, and the training-step gradients match PyTorch autograd."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_matches
from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.mlir")), ids=lambda p: p.name)
def test_example_decomposes_to_upstream_ops(path):
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    DecomposeBackwardPass().apply(ctx, module)
    verify_module(module)
    assert not [op.name for op in module.walk() if op.name.endswith("_backward")]


def conv_block_backward(x, w, y, dpool):
    """PyTorch autograd: dy = d max_pool2d(y, 2) / dy; dx, dw = d conv2d(x, w, padding 1)."""
    y = y.clone().requires_grad_()
    (dy,) = torch.autograd.grad(F.max_pool2d(y, 2, 2), y, dpool)
    x, w = x.clone().requires_grad_(), w.clone().requires_grad_()
    return torch.autograd.grad(F.conv2d(x, w, padding=1), (x, w), dy)


def test_lenet_block_gradients_match_autograd(compile_rlx):
    """conv 3x3 (pad 1) -> max-pool 2x2 on batch 3: dx and dw of sum(pool(conv(x, w)) * dpool)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 3, 32, 32)).astype(np.float32)
    w = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)
    dpool = rng.standard_normal((3, 16, 16, 16)).astype(np.float32)
    y = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1).numpy()  # the forward, as a step runs it

    module = compile_rlx((EXAMPLES / "lenet_backward.mlir").read_text())
    inputs = (x, w, y, dpool)
    dx, dw = module["conv_block_backward"](*inputs)
    # y only selects each window's maximum: A takes it unchanged, |x|, |w| and |dpool|.
    assert_matches(dx, lambda *a: conv_block_backward(*a)[0], inputs, selects=(2,), label="lenet_dx")
    assert_matches(dw, lambda *a: conv_block_backward(*a)[1], inputs, selects=(2,), label="lenet_dw")
