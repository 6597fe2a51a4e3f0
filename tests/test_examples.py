"""The shipped examples: they lower, and the training-step gradients match PyTorch autograd."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_close
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


def test_lenet_block_gradients_match_autograd(compile_rlx):
    """conv 3x3 (pad 1) -> max-pool 2x2 on batch 3: dx and dw of sum(pool(conv(x, w)) * dpool)."""
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((3, 3, 32, 32)), dtype=torch.float32, requires_grad=True)
    w = torch.tensor(rng.standard_normal((16, 3, 3, 3)), dtype=torch.float32, requires_grad=True)
    dpool = torch.tensor(rng.standard_normal((3, 16, 16, 16)), dtype=torch.float32)
    y = F.conv2d(x, w, padding=1)
    (F.max_pool2d(y, 2, 2) * dpool).sum().backward()

    module = compile_rlx((EXAMPLES / "lenet_backward.mlir").read_text())
    dx, dw = module["conv_block_backward"](x.detach().numpy(), w.detach().numpy(), y.detach().numpy(), dpool.numpy())
    assert_close(dx, x.grad)
    assert_close(dw, w.grad)
