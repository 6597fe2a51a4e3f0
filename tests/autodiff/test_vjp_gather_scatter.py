"""The VJPs of `rlx.gather` and `rlx.scatter_add` at the first, second and third order, against PyTorch.

gather's adjoint is scatter_add into zeros and scatter_add's (in src) is gather, so the
orders alternate between the two ops (gather -> scatter_add -> gather ...). The index is a
constant of `@f` (integers get no cotangent), with repeated positions, smaller than the
input outside `dim` and than src. Both ops are linear in their float operands with
coefficients 1, so tests/oracle.py's `K (eps + eps64) A` applies (`vjp_harness.check`).

Oracles: `torch.gather` and `torch.scatter_add` under `torch.autograd.grad`; PyTorch's
double backward of each is the other, as ours.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vjp_harness import check

T = torch.tensor([[2, 0, 2], [1, 1, 3]])  # repeats within a row; position 4 of dim 1 never named
T_MLIR = "dense<[[2, 0, 2], [1, 1, 3]]> : tensor<2x3xi64>"


def gather_source(dim: int, x_shape) -> str:
    x = f"tensor<{'x'.join(map(str, x_shape))}xf64>"
    return f"""
func.func @f(%x: {x}) -> tensor<2x3xf64> {{
  %t = arith.constant {T_MLIR}
  %y = rlx.gather %x, %t dim {dim} : ({x}, tensor<2x3xi64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}}
"""


def scatter_add_source(dim: int, x_shape, s_shape) -> str:
    x = f"tensor<{'x'.join(map(str, x_shape))}xf64>"
    s = f"tensor<{'x'.join(map(str, s_shape))}xf64>"
    return f"""
func.func @f(%x: {x}, %s: {s}) -> {x} {{
  %t = arith.constant {T_MLIR}
  %y = rlx.scatter_add %x, %t, %s dim {dim} : ({x}, tensor<2x3xi64>, {s}) -> {x}
  return %y : {x}
}}
"""


# (dim, input shape): along the rows (index smaller in dim 1) and along the columns.
GATHER = [(0, (4, 5)), (1, (3, 5))]
# (dim, input shape, src shape): src larger than the index in one dim or both.
SCATTER_ADD = [(0, (4, 5), (2, 4)), (1, (3, 5), (3, 3)), (1, (2, 6), (2, 3))]


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("dim, x_shape", GATHER, ids=["dim0", "dim1"])
def test_gather_vjp_matches_pytorch(dim, x_shape, order):
    check(gather_source(dim, x_shape), lambda x: torch.gather(x, dim, T), [x_shape], np.float64, order, label="gather")


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("dim, x_shape, s_shape", SCATTER_ADD, ids=["dim0_src_larger", "dim1_src_rows", "dim1_same"])
def test_scatter_add_vjp_matches_pytorch(dim, x_shape, s_shape, order):
    covered = (slice(0, 2), slice(0, 3))
    fn = lambda x, s: x.scatter_add(dim, T, s[covered])  # noqa: E731
    check(scatter_add_source(dim, x_shape, s_shape), fn, [x_shape, s_shape], np.float64, order, label="scatter_add")


SELECT = torch.tensor([3, 0, 3, 1])  # a repeated slice; slice 2 (and 4, in dim 0) never selected
SELECT_MLIR = "dense<[3, 0, 3, 1]> : tensor<4xi64>"


def index_select_source(dim: int, x_shape) -> str:
    y_shape = [4 if axis == dim else size for axis, size in enumerate(x_shape)]
    x = f"tensor<{'x'.join(map(str, x_shape))}xf64>"
    y = f"tensor<{'x'.join(map(str, y_shape))}xf64>"
    return f"""
func.func @f(%x: {x}) -> {y} {{
  %t = arith.constant {SELECT_MLIR}
  %y = rlx.index_select %x, %t dim {dim} : ({x}, tensor<4xi64>) -> {y}
  return %y : {y}
}}
"""


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("dim, x_shape", [(0, (5, 2)), (1, (2, 4, 3)), (0, (4,))], ids=["dim0", "dim1_of_3", "vector"])
def test_index_select_vjp_matches_pytorch(dim, x_shape, order):
    """index_select's adjoint is index_add (our scatter_add of the index expanded along dim)."""
    fn = lambda x: torch.index_select(x, dim, SELECT)  # noqa: E731
    check(index_select_source(dim, x_shape), fn, [x_shape], np.float64, order, label="index_select")


DISTINCT = torch.tensor([[2, 0, 1], [1, 3, 0]])  # no repeat along either dim: PyTorch's scatter is defined
DISTINCT_MLIR = "dense<[[2, 0, 1], [1, 3, 0]]> : tensor<2x3xi64>"


def scatter_source(dim: int, x_shape, s_shape) -> str:
    x = f"tensor<{'x'.join(map(str, x_shape))}xf64>"
    if s_shape is None:
        return f"""
func.func @f(%x: {x}) -> {x} {{
  %t = arith.constant {DISTINCT_MLIR}
  %y = rlx.scatter_value %x, %t dim {dim} value 1.5 : ({x}, tensor<2x3xi64>) -> {x}
  return %y : {x}
}}
"""
    s = f"tensor<{'x'.join(map(str, s_shape))}xf64>"
    return f"""
func.func @f(%x: {x}, %s: {s}) -> {x} {{
  %t = arith.constant {DISTINCT_MLIR}
  %y = rlx.scatter %x, %t, %s dim {dim} : ({x}, tensor<2x3xi64>, {s}) -> {x}
  return %y : {x}
}}
"""


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("dim, x_shape, s_shape", SCATTER_ADD, ids=["dim0_src_larger", "dim1_src_rows", "dim1_same"])
def test_scatter_vjp_matches_pytorch(dim, x_shape, s_shape, order):
    """x_bar: y_bar with the written positions zeroed; s_bar: gather(y_bar), as PyTorch's."""
    covered = (slice(0, 2), slice(0, 3))
    fn = lambda x, s: x.scatter(dim, DISTINCT, s[covered])  # noqa: E731
    check(scatter_source(dim, x_shape, s_shape), fn, [x_shape, s_shape], np.float64, order, label="scatter")


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("dim, x_shape", GATHER, ids=["dim0", "dim1"])
def test_scatter_value_vjp_matches_pytorch(dim, x_shape, order):
    check(scatter_source(dim, x_shape, None), lambda x: x.scatter(dim, DISTINCT, 1.5), [x_shape], np.float64, order, label="scatter_value")
