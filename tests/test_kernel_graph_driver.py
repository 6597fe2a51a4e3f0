"""A kernel graph run by its native driver (`rlx_mlir.backend.graph_driver`): one native
call for all its kernels. Its results must be PyTorch's, for every way a value may cross
the graph (a kernel's several results, a result nobody reads, a reshape that may view its
input, a graph input or a constant returned as it is), at any batch; and a bad input or a
batch mismatch must give the diagnostics of the kernel-by-kernel path."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.errors import UserTypeError, UserValueError
from rlx_mlir.kernel_graph import KernelGraph, compile_as_kernels

# batch_norm: five results, three never read (the driver frees them at once); reshape:
# may return a view of its operand's buffer; %w and the constant come back as they are;
# the add ties %t's batch to %x's.
SOURCE = """
func.func @f(%x: tensor<?x3x4xDT>, %g: tensor<3xDT>, %b: tensor<3xDT>, %w: tensor<12x5xDT>, %t: tensor<?x5xDT>)
    -> (tensor<?x5xDT>, tensor<?x12xDT>, tensor<3xDT>, tensor<12x5xDT>, tensor<3xDT>) {
  %k = arith.constant dense<[0.5, 1.5, -2.0]> : tensor<3xDT>
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %g, %b, %k, %k : (tensor<?x3x4xDT>, tensor<3xDT>, tensor<3xDT>, tensor<3xDT>, tensor<3xDT>) -> (tensor<?x3x4xDT>, tensor<3xDT>, tensor<3xDT>, tensor<3xDT>, tensor<3xDT>)
  %r = rlx.reshape %y : (tensor<?x3x4xDT>) -> tensor<?x12xDT>
  %m = rlx.matmul %r, %w : (tensor<?x12xDT>, tensor<12x5xDT>) -> tensor<?x5xDT>
  %a = rlx.add %m, %t : (tensor<?x5xDT>, tensor<?x5xDT>) -> tensor<?x5xDT>
  %h = rlx.tanh %a : (tensor<?x5xDT>) -> tensor<?x5xDT>
  func.return %h, %r, %mean, %w, %k : tensor<?x5xDT>, tensor<?x12xDT>, tensor<3xDT>, tensor<12x5xDT>, tensor<3xDT>
}
"""

TOLERANCE = {np.float64: 1e-12, np.float32: 2e-5}


@pytest.fixture(scope="module", params=[np.float64, np.float32], ids=["f64", "f32"])
def graph(request):
    dtype = request.param
    text = SOURCE.replace("DT", "f64" if dtype == np.float64 else "f32")
    compiled = compile_as_kernels(lower_to_linalg(text, outline=True))
    assert isinstance(compiled, KernelGraph)
    return dtype, compiled["f"]


def _inputs(dtype, batch, t_batch=None, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(batch, 3, 4), (3,), (3,), (12, 5), (batch if t_batch is None else t_batch, 5)]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _pytorch(x, g, b, w, t):
    x, g, b, w, t = (torch.from_numpy(np.asarray(a, np.float64)) for a in (x, g, b, w, t))
    y = F.batch_norm(x, None, None, g, b, training=True, eps=1e-5)
    r = y.reshape(x.shape[0], 12)
    return torch.tanh(r @ w + t), r, x.mean(dim=(0, 2))


@pytest.mark.parametrize("batch", [1, 2, 7])
def test_driver_matches_pytorch_at_any_batch(graph, batch):
    dtype, f = graph
    arrays = _inputs(dtype, batch)
    h, r, mean, w, k = f(*arrays)
    for got, want in zip((h, r, mean), _pytorch(*arrays)):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want.numpy(), rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
    assert w is arrays[3]
    np.testing.assert_array_equal(k, np.array([0.5, 1.5, -2.0], dtype))


def test_driver_is_bit_identical_to_kernel_by_kernel(graph):
    """Beside the PyTorch test above: the same kernels on the same data, so the same bits."""
    dtype, f = graph
    arrays = _inputs(dtype, 5, seed=1)
    native = f.run_native(arrays)
    assert native is not None
    for got, want in zip(native, f.run_in_python(arrays)):
        np.testing.assert_array_equal(got, want)


def test_results_outlive_later_calls(graph):
    """The returned buffers pass to NumPy: later calls neither free nor overwrite them."""
    dtype, f = graph
    first_inputs = _inputs(dtype, 3, seed=2)
    first = [a.copy() for a in f(*first_inputs)[:3]]
    kept = f(*first_inputs)[:3]
    for seed in range(3, 6):
        f(*_inputs(dtype, 4, seed=seed))
    for got, want in zip(kept, first):
        np.testing.assert_array_equal(got, want)


def _message(f, arrays):
    with pytest.raises((UserTypeError, UserValueError)) as error:
        f(*arrays)
    return type(error.value), str(error.value)


def test_batch_mismatch_gives_the_kernels_diagnostic(graph):
    dtype, f = graph
    arrays = _inputs(dtype, 3, t_batch=4)
    kind, message = _message(f, arrays)
    assert kind is UserValueError and "must have the same batch size" in message
    with pytest.raises(kind) as reference:
        f.run_in_python(arrays)
    assert str(reference.value) == message


@pytest.mark.parametrize("bad", ["dtype", "shape", "rank", "list"])
def test_bad_input_gives_the_kernels_diagnostic(graph, bad):
    dtype, f = graph
    arrays = _inputs(dtype, 2)
    other = np.float32 if dtype == np.float64 else np.float64
    arrays[3] = {
        "dtype": arrays[3].astype(other),
        "shape": arrays[3][:11],
        "rank": arrays[3][0],
        "list": [[1.0, 2.0]],
    }[bad]
    kind, message = _message(f, arrays)
    with pytest.raises(kind) as reference:
        f.run_in_python(arrays)
    assert str(reference.value) == message


def test_array_likes_still_work(graph):
    """Nested lists are converted as before (by the kernel-by-kernel path)."""
    dtype, f = graph
    arrays = _inputs(dtype, 2)
    listed = [a.tolist() for a in arrays]
    for got, want in zip(f(*listed)[:3], f(*arrays)[:3]):
        np.testing.assert_array_equal(got, want)
