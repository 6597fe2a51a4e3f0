"""The VJPs of `rlx.index` and `rlx.index_put` at the first, second and third order, against PyTorch.

index's adjoint is index_put with accumulate into zeros, and index_put's (in the values)
is index, so the orders alternate between the two ops; index_put without accumulate also
zeroes the written positions of the input's cotangent (a put of zeros). The index tensors
are constants of `@f` (integers get no cotangent) with repeated positions, a negative one
and a broadcast ([3] with [2, 1]); the values broadcast to the indexed shape. Every op is
linear in its float operands with coefficients 1, so tests/oracle.py's
`K (eps + eps64) A` applies (`vjp_harness.check`).

Oracles: `x[i, j]` and `torch.index_put` under `torch.autograd.grad`. Without accumulate
the values are at distinct positions, where PyTorch defines the result.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vjp_harness import check

I = torch.tensor([3, 0, -1])  # -1 wraps to 3: row 3 is named twice
J = torch.tensor([[1], [4]])  # broadcasts with I to [2, 3]
I_MLIR = "dense<[3, 0, -1]> : tensor<3xi64>"
J_MLIR = "dense<[[1], [4]]> : tensor<2x1xi64>"
DISTINCT = torch.tensor([2, -4, 4])  # rows 2, 1, 4 of 5
DISTINCT_MLIR = "dense<[2, -4, 4]> : tensor<3xi64>"


def index_source() -> str:
    return f"""
func.func @f(%x: tensor<4x5x2xf64>) -> tensor<2x3x2xf64> {{
  %i = arith.constant {I_MLIR}
  %j = arith.constant {J_MLIR}
  %y = rlx.index %x[%i, %j] : (tensor<4x5x2xf64>, tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3x2xf64>
  return %y : tensor<2x3x2xf64>
}}
"""


def index_put_source(v_shape, accumulate: bool) -> str:
    v = f"tensor<{'x'.join(map(str, v_shape))}xf64>" if v_shape else "tensor<f64>"
    if accumulate:
        return f"""
func.func @f(%x: tensor<4x5x2xf64>, %v: {v}) -> tensor<4x5x2xf64> {{
  %i = arith.constant {I_MLIR}
  %j = arith.constant {J_MLIR}
  %y = rlx.index_put %x[%i, %j], %v accumulate true : (tensor<4x5x2xf64>, tensor<3xi64>, tensor<2x1xi64>, {v}) -> tensor<4x5x2xf64>
  return %y : tensor<4x5x2xf64>
}}
"""
    return f"""
func.func @f(%x: tensor<5x2xf64>, %v: {v}) -> tensor<5x2xf64> {{
  %i = arith.constant {DISTINCT_MLIR}
  %y = rlx.index_put %x[%i], %v : (tensor<5x2xf64>, tensor<3xi64>, {v}) -> tensor<5x2xf64>
  return %y : tensor<5x2xf64>
}}
"""


@pytest.mark.parametrize("order", [1, 2, 3])
def test_index_vjp_matches_pytorch(order):
    check(index_source(), lambda x: x[I, J], [(4, 5, 2)], np.float64, order, label="index")


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("v_shape", [(2, 3, 2), (3, 1), ()], ids=["full", "broadcast", "scalar"])
def test_index_put_accumulate_vjp_matches_pytorch(v_shape, order):
    fn = lambda x, v: torch.index_put(x, (I, J), v, accumulate=True)  # noqa: E731
    check(index_put_source(v_shape, True), fn, [(4, 5, 2), v_shape], np.float64, order, label="index_put_acc")


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("v_shape", [(3, 2), (2,)], ids=["full", "broadcast"])
def test_index_put_vjp_matches_pytorch(v_shape, order):
    fn = lambda x, v: torch.index_put(x, (DISTINCT,), v)  # noqa: E731
    check(index_put_source(v_shape, False), fn, [(5, 2), v_shape], np.float64, order, label="index_put")
