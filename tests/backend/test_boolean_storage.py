"""Boolean tensors through the native backend, against PyTorch's bools.

MLIR 22 cannot store an i1 to memory, so the backend stores boolean tensors as bytes
(`rlx_mlir.backend.boolean_storage`). These functions keep booleans at every place that
conversion touches: as arguments and results (NumPy bool arrays), as the output of a
`linalg.generic` and a reduction, as a dense constant, through a reshape, with a dynamic
batch; the lowered linalg handed to other tools keeps i1.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rlx_mlir import compile as compile_rlx
from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend.interface import module_text

LT_AND_XOR = """
func.func @f(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %m: tensor<?x3xi1>) -> (tensor<?x3xi1>, tensor<?x3xi1>) {
  %lt = rlx.lt %x, %y : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xi1>
  %x2 = rlx.logical_xor %lt, %m : (tensor<?x3xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
  return %lt, %x2 : tensor<?x3xi1>, tensor<?x3xi1>
}
"""

ANY_OF_CONSTANT = """
func.func @f(%x: tensor<2x3xi1>) -> (tensor<2xi1>, tensor<1x3xi1>) {
  %c = arith.constant dense<[[true, false, false], [false, false, true]]> : tensor<2x3xi1>
  %both = rlx.logical_and %x, %c : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %rows = rlx.any %both dims [1] : (tensor<2x3xi1>) -> tensor<2xi1>
  %cols = rlx.all %x dims [0] keepdim true : (tensor<2x3xi1>) -> tensor<1x3xi1>
  return %rows, %cols : tensor<2xi1>, tensor<1x3xi1>
}
"""


@pytest.mark.parametrize("batch", [4, 1, 0])
def test_comparisons_take_and_return_numpy_bools(batch):
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 3)).astype(np.float32)
    y = np.array([0.0, np.nan, -0.5], np.float32)
    m = rng.random((batch, 3)) < 0.5
    lt, xor = compile_rlx(LT_AND_XOR)["f"](x, y, m)
    want_lt = torch.lt(torch.from_numpy(x), torch.from_numpy(y))
    assert lt.dtype == np.bool_ and xor.dtype == np.bool_
    np.testing.assert_array_equal(lt, want_lt.numpy())
    np.testing.assert_array_equal(xor, torch.logical_xor(want_lt, torch.from_numpy(m)).numpy())


def test_reductions_and_constants_of_bools():
    x = np.array([[True, True, False], [True, False, True]])
    rows, cols = compile_rlx(ANY_OF_CONSTANT)["f"](x)
    c = torch.tensor([[True, False, False], [False, False, True]])
    np.testing.assert_array_equal(rows, torch.any(torch.from_numpy(x) & c, dim=1).numpy())
    np.testing.assert_array_equal(cols, torch.all(torch.from_numpy(x), dim=0, keepdim=True).numpy())


def test_a_bool_argument_is_refused_in_another_dtype():
    f = compile_rlx(ANY_OF_CONSTANT)["f"]
    with pytest.raises(TypeError, match="bool"):
        f(np.ones((2, 3), np.int8))


def test_the_lowered_linalg_keeps_i1():
    """Only the native backend stores bytes; the IR handed to mlir-opt or IREE keeps i1."""
    module = lower_to_linalg(ANY_OF_CONSTANT)
    compile_rlx(module)
    text = module_text(module)
    assert "xi1>" in text and "rlx_mlir.boolean" not in text


def test_bool_constants_between_kernels():
    """A step compiled as a graph of kernels (`outline=True`) passes its bool constants to
    the kernels as NumPy bools."""
    x = np.array([[True, True, False], [True, False, True]])
    rows, cols = compile_rlx(ANY_OF_CONSTANT, outline=True)["f"](x)
    c = torch.tensor([[True, False, False], [False, False, True]])
    np.testing.assert_array_equal(rows, torch.any(torch.from_numpy(x) & c, dim=1).numpy())
    np.testing.assert_array_equal(cols, torch.all(torch.from_numpy(x), dim=0, keepdim=True).numpy())
