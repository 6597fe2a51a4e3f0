"""The VJP of `rlx.batch_norm` and `rlx.layer_norm` (their ATen gradients), against PyTorch autograd.

Error model: the gradient is `dx = w * invstd * (dy - mean(dy) - xhat * mean(dy * xhat))`,
`dw = sum(dy * xhat)`, `db = sum(dy)` (over the reduced axes), sums of products in which
xhat and invstd carry a few roundings each. The bound is tests/oracle.py's
`K (eps + eps64) A` with A the same expressions on absolute values,
`|w| invstd (|dy| + mean|dy| + |xhat| mean(|dy| |xhat|))`, `sum |dy| |xhat|`, `sum |dy|`.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from oracle import assert_within_bound
from vjp_harness import ours

BN = """
func.func @f(%x: tensor<4x3x2x2xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> tensor<4x3x2x2xf32> {
  %y, %m, %s, %nm, %nv = rlx.batch_norm %x, %w, %b, %rm, %rv momentum 0.1 eps 1.0e-05 : (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<4x3x2x2xf32>
}
"""


def _magnitudes(x, w, dy, axes):
    mean = x.mean(axis=axes, keepdims=True)
    invstd = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)
    xhat = np.abs((x - mean) * invstd)
    ady = np.abs(dy)
    shape = [1] * x.ndim
    shape[1] = -1
    aw = np.abs(w).reshape(shape)
    dx = aw * invstd * (ady + ady.mean(axis=axes, keepdims=True) + xhat * (ady * xhat).mean(axis=axes, keepdims=True))
    return dx, (ady * xhat).sum(axis=axes), ady.sum(axis=axes)


def test_batch_norm_vjp_matches_pytorch():
    rng = np.random.default_rng(0)
    x, dy = (rng.standard_normal((4, 3, 2, 2)).astype(np.float32) for _ in range(2))
    w, b, rm = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    rv = rng.uniform(0.5, 2, 3).astype(np.float32)
    got = ours(BN, 1)(x, w, b, rm, rv, dy)
    t = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, w, b)]
    y = F.batch_norm(t[0], torch.tensor(rm, dtype=torch.float64), torch.tensor(rv, dtype=torch.float64), t[1], t[2], training=True)
    want = torch.autograd.grad(y, t, torch.tensor(dy, dtype=torch.float64))
    magnitudes = _magnitudes(x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64), (0, 2, 3))
    assert len(got) == 5
    for g, wnt, m in zip(got[:3], want, magnitudes):
        assert_within_bound(g, wnt, m, label="batch_norm vjp")
    for g in got[3:]:  # the running statistics get no cotangent
        assert not g.any()


BN_EVAL = """
func.func @f(%x: tensor<2x3x2x2xf64>, %w: tensor<3xf64>, %b: tensor<3xf64>, %rm: tensor<3xf64>, %rv: tensor<3xf64>) -> tensor<2x3x2x2xf64> {
  %y = rlx.batch_norm_inference %x, %w, %b, %rm, %rv eps 1.0e-05 : (tensor<2x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3x2x2xf64>
  return %y : tensor<2x3x2x2xf64>
}
"""


def test_batch_norm_inference_first_and_second_order_match_pytorch():
    """Eval-mode batch norm is affine in x per channel: its VJPs are short products and sums.

    Bound (f64): 16 eps(f64) of each gradient's largest magnitude; the few roundings per
    element (rsqrt, two products, a sum of 8) are well inside it.
    """
    rng = np.random.default_rng(0)
    x, dy, g2 = (rng.standard_normal((2, 3, 2, 2)) for _ in range(3))
    w, b, rm, gw, gb = (rng.standard_normal(3) for _ in range(5))
    rv = rng.uniform(0.5, 2, 3)
    t = [torch.tensor(v, requires_grad=True) for v in (x, w, b)]
    y = F.batch_norm(t[0], torch.tensor(rm), torch.tensor(rv), t[1], t[2], training=False)
    seed = torch.tensor(dy, requires_grad=True)
    first = torch.autograd.grad(y, t, seed, create_graph=True)
    got1 = ours(BN_EVAL, 1)(x, w, b, rm, rv, dy)
    for g, want in zip(got1, first):
        want = want.detach().numpy()
        assert np.abs(g - want).max() <= 16 * np.finfo(np.float64).eps * np.abs(want).max()
    # the second order, differentiated in x, w, bias and dy (the running statistics are inputs)
    rm_bar, rv_bar = np.zeros(3), np.zeros(3)  # cotangents of the zero gradients of rm, rv
    got2 = ours(BN_EVAL, 2)(x, w, b, rm, rv, dy, g2, gw, gb, rm_bar, rv_bar)
    want2 = torch.autograd.grad(first, [*t, seed], [torch.tensor(v) for v in (g2, gw, gb)], materialize_grads=True)
    for g, want in zip([got2[0], got2[1], got2[2], got2[5]], want2):
        want = want.detach().numpy()
        assert np.abs(g - want).max() <= 16 * np.finfo(np.float64).eps * max(np.abs(want).max(), 1e-300)


BN_EVAL_BACKWARD = """
func.func @f(%dy: tensor<2x3x4xf64>, %x: tensor<2x3x4xf64>, %rm: tensor<3xf64>, %rv: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>) {
  %dx, %dw, %db = rlx.batch_norm_inference_backward %dy, %x, %rm, %rv weight %w eps 1.0e-03 : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>)
  return %dx, %dw, %db : tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>
}
"""


def test_batch_norm_inference_backward_vjp_matches_pytorch():
    """The rule of native_batch_norm_backward(train=False) in every operand: dy, x and w
    against autograd through ATen's op; the running statistics, which PyTorch does not
    differentiate there, against central differences of ATen's op (h = 1e-6: truncation
    h^2 |f'''| and rounding eps |f| / h, both below 1e-9 of the derivative here).

    Bound (f64): 16 eps(f64) of each gradient's largest magnitude, as for eval-mode batch
    norm's own VJP (a few roundings per element, sums of 8 terms).
    """
    rng = np.random.default_rng(0)
    dy, x = (rng.standard_normal((2, 3, 4)) for _ in range(2))
    rm, w = (rng.standard_normal(3) for _ in range(2))
    rv = rng.uniform(0.5, 2, 3)
    bars = [rng.standard_normal((2, 3, 4)), rng.standard_normal(3), rng.standard_normal(3)]
    got = ours(BN_EVAL_BACKWARD, 1)(dy, x, rm, rv, w, *bars)

    def aten_backward(dy_, x_, rm_, rv_, w_):
        return torch.ops.aten.native_batch_norm_backward(dy_, x_, w_, rm_, rv_, None, None, False, 1e-3, [True] * 3)

    def inner(values) -> float:
        return sum(float((o * torch.tensor(b)).sum()) for o, b in zip(aten_backward(*values), bars))

    t = [torch.tensor(v, requires_grad=i in (0, 1, 4)) for i, v in enumerate((dy, x, rm, rv, w))]
    want = dict(zip((0, 1, 4), torch.autograd.grad(aten_backward(*t), [t[0], t[1], t[4]], [torch.tensor(b) for b in bars])))
    h = 1e-6
    for i in (2, 3):
        grad = np.zeros(3)
        for c in range(3):
            plus, minus = [torch.tensor(v) for v in (dy, x, rm, rv, w)], [torch.tensor(v) for v in (dy, x, rm, rv, w)]
            plus[i][c] += h
            minus[i][c] -= h
            grad[c] = (inner(plus) - inner(minus)) / (2 * h)
        want[i] = torch.tensor(grad)
    for i in range(5):
        wanted = want[i].detach().numpy()
        bound = (16 * np.finfo(np.float64).eps if i not in (2, 3) else 1e-8) * np.abs(wanted).max()
        assert np.abs(got[i] - wanted).max() <= bound, (i, got[i], wanted)
