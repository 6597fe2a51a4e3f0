"""Batch norm and layer norm (training mode), RMS norm and group norm differentiated twice and three
times: the VJP rules of `rlx.batch_norm_backward`, `rlx.layer_norm_backward` and
`rlx.rms_norm_backward`, `rlx.group_norm_backward`, and the forward rules' cotangents of the saved statistics, against
PyTorch's double backward of F.batch_norm / F.layer_norm / F.rms_norm / F.group_norm (ATen's `batchnorm_double_backward`, `layer_norm_double_backward`), which is
`torch.autograd.grad` of `native_batch_norm_backward` / `native_layer_norm_backward`.

Error model: f64 throughout, both sides. Each gradient is a short composition of
per-element products and per-channel (per-row) sums of <= 16 terms, through invstd =
(var + eps)^(-1/2); no cancellation beyond the centring x - mean, which both sides compute
the same way. The second order's bound is `ULPS * eps(f64) * max|want|` per gradient, ULPS = 512: the
measured worst over these cases is below 64 ulps (2nd and 3rd order), so the bound has an
8x margin and still catches any wrong term (a wrong term errs by O(max|want|)).

Third order: PyTorch 2.13's own third derivative of training-mode batch norm and layer
norm in the input is wrong (its double-backward formulas treat the saved statistics as
not differentiable, `not_implemented` in derivatives.yaml, so the x-gradient of the second
order misses terms: on the batch_norm1d case below, <x_bar, d> is -9.657 where a central
difference of PyTorch's own second order gives -21.536, and ours -21.536). So the third
order is checked against PyTorch's second order differentiated by central differences
along a random direction per argument, h = 1e-5: the error is truncation h^2 |phi_ttt| / 6
plus rounding eps |phi| / h, both below 1e-9 of |phi| + |phi_t| here (measured: 2e-10
relative); the bound is 1e-7 (|phi_t| + |phi| + 1), which a missing term (O(1)) breaks.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from vjp_harness import check, ours, torch_order

ULPS = 512


def _bn_source(shape):
    c = shape[1]
    t = "x".join(map(str, shape)) + "xf64"
    v = f"{c}xf64"
    return f"""
func.func @f(%x: tensor<{t}>, %w: tensor<{v}>, %b: tensor<{v}>) -> tensor<{t}> {{
  %rm = arith.constant dense<0.0> : tensor<{v}>
  %rv = arith.constant dense<1.0> : tensor<{v}>
  %y, %m, %s, %nm, %nv = rlx.batch_norm %x, %w, %b, %rm, %rv momentum 0.1 eps 1.0e-05 : (tensor<{t}>, tensor<{v}>, tensor<{v}>, tensor<{v}>, tensor<{v}>) -> (tensor<{t}>, tensor<{v}>, tensor<{v}>, tensor<{v}>, tensor<{v}>)
  return %y : tensor<{t}>
}}
"""


def _ln_source(shape, k):
    t = "x".join(map(str, shape)) + "xf64"
    wt = "x".join(map(str, shape[len(shape) - k:])) + "xf64"
    st = "x".join(map(str, [*shape[: len(shape) - k], *[1] * k])) + "xf64"
    return f"""
func.func @f(%x: tensor<{t}>, %w: tensor<{wt}>, %b: tensor<{wt}>) -> tensor<{t}> {{
  %y, %m, %r = rlx.layer_norm %x, %w, %b normalized_rank {k} eps 1.0e-05 : (tensor<{t}>, tensor<{wt}>, tensor<{wt}>) -> (tensor<{t}>, tensor<{st}>, tensor<{st}>)
  return %y : tensor<{t}>
}}
"""


def _rms_source(shape, k, weight):
    t = "x".join(map(str, shape)) + "xf64"
    wt = "x".join(map(str, shape[len(shape) - k:])) + "xf64"
    st = "x".join(map(str, [*shape[: len(shape) - k], *[1] * k])) + "xf64"
    params, operand, types = (f", %w: tensor<{wt}>", " weight %w", f", tensor<{wt}>") if weight else ("", "", "")
    return f"""
func.func @f(%x: tensor<{t}>{params}) -> tensor<{t}> {{
  %y, %r = rlx.rms_norm %x{operand} normalized_rank {k} eps 1.0e-05 : (tensor<{t}>{types}) -> (tensor<{t}>, tensor<{st}>)
  return %y : tensor<{t}>
}}
"""


def _gn_source(shape, groups, affine):
    t = "x".join(map(str, shape)) + "xf64"
    c, st = f"{shape[1]}xf64", f"{shape[0]}x{groups}xf64"
    params, operands, types = (f", %w: tensor<{c}>, %b: tensor<{c}>", " affine %w, %b", f", tensor<{c}>, tensor<{c}>") if affine else ("", "", "")
    return f"""
func.func @f(%x: tensor<{t}>{params}) -> tensor<{t}> {{
  %y, %m, %r = rlx.group_norm %x{operands} groups {groups} eps 1.0e-05 : (tensor<{t}>{types}) -> (tensor<{t}>, tensor<{st}>, tensor<{st}>)
  return %y : tensor<{t}>
}}
"""


def _torch_gn(groups):
    return lambda x, w=None, b=None: F.group_norm(x, groups, w, b, eps=1e-5)


def _bn_eval_source(shape):
    t = "x".join(map(str, shape)) + "xf64"
    v = f"{shape[1]}xf64"
    return f"""
func.func @f(%x: tensor<{t}>, %w: tensor<{v}>, %b: tensor<{v}>) -> tensor<{t}> {{
  %rm = arith.constant dense<[0.5, -0.25, 1.0]> : tensor<{v}>
  %rv = arith.constant dense<[0.75, 1.5, 2.0]> : tensor<{v}>
  %y = rlx.batch_norm_inference %x, %w, %b, %rm, %rv eps 1.0e-05 : (tensor<{t}>, tensor<{v}>, tensor<{v}>, tensor<{v}>, tensor<{v}>) -> tensor<{t}>
  return %y : tensor<{t}>
}}
"""


def _torch_bn_eval(x, w, b):
    rm = torch.tensor([0.5, -0.25, 1.0], dtype=x.dtype)
    rv = torch.tensor([0.75, 1.5, 2.0], dtype=x.dtype)
    return F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-5)


def _torch_rms(k):
    return lambda x, w=None: F.rms_norm(x, x.shape[x.dim() - k:], w, eps=1e-5)


def _torch_bn(x, w, b):
    c = x.shape[1]
    zeros, ones = torch.zeros(c, dtype=x.dtype), torch.ones(c, dtype=x.dtype)
    return F.batch_norm(x, zeros, ones, w, b, training=True, momentum=0.1, eps=1e-5)


def _torch_ln(k):
    return lambda x, w, b: F.layer_norm(x, x.shape[x.dim() - k:], w, b, eps=1e-5)


CASES = [
    pytest.param(_bn_source((3, 2, 2, 2)), _torch_bn, [(3, 2, 2, 2), (2,), (2,)], 2, id="batch_norm2d-order2"),
    pytest.param(_bn_source((4, 3)), _torch_bn, [(4, 3), (3,), (3,)], 2, id="batch_norm1d-NC-order2"),
    pytest.param(_ln_source((3, 4), 1), _torch_ln(1), [(3, 4), (4,), (4,)], 2, id="layer_norm-k1-order2"),
    pytest.param(_ln_source((2, 2, 3), 2), _torch_ln(2), [(2, 2, 3), (2, 3), (2, 3)], 2, id="layer_norm-k2-order2"),
    pytest.param(_rms_source((3, 4), 1, True), _torch_rms(1), [(3, 4), (4,)], 2, id="rms_norm-k1-weight-order2"),
    pytest.param(_rms_source((2, 2, 3), 2, False), _torch_rms(2), [(2, 2, 3)], 2, id="rms_norm-k2-order2"),
    pytest.param(_rms_source((2, 2, 3), 2, True), _torch_rms(2), [(2, 2, 3), (2, 3)], 2, id="rms_norm-k2-weight-order2"),
    pytest.param(_rms_source((2, 3), 1, True), _torch_rms(1), [(2, 3), (3,)], 3, id="rms_norm-k1-weight-order3"),
    # Group norm: the VJP of group_norm_backward (its second order) and the statistics'
    # cotangents, against PyTorch's double backward of F.group_norm.
    pytest.param(_gn_source((2, 4, 3), 2, True), _torch_gn(2), [(2, 4, 3), (4,), (4,)], 1, id="group_norm-g2-affine-order1"),
    pytest.param(_gn_source((2, 4, 3), 4, False), _torch_gn(4), [(2, 4, 3)], 1, id="group_norm-gC-order1"),
    pytest.param(_gn_source((2, 4, 3), 2, True), _torch_gn(2), [(2, 4, 3), (4,), (4,)], 2, id="group_norm-g2-affine-order2"),
    pytest.param(_gn_source((3, 4, 2, 2), 1, True), _torch_gn(1), [(3, 4, 2, 2), (4,), (4,)], 2, id="group_norm-g1-2d-order2"),
    pytest.param(_gn_source((2, 3, 4), 3, False), _torch_gn(3), [(2, 3, 4)], 2, id="group_norm-gC-order2"),
    # Eval-mode batch norm's third order: the second of its gradient op,
    # batch_norm_inference_backward (PyTorch's statistics are constants there, as ours).
    pytest.param(_bn_eval_source((2, 3, 4)), _torch_bn_eval, [(2, 3, 4), (3,), (3,)], 3, id="batch_norm_inference-order3"),
    pytest.param(_gn_source((3, 8), 2, True), _torch_gn(2), [(3, 8), (8,), (8,)], 2, id="group_norm-NC-order2"),
]


@pytest.mark.parametrize("source, fn, shapes, order", CASES)
def test_norm_higher_order_matches_pytorch(source, fn, shapes, order):
    check(source, fn, shapes, np.float64, order, ulps=ULPS, label="norm")


THIRD = [
    pytest.param(_bn_source((2, 2, 3)), _torch_bn, (2, 2, 3), (2,), (2,), id="batch_norm1d"),
    pytest.param(_ln_source((2, 3), 1), _torch_ln(1), (2, 3), (3,), (3,), id="layer_norm"),
    pytest.param(_gn_source((2, 4, 3), 2, True), _torch_gn(2), (2, 4, 3), (4,), (4,), id="group_norm"),
]


@pytest.mark.parametrize("source, fn, x_shape, w_shape, b_shape", THIRD)
def test_norm_third_order_matches_central_differences_of_pytorch_second_order(source, fn, x_shape, w_shape, b_shape):
    level0 = [x_shape, w_shape, b_shape]
    level1 = [*level0, x_shape]  # @f_vjp's arguments: x, w, b, y_bar
    level2 = [*level1, *level0]  # @f_vjp_vjp's: those and the cotangents of x_bar, w_bar, b_bar
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s) for s in [*level2, *level1]]
    got = ours(source, 3)(*args)
    second, _ = torch_order(fn, 3, 2)
    inputs, cotangents = args[: len(level2)], args[len(level2):]

    def phi(i, direction, t):
        values = [torch.tensor(v) for v in inputs]
        values[i] = values[i] + t * torch.tensor(direction)
        outputs = second(*[v.requires_grad_() for v in values])
        return sum(float((o.detach() * torch.tensor(c)).sum()) for o, c in zip(outputs, cotangents))

    h = 1e-5
    assert len(got) == len(inputs)
    for i, g in enumerate(got):
        direction = rng.standard_normal(inputs[i].shape)
        derivative = (phi(i, direction, h) - phi(i, direction, -h)) / (2 * h)
        ours_derivative = float((g * direction).sum())
        bound = 1e-7 * (abs(derivative) + abs(phi(i, direction, 0.0)) + 1)
        assert abs(ours_derivative - derivative) <= bound, (i, ours_derivative, derivative)
