"""Calling compiled linalg-on-tensors on NumPy arrays, checked against PyTorch."""

from __future__ import annotations

import ctypes
import gc
import threading

import numpy as np
import pytest
import torch

from rlx_mlir.backend import NativeModule, compile_module

KERNELS = r"""
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
func.func @add(%a: tensor<5x7xf32>, %b: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<5x7xf32>, tensor<5x7xf32>) outs(%e : tensor<5x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
func.func @conv_pad(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x3x9x9xf32> to tensor<2x3x11x11xf32>
  %e = tensor.empty() : tensor<2x4x5x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<2x3x11x11xf32>, tensor<4x3x3x3xf32>) outs(%acc : tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  return %r : tensor<2x4x5x5xf32>
}
func.func @maxpool(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x3x4x4xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : tensor<2x3x8x8xf32>, tensor<2x2xf32>) outs(%acc : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %r : tensor<2x3x4x4xf32>
}
func.func @dyn_softplus_sum(%a: tensor<?x6xf64>, %b: tensor<?x6xf64>) -> (tensor<?x6xf64>, tensor<?x6xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x6xf64>
  %e = tensor.empty(%n) : tensor<?x6xf64>
  %one = arith.constant 1.0 : f64
  %r:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x6xf64>, tensor<?x6xf64>) outs(%e, %e : tensor<?x6xf64>, tensor<?x6xf64>) {
  ^bb0(%x: f64, %y: f64, %o1: f64, %o2: f64):
    %ex = math.exp %x : f64
    %p1 = arith.addf %ex, %one : f64
    %sp = math.log %p1 : f64
    %s = arith.addf %x, %y : f64
    linalg.yield %sp, %s : f64, f64
  } -> (tensor<?x6xf64>, tensor<?x6xf64>)
  return %r#0, %r#1 : tensor<?x6xf64>, tensor<?x6xf64>
}
func.func @gelu_erf(%a: tensor<64xf32>) -> tensor<64xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.707106781 : f32
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %rsqrt2 : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %x, %half : f32
    %g = arith.mulf %h, %p : f32
    linalg.yield %g : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func @int_ops(%a: tensor<6xi32>, %b: tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi8>) {
  %e64 = tensor.empty() : tensor<6xi64>
  %e8 = tensor.empty() : tensor<6xi8>
  %r:2 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xi32>, tensor<6xi64>) outs(%e64, %e8 : tensor<6xi64>, tensor<6xi8>) {
  ^bb0(%x: i32, %y: i64, %o: i64, %o1: i8):
    %xe = arith.extsi %x : i32 to i64
    %m = arith.muli %xe, %y : i64
    %gt = arith.cmpi sgt, %m, %y : i64
    %gt8 = arith.extui %gt : i1 to i8
    linalg.yield %m, %gt8 : i64, i8
  } -> (tensor<6xi64>, tensor<6xi8>)
  return %r#0, %r#1 : tensor<6xi64>, tensor<6xi8>
}
func.func @select(%c: tensor<4xi8>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0 : i8
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%c, %a, %b : tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%p: i8, %x: f32, %y: f32, %o: f32):
    %nz = arith.cmpi ne, %p, %zero : i8
    %s = arith.select %nz, %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @sum_to_scalar(%a: tensor<?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
func.func @exp_in_place(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @identity(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
func.func @twice_the_same(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %a, %a : tensor<3xf32>, tensor<3xf32>
}
func.func @constant() -> tensor<3xf32> {
  %c = arith.constant dense<[1.0, 0xFF800000, 0x7FC00000]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func @big_add(%a: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %e = tensor.empty() : tensor<512x512xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
func.func private @helper(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
func.func @with_index(%a: index) -> index {
  return %a : index
}
"""

rng = np.random.default_rng(0)


@pytest.fixture(scope="module")
def native() -> NativeModule:
    return compile_module(KERNELS)


def randn(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def test_matmul(native: NativeModule) -> None:
    a, b = randn(16, 32), randn(32, 8)
    expected = torch.from_numpy(a) @ torch.from_numpy(b)
    np.testing.assert_allclose(native["matmul"](a, b), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_elementwise_add(native: NativeModule) -> None:
    a, b = randn(5, 7), randn(5, 7)
    out = native["add"](a, b)
    assert out.dtype == np.float32 and out.shape == (5, 7)
    np.testing.assert_array_equal(out, (torch.from_numpy(a) + torch.from_numpy(b)).numpy())


def test_pad_and_strided_conv(native: NativeModule) -> None:
    x, w = randn(2, 3, 9, 9), randn(4, 3, 3, 3)
    expected = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1)
    np.testing.assert_allclose(native["conv_pad"](x, w), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_max_pool_with_negative_infinity_init(native: NativeModule) -> None:
    x = randn(2, 3, 8, 8)
    expected = torch.nn.functional.max_pool2d(torch.from_numpy(x), 2)
    np.testing.assert_array_equal(native["maxpool"](x), expected.numpy())


@pytest.mark.parametrize("batch", [1, 3, 17, 0])
def test_dynamic_batch_two_results_f64(native: NativeModule, batch: int) -> None:
    a, b = randn(batch, 6, dtype=np.float64), randn(batch, 6, dtype=np.float64)
    softplus, total = native["dyn_softplus_sum"](a, b)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert softplus.shape == total.shape == (batch, 6)
    assert softplus.dtype == np.float64
    np.testing.assert_allclose(softplus, torch.nn.functional.softplus(ta).numpy(), rtol=1e-12)
    np.testing.assert_allclose(total, (ta + tb).numpy(), rtol=1e-15)


def test_math_erf_lowers_to_libm(native: NativeModule) -> None:
    x = randn(64)
    expected = torch.nn.functional.gelu(torch.from_numpy(x))
    np.testing.assert_allclose(native["gelu_erf"](x), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_integer_tensors_and_booleans_as_i8(native: NativeModule) -> None:
    a = np.array([1, -2, 3, 4, 0, 7], dtype=np.int32)
    b = np.array([5, 6, -7, 2**40, 9, -1], dtype=np.int64)
    product, greater = native["int_ops"](a, b)
    expected = torch.from_numpy(a).long() * torch.from_numpy(b)
    np.testing.assert_array_equal(product, expected.numpy())
    assert greater.dtype == np.int8
    np.testing.assert_array_equal(greater.view(np.bool_), (expected > torch.from_numpy(b)).numpy())
    c = np.array([True, False, False, True])
    x, y = randn(4), randn(4)
    np.testing.assert_array_equal(native["select"](c.view(np.int8), x, y), np.where(c, x, y))


def test_rank0_result_and_python_list_input(native: NativeModule) -> None:
    out = native["sum_to_scalar"]([1.0, 2.0, 3.5])
    assert out.shape == () and out.dtype == np.float32
    assert out == pytest.approx(6.5)


def test_inputs_are_never_written(native: NativeModule) -> None:
    a = np.array([0.0, 1.0, -1.0, 2.0], dtype=np.float32)
    before = a.copy()
    np.testing.assert_allclose(native["exp_in_place"](a), np.exp(before), rtol=1e-6)
    np.testing.assert_array_equal(a, before)


def test_read_only_input(native: NativeModule) -> None:
    a = np.array([0.0, 1.0, -1.0, 2.0], dtype=np.float32)
    a.setflags(write=False)
    np.testing.assert_allclose(native["exp_in_place"](a), np.exp(a), rtol=1e-6)


def test_non_contiguous_inputs(native: NativeModule) -> None:
    big_a, big_b = randn(32, 32), randn(16, 64)
    a = big_a[::2, :]  # row stride 2
    b = big_b.T[::2, ::2]  # transposed and strided
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    expected = torch.from_numpy(np.ascontiguousarray(a)) @ torch.from_numpy(np.ascontiguousarray(b))
    np.testing.assert_allclose(native["matmul"](a, b), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_returned_argument_is_a_fresh_buffer(native: NativeModule) -> None:
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    out = native["identity"](a)
    out[0] = 42.0
    assert a[0] == 1.0
    first, second = native["twice_the_same"](a)
    np.testing.assert_array_equal(first, a)
    np.testing.assert_array_equal(second, a)
    first[0] = 7.0
    assert a[0] == 1.0


def test_constant_result_keeps_special_values(native: NativeModule) -> None:
    out = native["constant"]()
    assert out[0] == 1.0 and out[1] == -np.inf and np.isnan(out[2])


def test_results_outlive_the_module() -> None:
    module = compile_module(KERNELS)
    out = module["add"](np.ones((5, 7), np.float32), np.ones((5, 7), np.float32))
    del module
    gc.collect()
    np.testing.assert_array_equal(out, np.full((5, 7), 2.0, np.float32))


def test_argument_count_error(native: NativeModule) -> None:
    with pytest.raises(TypeError, match=r"^matmul\(\) takes 2 argument\(s\) \(tensor<16x32xf32>, tensor<32x8xf32>\), got 1$"):
        native["matmul"](randn(16, 32))


def test_dtype_error(native: NativeModule) -> None:
    with pytest.raises(TypeError, match=r"^matmul\(\): argument 1 \(tensor<32x8xf32>\) expects dtype float32, got float64$"):
        native["matmul"](randn(16, 32), randn(32, 8, dtype=np.float64))


def test_rank_error(native: NativeModule) -> None:
    with pytest.raises(ValueError, match=r"^add\(\): argument 0 \(tensor<5x7xf32>\) expects rank 2, got shape \(35,\)$"):
        native["add"](randn(35), randn(5, 7))


def test_static_dim_error(native: NativeModule) -> None:
    with pytest.raises(ValueError, match=r"^dyn_softplus_sum\(\): argument 1 \(tensor<\?x6xf64>\) expects shape \('\?', 6\), got \(2, 5\)$"):
        native["dyn_softplus_sum"](randn(2, 6, dtype=np.float64), randn(2, 5, dtype=np.float64))


def test_private_and_non_tensor_functions(native: NativeModule) -> None:
    assert "helper" not in native
    with pytest.raises(KeyError, match="no public function 'helper'"):
        native["helper"]
    assert "with_index" not in native
    with pytest.raises(TypeError, match=r"with_index cannot be called from NumPy: argument 0: index is not a ranked tensor"):
        native["with_index"]


def test_concurrent_calls(native: NativeModule) -> None:
    inputs = [(randn(16, 32), randn(32, 8)) for _ in range(4)]
    expected = [a @ b for a, b in inputs]
    failures: list[str] = []

    def worker(i: int) -> None:
        for _ in range(50):
            out = native["matmul"](*inputs[i])
            if not np.allclose(out, expected[i], rtol=1e-5, atol=1e-5):
                failures.append(f"thread {i}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_no_leak_over_many_calls(native: NativeModule) -> None:
    """500 calls each returning 1 MiB: a leak would add ~500 MiB."""
    a = randn(512, 512)
    for _ in range(20):
        native["big_add"](a)
    gc.collect()
    before = _rss_bytes()
    for _ in range(500):
        out = native["big_add"](a)
    np.testing.assert_array_equal(out, a + a)
    del out
    gc.collect()
    assert _rss_bytes() - before < 64 * 2**20


def test_exported_c_interface_is_named_after_the_function(native: NativeModule) -> None:
    """Upstream's C interface of ``f`` is ``_mlir_ciface_f`` (README, ``rlx-compile``)."""
    library = ctypes.CDLL(str(native.path))
    assert hasattr(library, "_mlir_ciface_matmul")
    assert not hasattr(library, "_mlir_ciface_helper")


def test_existing_argument_and_function_attributes_are_kept() -> None:
    module = compile_module(
        "func.func @f(%a: tensor<?xf32> {rlx_mlir.batch_group = 0 : i64}, %b: tensor<?xf32>"
        " {rlx_mlir.batch_group = 0 : i64}) -> tensor<?xf32> attributes {llvm.emit_c_interface} {\n"
        "  return %a : tensor<?xf32>\n}\n"
    )
    a = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(module["f"](a, a), a)
    with pytest.raises(ValueError, match=r"arguments 0, 1 must have the same batch size"):
        module["f"](a, a[:2])
