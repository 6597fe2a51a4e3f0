"""A function compiled as kernels (`rlx_mlir.compile(..., outline=True)`): one kernel per
distinct op, the kernels split over libraries built concurrently, the function run as a
graph of kernel calls. The result must be PyTorch's, however the kernels are split."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects import func

import rlx_mlir
from rlx_mlir.api import lower_to_linalg
from rlx_mlir.kernel_graph import KernelGraph, _partition, compile_as_kernels
from oracle import assert_within_bound

# Two convs of one configuration (one kernel), a relu after each (one kernel), a sum of the
# two branches (one kernel): 3 distinct kernels for 5 ops.
SOURCE = """
func.func @f(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %a = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %ra = rlx.relu %a : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %b = rlx.conv2d %ra, %w stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %rb = rlx.relu %b : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %y = rlx.add %ra, %rb : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  func.return %y : tensor<2x4x8x8xf32>
}
"""


def _kernels(module) -> list[func.FuncOp]:
    return [op for op in module.body.block.ops if isinstance(op, func.FuncOp) and op.sym_visibility is not None]


def _torch(x, w):
    a = F.relu(F.conv2d(x, w, padding=1))
    return a + F.relu(F.conv2d(a, w, padding=1))


def _check(got, x, w):
    """Against PyTorch in f64. The error model's magnitude A is the same net on |x|, |w|
    without the relus (relu(t) <= |t|, so every rounding is bounded by a sum over A's terms)."""
    x64, w64 = (torch.from_numpy(np.asarray(a, np.float64)) for a in (x, w))
    a = F.conv2d(x64.abs(), w64.abs(), padding=1)
    magnitude = a + F.conv2d(a, w64.abs(), padding=1)
    assert_within_bound(got, _torch(x64, w64), magnitude)


def test_one_kernel_per_distinct_op():
    lowered = lower_to_linalg(SOURCE, outline=True)
    assert len(_kernels(lowered)) == 3


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_graph_of_kernels_matches_pytorch_however_split(jobs):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 4, 3, 3)).astype(np.float32)
    graph = compile_as_kernels(lower_to_linalg(SOURCE, outline=True), jobs=jobs)
    assert isinstance(graph, KernelGraph)
    got = graph["f"](x, w)
    _check(got, x, w)


def test_public_api_compiles_as_kernels():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 4, 3, 3)).astype(np.float32)
    got = rlx_mlir.compile(SOURCE, outline=True)["f"](x, w)
    _check(got, x, w)


def test_partition_is_balanced_complete_and_deterministic():
    lowered = lower_to_linalg(SOURCE, outline=True)
    library = lowered.clone()
    for op in list(library.body.block.ops):
        if op.sym_visibility is None:  # the graph itself
            op.detach()
    names = sorted(f.sym_name.data for f in library.body.block.ops)
    first = _partition(library.clone(), 2)
    again = _partition(library.clone(), 2)
    assert len(first) == 2
    assert sorted(f.sym_name.data for part in first for f in part.body.block.ops) == names
    assert [str(part) for part in first] == [str(part) for part in again]
    # More parts than functions: one function each, no empty library.
    assert len(_partition(library.clone(), 8)) == len(names)


def test_partition_keeps_a_module_with_calls_whole():
    lowered = lower_to_linalg(SOURCE, outline=True)  # @f calls its kernels
    assert len(_partition(lowered, 4)) == 1


# The same matmul twice, then tanh of each copy: one matmul and one tanh once merged.
REPEATED = """
func.func @g(%x: tensor<4x3xf64>, %w: tensor<3x3xf64>) -> tensor<4x3xf64> {
  %a = rlx.matmul %x, %w : (tensor<4x3xf64>, tensor<3x3xf64>) -> tensor<4x3xf64>
  %b = rlx.matmul %x, %w : (tensor<4x3xf64>, tensor<3x3xf64>) -> tensor<4x3xf64>
  %ta = rlx.tanh %a : (tensor<4x3xf64>) -> tensor<4x3xf64>
  %tb = rlx.tanh %b : (tensor<4x3xf64>) -> tensor<4x3xf64>
  %y = rlx.mul %ta, %tb : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  func.return %y : tensor<4x3xf64>
}
"""


def test_repeated_ops_are_computed_once_and_match_pytorch():
    lowered = lower_to_linalg(REPEATED, outline=True)
    graph = next(op for op in lowered.body.block.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "g")
    assert [op.callee.string_value().split("_kernel")[0] for op in graph.body.block.ops
            if isinstance(op, func.CallOp)] == ["matmul", "tanh", "mul"]
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
    got = compile_as_kernels(lowered)["g"](x, w)
    want = torch.tanh(torch.from_numpy(x) @ torch.from_numpy(w)) ** 2
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-13, atol=1e-13)
