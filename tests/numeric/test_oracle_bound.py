"""The comparison rule of tests/oracle.py on its own: results it must accept and refuse.

A correct result here is PyTorch's own, computed in the inputs' dtype; a wrong one is that
result with one element moved. The old rule (rtol plus atol scaled by max|want|, kept
below as `old_rule`) accepted an error of 1e-4 max|want| on the smallest entries; the
error-model bound must refuse it, and must still accept an error of a few eps * A.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import K, assert_matches, assert_within_bound, eps


def old_rule(got, want) -> bool:
    """tests/oracle.py before the error model: rtol 2e-4 (f32) / 1e-9 (f64), atol the same times max|want|."""
    tol = {np.dtype(np.float32): 2e-4, np.dtype(np.float64): 1e-9}[np.dtype(got.dtype)]
    scale = max(1.0, float(np.abs(want).max()))
    return bool(np.allclose(got, want, rtol=tol, atol=tol * scale))


def conv2d_weight(x, dy):
    return torch.nn.grad.conv2d_weight(x, (6, 4, 3, 3), dy, stride=2, padding=1)


def matmul(a, b):
    return a @ b


def max_pool2d_backward(x, dy):
    x = x.clone().requires_grad_()
    return torch.autograd.grad(F.max_pool2d(x, 3, 2, 1), x, dy)[0]


@pytest.fixture(params=[np.float32, np.float64], ids=["f32", "f64"])
def conv(request):
    """x, dy of one strided conv weight gradient; PyTorch's result in their dtype; want, A in f64."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 9, 9)).astype(request.param)
    dy = rng.standard_normal((3, 6, 5, 5)).astype(request.param)
    # Mixed scales make the entries' magnitudes differ, as a gradient's do.
    x[:, 0] *= 1e-3
    same_dtype = conv2d_weight(torch.from_numpy(x), torch.from_numpy(dy)).numpy()
    x64, dy64 = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(dy.astype(np.float64))
    want, magnitude = conv2d_weight(x64, dy64).numpy(), conv2d_weight(x64.abs(), dy64.abs()).numpy()
    return (x, dy), same_dtype, want, magnitude


def test_a_correct_result_passes(conv):
    inputs, got, _, _ = conv
    assert_matches(got, conv2d_weight, inputs)


def test_an_error_on_the_smallest_entry_passed_the_old_rule_and_fails_the_new(conv):
    inputs, got, want, _ = conv
    i = np.unravel_index(np.argmin(np.abs(want)), want.shape)
    wrong = got.copy()
    rel = 1e-4 if got.dtype == np.float32 else 5e-10
    wrong[i] += got.dtype.type(rel * np.abs(want).max())
    assert old_rule(wrong, want)
    with pytest.raises(AssertionError, match="1 of 216 finite elements exceed"):
        assert_matches(wrong, conv2d_weight, inputs)


def test_an_error_of_a_few_eps_times_a_passes(conv):
    inputs, got, want, magnitude = conv
    i = np.unravel_index(np.argmin(np.abs(want)), want.shape)
    slightly = want.copy()
    slightly[i] += 0.5 * K[got.dtype] * eps(got.dtype) * magnitude[i]
    assert_matches(slightly.astype(got.dtype), conv2d_weight, inputs)
    beyond = want.copy()
    beyond[i] += 1.5 * K[got.dtype] * (eps(got.dtype) + eps(np.float64)) * magnitude[i]
    with pytest.raises(AssertionError):
        assert_matches(beyond.astype(got.dtype), conv2d_weight, inputs)


def test_the_bound_is_per_element_not_per_tensor(conv):
    """An error the largest entry could carry is too much for a small one."""
    inputs, got, want, magnitude = conv
    big, small = np.argmax(magnitude), np.argmin(magnitude)
    allowed_at_big = 0.9 * K[got.dtype] * eps(got.dtype) * magnitude.flat[big]
    assert allowed_at_big > 100 * K[got.dtype] * eps(got.dtype) * magnitude.flat[small]
    wrong = got.copy()
    wrong.flat[small] += got.dtype.type(allowed_at_big)
    with pytest.raises(AssertionError):
        assert_matches(wrong, conv2d_weight, inputs)


def test_where_a_is_zero_the_result_must_be_exact():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal((5, 3)).astype(np.float32)
    a[2] = 0  # row 2 of a @ b is a sum of zeros
    got = (torch.from_numpy(a) @ torch.from_numpy(b)).numpy()
    assert_matches(got, matmul, (a, b))
    got[2, 1] = np.float32(1e-30)
    assert old_rule(got, (torch.from_numpy(a).double() @ torch.from_numpy(b).double()).numpy())
    with pytest.raises(AssertionError, match="A 0.0"):
        assert_matches(got, matmul, (a, b))


def test_a_selecting_input_enters_a_unchanged():
    """Max pool's x picks the window maxima: |x| would pick others and break the bound's meaning."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    dy = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    got = max_pool2d_backward(torch.from_numpy(x), torch.from_numpy(dy)).numpy()
    assert_matches(got, max_pool2d_backward, (x, dy), selects=(0,))
    # The max of |x| routes dy elsewhere: the cells that get dy differ, so A == 0 where
    # the result is not.
    with pytest.raises(AssertionError):
        assert_matches(got, max_pool2d_backward, (x, dy))


def test_non_finite_values_must_be_where_the_oracle_has_them():
    want = np.array([1.0, np.nan, np.inf, -np.inf])
    magnitude = np.array([1.0, np.nan, np.inf, np.inf])
    assert_within_bound(want.astype(np.float32), want, magnitude)
    for wrong in ([1, 0, np.inf, -np.inf], [1, np.nan, np.nan, -np.inf], [1, np.nan, np.inf, np.inf]):
        with pytest.raises(AssertionError, match="positions differ"):
            assert_within_bound(np.array(wrong, np.float32), want, magnitude)


def test_the_oracle_must_be_float64():
    want = np.ones(3, np.float32)
    with pytest.raises(AssertionError, match="float64"):
        assert_within_bound(want, want, want)


def test_no_bound_is_looser_than_the_old_rule():
    """The new rule tightens every check: K * (eps + eps64) * A stays below the old
    allowance, rtol * |want| + atol * max(1, max|want|), element by element. f16's old
    tolerance was closest to its model; its depthwise weight gradient is the tightest case."""
    from numeric.test_conv_backward_grouped import GROUPED

    cases = [c for c in GROUPED if c.tag == "depthwise"]
    old_tol = {np.dtype(np.float16): 2e-2, np.dtype(np.float32): 2e-4, np.dtype(np.float64): 1e-9}
    for cfg in cases:
        x, _, dy = cfg.arrays(0)
        op = cfg.oracle("w_direct")
        x64, dy64 = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(dy.astype(np.float64))
        want, magnitude = op(x64, dy64).numpy(), op(x64.abs(), dy64.abs()).numpy()
        dtype = np.dtype(cfg.dtype)
        tol = old_tol[dtype]
        rounded = np.abs(want.astype(dtype).astype(np.float64))
        old = tol * rounded + tol * max(1.0, rounded.max())
        new = K[dtype] * (eps(dtype) + eps(np.float64)) * magnitude
        assert (new < old).all(), f"{cfg}: new/old up to {(new / old).max():.3g}"
