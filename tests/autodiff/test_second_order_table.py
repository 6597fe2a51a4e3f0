"""Second order for every RLX op: one table, each case one op in `@f`, `--autodiff` applied
twice (`func=f`, then `func=f_vjp`), compiled and run in f64, against
`torch.autograd.grad(..., create_graph=True)` applied twice (`vjp_harness.check`).

The table holds the ops no other module checks at the second order on their own (the
backward ops, the adjoint ops and the 1-D/3-D ranks); `test_every_op_is_checked_at_the_second_order`
unions it with the other modules' second-order cases and the composite tests, so a new op
fails the suite until it has a case.

PyTorch's side of a backward op is PyTorch's own gradient: the ATen backward op where it
is a public function of its operands (`aten.threshold_backward`, `aten.silu_backward`,
...), else `torch.autograd.grad` of the forward op (the conv, pool and pool-gradient
cases: `_grad(forward(x0), x0, dy)`), and for the adjoint ops the gather at PyTorch's
`return_indices` argmax and `F.fold` (col2im).

Error model: the conv, pool, gather, col2im and piecewise-linear cases are sums of
products with non-negative coefficients (inputs that only select passed unchanged):
tests/oracle.py's `K (eps + eps64) A`, A the same function of |inputs|. The smooth
activations' gradients (sigmoid, silu, gelu, hardswish, log_softmax, softmax and their
backward ops) have no closed-form A: their bound is SMOOTH_ULPS eps(f64) of each
gradient's largest magnitude, the measured worst below a quarter of it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from test_vjp_conv_pool import Case
from vjp_harness import check

SMOOTH_ULPS = 64
F64 = torch.float64
S = (2, 3, 4)


def _grad(output, wrt, cotangent):
    return torch.autograd.grad(output, wrt, cotangent, create_graph=True)[0]


def _input_grad(forward, x, cotangent):
    """PyTorch's gradient of `forward` in `x` (which the harness's shape probe passes plain)."""
    x = x if x.requires_grad else x.detach().requires_grad_()
    return _grad(forward(x), x, cotangent)


ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid_f32_slope(x):
    return F.hardtanh(x + 3, 0.0, 6.0) * ONE_SIXTH_F32


def _leaf(shape):
    """A zero leaf to differentiate a forward op at: its gradient in a linear operand does not read it."""
    return torch.zeros(shape, dtype=F64, requires_grad=True)


def _grad_at(forward, shape, cotangent):
    """PyTorch's gradient of a forward op linear in its input: at a zero leaf of `shape`."""
    x0 = _leaf(shape)
    return _grad(forward(x0), x0, cotangent)


def _gather_at_argmax(pool, x, z):
    out, index = pool(x)
    return z.flatten(2).gather(2, index.flatten(2)).reshape(out.shape)


def _im2col(x, kernel, stride, padding):
    """rlx.im2col{r}d in PyTorch: rows (n, *out), columns (c, *k)."""
    r = len(kernel)
    pad = [p for p in reversed(padding) for _ in (0, 1)]
    x = F.pad(x, pad)
    for axis, (k, s) in enumerate(zip(kernel, stride)):
        x = x.unfold(2 + axis, k, s)
    n, c = x.shape[:2]
    outs, ks = x.shape[2:2 + r], x.shape[2 + r:]
    order = [0, *range(2, 2 + r), 1, *range(2 + r, 2 + 2 * r)]
    return x.permute(order).reshape(n * int(np.prod(outs)), c * int(np.prod(ks)))


def _col2im(x_shape, kernel, stride, padding):
    return lambda cols: _grad(_im2col(x0 := _leaf(x_shape), kernel, stride, padding), x0, cols)


def _fold2d(cols, x_shape, kernel, stride, padding):
    n, c, h, w = x_shape
    rows = cols.shape[0] // n
    return F.fold(cols.reshape(n, rows, -1).transpose(1, 2), (h, w), kernel, stride=stride, padding=padding)


X2, W2, Y2 = (2, 3, 7, 6), (4, 3, 3, 3), (2, 4, 4, 3)  # conv2d stride 2 padding 1
X1, W1, Y1 = (2, 2, 9), (3, 2, 3), (2, 3, 5)  # conv1d stride 2 padding 1
X3, W3, Y3 = (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (1, 2, 2, 2, 2)  # conv3d stride 1 padding 0
TX1, TW1, TY1 = (2, 3, 4), (3, 2, 3), (2, 2, 7)  # conv_transpose1d stride 2 padding 1
TX2, TW2, TY2 = (1, 4, 4, 4), (4, 2, 3, 3), (1, 2, 7, 7)
TX3, TW3, TY3 = (1, 2, 2, 2, 2), (2, 2, 2, 2, 2), (1, 2, 3, 3, 3)  # stride 1 padding 0
C1 = "stride [2] padding [1]"
C2 = "stride [2, 2] padding [1, 1]"
C3 = "stride [1, 1, 1] padding [0, 0, 0]"

conv1 = lambda x, w: F.conv1d(x, w, stride=2, padding=1)  # noqa: E731
conv2 = lambda x, w: F.conv2d(x, w, stride=2, padding=1)  # noqa: E731
conv3 = lambda x, w: F.conv3d(x, w)  # noqa: E731
tconv1 = lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1)  # noqa: E731
tconv2 = lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1)  # noqa: E731
tconv3 = lambda x, w: F.conv_transpose3d(x, w)  # noqa: E731

P1, P2, P3 = (2, 3, 8), (2, 2, 7, 6), (1, 2, 4, 4, 4)  # max/avg pool inputs
Q1, Q2, Q3 = (2, 3, 4), (2, 2, 4, 3), (1, 2, 2, 2, 2)  # their outputs
PW1, PW2, PW3 = "kernel_size [2] stride [2] padding [0]", "kernel_size [3, 3] stride [2, 2] padding [1, 1]", \
    "kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0]"
mp1 = lambda x, **k: F.max_pool1d(x, 2, 2, **k)  # noqa: E731
mp2 = lambda x, **k: F.max_pool2d(x, 3, 2, 1, **k)  # noqa: E731
mp3 = lambda x, **k: F.max_pool3d(x, 2, 2, **k)  # noqa: E731
ap1 = lambda x: F.avg_pool1d(x, 2, 2)  # noqa: E731
ap2 = lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)  # noqa: E731
ap3 = lambda x: F.avg_pool3d(x, 2, 2)  # noqa: E731
A1, A2, A3 = (2, 2, 7), (2, 2, 5, 7), (1, 2, 3, 4, 5)  # adaptive pool inputs
B1, B2, B3 = (2, 2, 3), (2, 2, 3, 2), (1, 2, 2, 2, 3)  # their outputs
amp = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}
aap = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
ADAPTIVE = {1: (A1, B1), 2: (A2, B2), 3: (A3, B3)}

aten = torch.ops.aten

CASES = [
    # the conv family's gradient ops
    Case("conv1d_backward_input", f"rlx.conv1d_backward_input %a0, %a1 kernel_size [3] {C1}", (Y1, W1), X1,
         lambda dy, w: _grad(conv1(x0 := _leaf(X1), w), x0, dy)),
    Case("conv2d_backward_input", f"rlx.conv2d_backward_input %a0, %a1 kernel_size [3, 3] {C2}", (Y2, W2), X2,
         lambda dy, w: _grad(conv2(x0 := _leaf(X2), w), x0, dy)),
    Case("conv3d_backward_input", f"rlx.conv3d_backward_input %a0, %a1 kernel_size [2, 2, 2] {C3}", (Y3, W3), X3,
         lambda dy, w: _grad(conv3(x0 := _leaf(X3), w), x0, dy)),
    Case("conv1d_backward_weight", f"rlx.conv1d_backward_weight %a0, %a1 kernel_size [3] {C1}", (X1, Y1), W1,
         lambda x, dy: _grad(conv1(x, w0 := _leaf(W1)), w0, dy)),
    Case("conv2d_backward_weight", f"rlx.conv2d_backward_weight %a0, %a1 kernel_size [3, 3] {C2}", (X2, Y2), W2,
         lambda x, dy: _grad(conv2(x, w0 := _leaf(W2)), w0, dy)),
    Case("conv3d_backward_weight", f"rlx.conv3d_backward_weight %a0, %a1 kernel_size [2, 2, 2] {C3}", (X3, Y3), W3,
         lambda x, dy: _grad(conv3(x, w0 := _leaf(W3)), w0, dy)),
    Case("conv_transpose1d", f"rlx.conv_transpose1d %a0, %a1 {C1}", (TX1, TW1), TY1, tconv1),
    Case("conv_transpose3d", f"rlx.conv_transpose3d %a0, %a1 {C3}", (TX3, TW3), TY3, tconv3),
    Case("conv_transpose1d_backward_input", f"rlx.conv_transpose1d_backward_input %a0, %a1 {C1}", (TY1, TW1), TX1,
         lambda dy, w: _grad(tconv1(x0 := _leaf(TX1), w), x0, dy)),
    Case("conv_transpose2d_backward_input", f"rlx.conv_transpose2d_backward_input %a0, %a1 {C2}", (TY2, TW2), TX2,
         lambda dy, w: _grad(tconv2(x0 := _leaf(TX2), w), x0, dy)),
    Case("conv_transpose3d_backward_input", f"rlx.conv_transpose3d_backward_input %a0, %a1 {C3}", (TY3, TW3), TX3,
         lambda dy, w: _grad(tconv3(x0 := _leaf(TX3), w), x0, dy)),
    Case("conv_transpose1d_backward_weight", f"rlx.conv_transpose1d_backward_weight %a0, %a1 kernel_size [3] {C1}",
         (TX1, TY1), TW1, lambda x, dy: _grad(tconv1(x, w0 := _leaf(TW1)), w0, dy)),
    Case("conv_transpose2d_backward_weight", f"rlx.conv_transpose2d_backward_weight %a0, %a1 kernel_size [3, 3] {C2}",
         (TX2, TY2), TW2, lambda x, dy: _grad(tconv2(x, w0 := _leaf(TW2)), w0, dy)),
    Case("conv_transpose3d_backward_weight",
         f"rlx.conv_transpose3d_backward_weight %a0, %a1 kernel_size [2, 2, 2] {C3}",
         (TX3, TY3), TW3, lambda x, dy: _grad(tconv3(x, w0 := _leaf(TW3)), w0, dy)),
    # pools, their gradients and the gathers at their argmax
    Case("max_pool3d", f"rlx.max_pool3d %a0 {PW3}", (P3,), Q3, mp3, selects=(0,)),
    Case("avg_pool1d", f"rlx.avg_pool1d %a0 {PW1}", (P1,), Q1, ap1),
    Case("avg_pool3d", f"rlx.avg_pool3d %a0 {PW3}", (P3,), Q3, ap3),
    Case("max_pool1d_backward", f"rlx.max_pool1d_backward %a0, %a1 {PW1}", (P1, Q1), P1,
         lambda x, dy: _input_grad(mp1, x, dy), selects=(0,)),
    Case("max_pool2d_backward", f"rlx.max_pool2d_backward %a0, %a1 {PW2}", (P2, Q2), P2,
         lambda x, dy: _input_grad(mp2, x, dy), selects=(0,)),
    Case("max_pool3d_backward", f"rlx.max_pool3d_backward %a0, %a1 {PW3}", (P3, Q3), P3,
         lambda x, dy: _input_grad(mp3, x, dy), selects=(0,)),
    Case("avg_pool1d_backward", f"rlx.avg_pool1d_backward %a0 {PW1}", (Q1,), P1,
         lambda dy: _grad(ap1(x0 := _leaf(P1)), x0, dy)),
    Case("avg_pool2d_backward", f"rlx.avg_pool2d_backward %a0 {PW2} count_include_pad false", (Q2,), P2,
         lambda dy: _grad(ap2(x0 := _leaf(P2)), x0, dy)),
    Case("avg_pool3d_backward", f"rlx.avg_pool3d_backward %a0 {PW3}", (Q3,), P3,
         lambda dy: _grad(ap3(x0 := _leaf(P3)), x0, dy)),
    Case("max_pool1d_gather", f"rlx.max_pool1d_gather %a0, %a1 {PW1}", (P1, P1), Q1,
         lambda x, z: _gather_at_argmax(lambda v: mp1(v, return_indices=True), x, z), selects=(0,)),
    Case("max_pool2d_gather", f"rlx.max_pool2d_gather %a0, %a1 {PW2}", (P2, P2), Q2,
         lambda x, z: _gather_at_argmax(lambda v: mp2(v, return_indices=True), x, z), selects=(0,)),
    Case("max_pool3d_gather", f"rlx.max_pool3d_gather %a0, %a1 {PW3}", (P3, P3), Q3,
         lambda x, z: _gather_at_argmax(lambda v: mp3(v, return_indices=True), x, z), selects=(0,)),
    *[
        c
        for r, (a, o) in ADAPTIVE.items()
        for c in (
            Case(f"adaptive_avg_pool{r}d", f"rlx.adaptive_avg_pool{r}d %a0", (a,), o,
                 lambda x, r=r, o=o: aap[r](x, o[2:])),
            Case(f"adaptive_max_pool{r}d", f"rlx.adaptive_max_pool{r}d %a0", (a,), o,
                 lambda x, r=r, o=o: amp[r](x, o[2:]), selects=(0,)),
            Case(f"adaptive_avg_pool{r}d_backward", f"rlx.adaptive_avg_pool{r}d_backward %a0", (o,), a,
                 lambda dy, r=r, a=a, o=o: _grad_at(lambda x0: aap[r](x0, o[2:]), a, dy)),
            Case(f"adaptive_max_pool{r}d_backward", f"rlx.adaptive_max_pool{r}d_backward %a0, %a1", (a, o), a,
                 lambda x, dy, r=r, o=o: _input_grad(lambda v: amp[r](v, o[2:]), x, dy), selects=(0,)),
            Case(f"adaptive_max_pool{r}d_gather", f"rlx.adaptive_max_pool{r}d_gather %a0, %a1", (a, a), o,
                 lambda x, z, r=r, o=o: _gather_at_argmax(lambda v: amp[r](v, o[2:], return_indices=True), x, z),
                 selects=(0,)),
        )
    ],
    # im2col and its adjoint
    Case("im2col1d", "rlx.im2col1d %a0 kernel_size [3] stride [2] padding [1]", ((2, 3, 9),), (10, 9),
         lambda x: _im2col(x, (3,), (2,), (1,))),
    Case("im2col3d", "rlx.im2col3d %a0 kernel_size [2, 2, 2] stride [1, 2, 1] padding [0, 1, 0]", ((1, 2, 3, 3, 3),),
         (8, 16), lambda x: _im2col(x, (2, 2, 2), (1, 2, 1), (0, 1, 0))),
    Case("col2im1d", "rlx.col2im1d %a0 kernel_size [3] stride [2] padding [1]", ((10, 9),), (2, 3, 9),
         _col2im((2, 3, 9), (3,), (2,), (1,))),
    Case("col2im2d", "rlx.col2im2d %a0 kernel_size [3, 3] stride [2, 2] padding [1, 1]", ((18, 18),), (2, 2, 5, 6),
         lambda cols: _fold2d(cols, (2, 2, 5, 6), 3, 2, 1)),
    Case("col2im3d", "rlx.col2im3d %a0 kernel_size [2, 2, 2] stride [1, 2, 1] padding [0, 1, 0]", ((8, 16),),
         (1, 2, 3, 3, 3), _col2im((1, 2, 3, 3, 3), (2, 2, 2), (1, 2, 1), (0, 1, 0))),
    # elementwise and activation gradients
    Case("minimum", "rlx.minimum %a0, %a1", (S, (3, 1)), S, torch.minimum),
    Case("maximum", "rlx.maximum %a0, %a1", (S, (3, 1)), S, torch.maximum),
    Case("abs", "rlx.abs %a0", (S,), S, torch.abs, selects=(0,)),
    # PyTorch has no derivative of aten.hardsigmoid_backward, whose gradient is
    # dy * ONE_SIXTH_F32 on -3 < x < 3 (ATen's `1.0f / 6.0f`, also in f64): the same
    # gradient as PyTorch's hardtanh(x + 3, 0, 6) * ONE_SIXTH_F32, whose mask is the same
    Case("hardsigmoid", "rlx.hardsigmoid %a0", (S,), S, lambda x: _hardsigmoid_f32_slope(x), selects=(0,)),
    Case("threshold_backward", "rlx.threshold_backward %a0, %a1 threshold 0.0", (S, S), S,
         lambda dy, x: aten.threshold_backward(dy, x, 0.0), selects=(1,)),
    Case("hardtanh_backward", "rlx.hardtanh_backward %a0, %a1 min_val -0.5 max_val 1.0", (S, S), S,
         lambda dy, x: aten.hardtanh_backward(dy, x, -0.5, 1.0), selects=(1,)),
    Case("leaky_relu_backward", "rlx.leaky_relu_backward %a0, %a1 negative_slope 0.2", (S, S), S,
         lambda dy, x: aten.leaky_relu_backward(dy, x, 0.2, False), selects=(1,)),
    Case("hardsigmoid_backward", "rlx.hardsigmoid_backward %a0, %a1", (S, S), S,
         lambda dy, x: _input_grad(_hardsigmoid_f32_slope, x, dy), selects=(1,)),
]

SMOOTH = [
    Case("hardswish_backward", "rlx.hardswish_backward %a0, %a1", (S, S), S, lambda dy, x: aten.hardswish_backward(dy, x)),
    Case("sigmoid_backward", "rlx.sigmoid_backward %a0, %a1", (S, S), S, lambda dy, y: aten.sigmoid_backward(dy, y)),
    Case("silu_backward", "rlx.silu_backward %a0, %a1", (S, S), S, lambda dy, x: _input_grad(F.silu, x, dy)),
    Case("gelu_backward", "rlx.gelu_backward %a0, %a1", (S, S), S, lambda dy, x: aten.gelu_backward(dy, x)),
    Case("gelu_backward_tanh", 'rlx.gelu_backward %a0, %a1 approximate "tanh"', (S, S), S,
         lambda dy, x: aten.gelu_backward(dy, x, approximate="tanh")),
    Case("log_softmax_backward", "rlx.log_softmax_backward %a0, %a1 dim 1", (S, S), S,
         lambda dy, y: aten._log_softmax_backward_data(dy, y, 1, F64)),
    Case("softmax_backward", "rlx.softmax_backward %a0, %a1 dim 2", (S, S), S,
         lambda dy, y: aten._softmax_backward_data(dy, y, 2, F64)),
]

PARAMS = [pytest.param(c, None, id=c.name) for c in CASES] + [pytest.param(c, SMOOTH_ULPS, id=c.name) for c in SMOOTH]


@pytest.mark.parametrize("case, ulps", PARAMS)
def test_second_order_matches_pytorch(case, ulps):
    check(case.source("f64"), case.fn, case.shapes, np.float64, 2, selects=case.selects, label=case.name, ulps=ulps)


NLL = """
func.func @f(%x: tensor<3x4xf64>) -> tensor<f64> {
  %t = arith.constant dense<[1, 3, 0]> : tensor<3xi64>
  %w = arith.constant dense<[1.0, 0.5, 2.0, 1.5]> : tensor<4xf64>
  %loss, %total = rlx.nll_loss %x, %t, %w reduction "mean" ignore_index -100 : (tensor<3x4xf64>, tensor<3xi64>, tensor<4xf64>) -> (tensor<f64>, tensor<f64>)
  return %loss : tensor<f64>
}
"""

NLL_BACKWARD = """
func.func @f(%g: tensor<f64>, %x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %t = arith.constant dense<[1, 3, 0]> : tensor<3xi64>
  %w = arith.constant dense<[1.0, 0.5, 2.0, 1.5]> : tensor<4xf64>
  %tw = arith.constant dense<3.0> : tensor<f64>
  %dx = rlx.nll_loss_backward %g, %x, %t, %w, %tw reduction "mean" ignore_index -100 : (tensor<f64>, tensor<3x4xf64>, tensor<3xi64>, tensor<4xf64>, tensor<f64>) -> tensor<3x4xf64>
  return %dx : tensor<3x4xf64>
}
"""

_T = torch.tensor([1, 3, 0])
_W = torch.tensor([1.0, 0.5, 2.0, 1.5], dtype=F64)


@pytest.mark.parametrize("source, fn, shapes", [
    pytest.param(NLL, lambda x: F.nll_loss(x, _T, weight=_W), [(3, 4)], id="nll_loss"),
    pytest.param(NLL_BACKWARD, lambda g, x: aten.nll_loss_backward(g, x, _T, _W, 1, -100, torch.tensor(3.0, dtype=F64)),
                 [(), (3, 4)], id="nll_loss_backward"),
])
def test_nll_loss_second_order_matches_pytorch(source, fn, shapes):
    """The target, class weights and total weight are constants (integer, and not
    differentiable in PyTorch's nll_loss); the total weight is sum w[t] = 3, the value
    nll_loss gives it (PyTorch's derivative of nll_loss_backward recomputes it from the
    target rather than reading the operand, ours reads the operand). The loss is linear
    in x with weights w[t]/3, so tests/oracle.py's bound applies."""
    check(source, fn, shapes, np.float64, 2, label="nll_loss")


COMPOSITE = {
    "split": "test_vjp_activation_layout.py::test_split_then_concat_vjp_matches_pytorch[2]",
    "batch_norm": "test_vjp_norm_orders.py (second order)",
    "layer_norm": "test_vjp_norm_orders.py (second order)",
    "batch_norm_inference": "test_vjp_norm.py::test_batch_norm_inference_first_and_second_order_match_pytorch",
    "batch_norm_backward": "test_vjp_norm_orders.py (third order of batch_norm = second of its gradient op)",
    "layer_norm_backward": "test_vjp_norm_orders.py (third order of layer_norm = second of its gradient op)",
    "rms_norm": "test_vjp_norm_orders.py (second order)",
    "rms_norm_backward": "test_vjp_norm_orders.py (third order of rms_norm = second of its gradient op)",
    "group_norm": "test_vjp_norm_orders.py (second order)",
    "group_norm_backward": "test_vjp_norm_orders.py (third order of group_norm = second of its gradient op)",
    "batch_norm_inference_backward": "test_vjp_norm_orders.py (third order of batch_norm_inference)",
    "nll_loss": "test_nll_loss_second_order_matches_pytorch",
    "nll_loss_backward": "test_nll_loss_second_order_matches_pytorch",
    "linear_scan": "test_vjp_scan.py::test_linear_scan_vjp_matches_pytorch_loop (order 2)",
    "cumsum": "test_vjp_scan.py::test_cumsum_vjp_matches_pytorch (order 2)",
    "embedding": "test_vjp_indexing.py::test_embedding_vjp_matches_pytorch (order 2)",
    "embedding_backward": "test_vjp_indexing.py::test_embedding_backward_vjp_matches_pytorch (orders 2 and 3)",
    "rope": "test_vjp_rope.py::test_rope_vjp_matches_pytorch (order 2)",
    "rope_backward": "test_vjp_rope.py::test_rope_vjp_matches_pytorch (order 2)",
    "fake_quantize": "test_vjp_quantization.py::test_fake_quantize_vjp_matches_pytorch[2]",
    "ste_backward": "test_vjp_quantization.py::test_ste_backward_vjp_matches_pytorch (order 2, every kind)",
    "fake_quantize_per_channel": "test_vjp_quantization.py::test_fake_quantize_per_channel_vjp_matches_pytorch[2]",
    "fake_quantize_per_channel_backward":
        "test_vjp_quantization.py::test_fake_quantize_per_channel_backward_vjp_matches_pytorch[2]",
    "fake_quantize_tensor_qparams": "test_vjp_quantization.py::test_fake_quantize_tensor_qparams_vjp_matches_pytorch[2]",
    "fake_quantize_tensor_qparams_backward":
        "test_vjp_quantization.py::test_fake_quantize_tensor_qparams_backward_vjp_matches_pytorch[2]",
    **{op: "statistics, no cotangent (test_vjp_quantization.py::test_an_observed_grid_gets_no_gradient)"
       for op in ("moving_average_min_max", "choose_qparams")},
    "gather": "test_vjp_gather_scatter.py::test_gather_vjp_matches_pytorch (orders 2 and 3)",
    "scatter_add": "test_vjp_gather_scatter.py::test_scatter_add_vjp_matches_pytorch (orders 2 and 3)",
    "index_select": "test_vjp_gather_scatter.py::test_index_select_vjp_matches_pytorch (orders 2 and 3)",
    "scatter": "test_vjp_gather_scatter.py::test_scatter_vjp_matches_pytorch (orders 2 and 3)",
    "scatter_value": "test_vjp_gather_scatter.py::test_scatter_value_vjp_matches_pytorch (order 2)",
    "index": "test_vjp_index_put.py::test_index_vjp_matches_pytorch (orders 2 and 3)",
    "index_put": "test_vjp_index_put.py::test_index_put_accumulate_vjp_matches_pytorch, "
                 "test_index_put_vjp_matches_pytorch (orders 2 and 3)",
    **{op: "test_vjp_selection.py::test_vjp_matches_pytorch (order 2, f64)"
       for op in ("where", "masked_fill", "clamp", "clamp_backward", "tril", "triu")},
    "cast": "test_vjp_creation.py::test_cast_vjp_matches_pytorch (order 2, f32 <-> f64)",
    **{op: "test_vjp_comparison.py::test_float_loss_beside_comparisons_matches_pytorch (order 2; an i1 result has "
           "no cotangent: test_rule_gives_no_cotangent)"
       for op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not",
                  "any", "all")},
    "attention": "test_vjp_attention.py::test_attention_higher_orders_match_pytorch_math (order 2)",
    "attention_backward": "test_vjp_attention.py::test_attention_higher_orders_match_pytorch_math (order 2 of attention "
                          "= first of its gradient op; test_third_order_matches_pytorch_math, its second)",
    "arange": "no differentiable operand (lit_tests/autodiff/creation.mlir)",
    "full": "no differentiable operand (lit_tests/autodiff/creation.mlir)",
}
"""Ops checked at the second order by a test that is not a one-op `Case`."""


def _second_order_case_ops() -> set[str]:
    import test_vjp_activation_layout
    import test_vjp_conv_pool
    import test_vjp_elementwise
    import test_vjp_im2col

    def op_of(case):
        return case.op.split()[0][len("rlx."):]

    ops = {op_of(c) for c in [*CASES, *SMOOTH]}
    ops |= {op_of(p.values[0]) for p in test_vjp_conv_pool.PARAMS if p.values[1] >= 2}
    ops |= {op_of(p.values[0]) for p in test_vjp_elementwise.PARAMS if p.values[3] >= 2}
    ops |= {op_of(p.values[0]) for p in test_vjp_activation_layout.PARAMS if p.values[1] >= 2}
    ops |= {op_of(c) for c in test_vjp_im2col.CASES}  # orders 1 and 2
    return ops


def test_every_op_is_checked_at_the_second_order():
    from rlx_mlir.dialects import rlx

    covered = _second_order_case_ops() | set(COMPOSITE)
    missing = sorted(op.name[len("rlx."):] for op in rlx.RLX.operations if op.name[len("rlx."):] not in covered)
    assert not missing, f"ops without a second-order check against PyTorch: {', '.join(missing)}"
