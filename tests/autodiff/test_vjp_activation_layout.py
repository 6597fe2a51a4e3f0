"""The autodiff pass on the piecewise-linear activations and the layout ops, against PyTorch.

Each VJP here is a selection (threshold_backward: dy or 0), a product of a cotangent with
a constant slope (leaky_relu, hardtanh, hardsigmoid), or data movement (the layout ops),
so the error model of tests/oracle.py applies as in test_vjp_conv_pool.py: A = the same
function of |inputs|, the activation's x passed unchanged where it only selects. The
second order runs the rules of the gradient ops (zero in x almost everywhere).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from test_vjp_conv_pool import Case
from vjp_harness import check

S = (2, 3, 4)

CASES = [
    Case("relu", "rlx.relu %a0", (S,), S, F.relu, selects=(0,)),
    Case("hardtanh", "rlx.hardtanh %a0 min_val -0.5 max_val 1.0", (S,), S, lambda x: F.hardtanh(x, -0.5, 1.0), selects=(0,)),
    Case("leaky_relu", "rlx.leaky_relu %a0 negative_slope 0.2", (S,), S, lambda x: F.leaky_relu(x, 0.2), selects=(0,)),
    Case("reshape", "rlx.reshape %a0", (S,), (6, 4), lambda x: x.reshape(6, 4)),
    Case("permute", "rlx.permute %a0 dims [2, 0, 1]", (S,), (4, 2, 3), lambda x: x.permute(2, 0, 1)),
    Case("slice", "rlx.slice %a0 dim 2 start 1 end 4 step 2", (S,), (2, 3, 2), lambda x: x[:, :, 1:4:2]),
    Case("slice_backward", "rlx.slice_backward %a0 dim 1 start 1 end 3 step 1", ((2, 2, 4),), (2, 3, 4),
         lambda dy: torch.ops.aten.slice_backward(dy, [2, 3, 4], 1, 1, 3, 1)),
    Case("concat", "rlx.concat %a0, %a1 dim 1", ((2, 3, 4), (2, 1, 4)), (2, 4, 4), lambda a, b: torch.cat([a, b], 1)),
]

PARAMS = [pytest.param(case, order, id=f"{case.name}-order{order}-f32") for case in CASES for order in case.orders]


@pytest.mark.parametrize("case, order", PARAMS)
def test_vjp_matches_pytorch(case, order):
    check(case.source("f32"), case.fn, case.shapes, np.float32, order, selects=case.selects, label=case.name)


SPLIT = """
func.func @f(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %p0, %p1 = rlx.split %x dim 1 sizes [2, 3] : (tensor<2x5x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x3x3xf32>)
  %y = rlx.concat %p1, %p0 dim 1 : (tensor<2x3x3xf32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}
"""


@pytest.mark.parametrize("order", [1, 2])
def test_split_then_concat_vjp_matches_pytorch(order):
    """split's VJP (a concat of the pieces' cotangents) and concat's (slices), composed."""
    fn = lambda x: torch.cat(list(reversed(torch.split(x, [2, 3], 1))), 1)  # noqa: E731
    check(SPLIT, fn, [(2, 5, 3)], np.float32, order, label="split-concat")
