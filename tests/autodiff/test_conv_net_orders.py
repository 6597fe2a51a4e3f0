"""A small conv net's loss differentiated to the third order: op counts and PyTorch's values.

net(x, w, bias, fc, t) = nll_loss(log_softmax(relu(conv(x, w) + bias) |> max_pool |> flatten @ fc), t)

The IR of each order is the previous order's plus a reverse sweep over all of it, so it
grows geometrically with a bounded ratio (counted, not guessed: `MEASURED`). The first and second orders run
against PyTorch's autograd in float64. The net composes selections (relu, max pool) with
sums, so tests/oracle.py's per-element A has no closed form here; random data puts no
selection within rounding of a tie, and both sides compute in float64, so the bound is
1e-11 of each gradient's largest magnitude (measured worst: below 1e-14).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from vjp_harness import differentiated, ours

NET = """
func.func @f(%x: tensor<2x2x6x6xf64>, %w: tensor<3x2x3x3xf64>, %bias: tensor<3xf64>, %fc: tensor<27x4xf64>, %t: tensor<2xi64>) -> tensor<f64> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<2x2x6x6xf64>, tensor<3x2x3x3xf64>) -> tensor<2x3x6x6xf64>
  %b = rlx.reshape %bias : (tensor<3xf64>) -> tensor<3x1x1xf64>
  %yb = rlx.add %y, %b : (tensor<2x3x6x6xf64>, tensor<3x1x1xf64>) -> tensor<2x3x6x6xf64>
  %r = rlx.relu %yb : (tensor<2x3x6x6xf64>) -> tensor<2x3x6x6xf64>
  %p = rlx.max_pool2d %r kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x3x6x6xf64>) -> tensor<2x3x3x3xf64>
  %flat = rlx.reshape %p : (tensor<2x3x3x3xf64>) -> tensor<2x27xf64>
  %logits = rlx.matmul %flat, %fc : (tensor<2x27xf64>, tensor<27x4xf64>) -> tensor<2x4xf64>
  %logp = rlx.log_softmax %logits dim 1 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %ones = arith.constant dense<1.0> : tensor<4xf64>
  %loss, %total = rlx.nll_loss %logp, %t, %ones reduction "mean" ignore_index -100 : (tensor<2x4xf64>, tensor<2xi64>, tensor<4xf64>) -> (tensor<f64>, tensor<f64>)
  return %loss : tensor<f64>
}
"""

SHAPES = [(2, 2, 6, 6), (3, 2, 3, 3), (3,), (27, 4)]


def _torch_net(x, w, bias, fc, t):
    y = F.relu(F.conv2d(x, w, padding=1) + bias.reshape(3, 1, 1))
    logits = F.max_pool2d(y, 2).reshape(2, 27) @ fc
    return F.nll_loss(F.log_softmax(logits, 1), t)


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in SHAPES], np.array([1, 3])


def _close(got, want):
    want = want.detach().numpy()
    scale = np.abs(want).max()
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-11 * max(scale, 1e-300), (np.abs(got - want).max(), scale)


def op_counts(order: int = 3, source: str = NET) -> list[int]:
    module, _ = differentiated(source, order)
    return [sum(1 for _ in f.body.walk()) - 1 for f in module.ops]  # every op but func.return


POOLED_NET = """
func.func @f(%x: tensor<2x2x8x8xf64>, %w: tensor<3x2x3x3xf64>, %bias: tensor<3xf64>, %fc: tensor<12x4xf64>, %t: tensor<2xi64>) -> tensor<f64> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<2x2x8x8xf64>, tensor<3x2x3x3xf64>) -> tensor<2x3x8x8xf64>
  %b = rlx.reshape %bias : (tensor<3xf64>) -> tensor<3x1x1xf64>
  %yb = rlx.add %y, %b : (tensor<2x3x8x8xf64>, tensor<3x1x1xf64>) -> tensor<2x3x8x8xf64>
  %r = rlx.relu %yb : (tensor<2x3x8x8xf64>) -> tensor<2x3x8x8xf64>
  %p = rlx.max_pool2d %r kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x3x8x8xf64>) -> tensor<2x3x4x4xf64>
  %a = rlx.avg_pool2d %p kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x3x4x4xf64>) -> tensor<2x3x2x2xf64>
  %flat = rlx.reshape %a : (tensor<2x3x2x2xf64>) -> tensor<2x12xf64>
  %logits = rlx.matmul %flat, %fc : (tensor<2x12xf64>, tensor<12x4xf64>) -> tensor<2x4xf64>
  %logp = rlx.log_softmax %logits dim 1 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %ones = arith.constant dense<1.0> : tensor<4xf64>
  %loss, %total = rlx.nll_loss %logp, %t, %ones reduction "mean" ignore_index -100 : (tensor<2x4xf64>, tensor<2xi64>, tensor<4xf64>) -> (tensor<f64>, tensor<f64>)
  return %loss : tensor<f64>
}
"""

MEASURED = {"NET": [10, 23, 62, 154], "POOLED_NET": [11, 25, 66, 162]}
"""Ops of f, f_vjp, f_vjp_vjp, f_vjp_vjp_vjp (every op but func.return). Before the
builder folded known zeros and the sharing pass folded reshape chains and commuted
add/mul: NET 10, 24, 64, 158; POOLED_NET 11, 26, 68, 166."""


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_op_counts_grow_geometrically_with_a_bounded_ratio(name):
    """The growth is geometric, not linear, and this is inherent in reverse over reverse:
    @f_vjp^(k+1) holds @f_vjp^k (cloned once, shared) and a reverse sweep over every op
    of it, its own reverse sweep included, so size(k+1) = size(k) + c(k) size(k). The
    cheap-gradient principle bounds c (each rule emits a bounded number of ops per op it
    differentiates), so the ratio stays below a constant: measured 2.3-2.7 here, asserted
    <= 3. No construction makes the interface's functions grow linearly: with `wrt` every
    float argument, the k-th function returns one gradient per float argument of the
    (k-1)-th, which took the (k-2)-th's arguments plus one cotangent per its result. Here
    that is 1, 4, 5, 9, 14, 23, ... results, a Fibonacci sequence, and each is a distinct
    value that takes at least one op, so the ops of order k grow at least as 1.618^k."""
    counts = op_counts(3, globals()[name])
    print(name, "ops of f, f_vjp, f_vjp_vjp, f_vjp_vjp_vjp:", counts)
    assert counts[0] == MEASURED[name][0]
    assert all(b <= 3 * a for a, b in zip(counts, counts[1:])), counts
    assert all(c <= m for c, m in zip(counts, MEASURED[name])), (counts, "grew past the measured counts")


def test_first_order_matches_pytorch():
    values, t = _inputs()
    loss_bar = np.array(0.7)
    got = ours(NET, 1)(*values, t, loss_bar)
    tensors = [torch.tensor(v, requires_grad=True) for v in values]
    want = torch.autograd.grad(_torch_net(*tensors, torch.tensor(t)), tensors, torch.tensor(0.7, dtype=torch.float64))
    for g, w in zip(got, want):
        _close(g, w)


def test_second_order_matches_pytorch():
    """A Hessian-vector product and the mixed terms: the VJP of (grads . v) in every argument."""
    values, t = _inputs()
    rng = np.random.default_rng(1)
    vs = [rng.standard_normal(s) for s in SHAPES]
    loss_bar = np.array(1.0)
    got = ours(NET, 2)(*values, t, loss_bar, *vs)
    tensors = [torch.tensor(v, requires_grad=True) for v in values]
    seed = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    grads = torch.autograd.grad(_torch_net(*tensors, torch.tensor(t)), tensors, seed, create_graph=True)
    want = torch.autograd.grad(grads, [*tensors, seed], [torch.tensor(v) for v in vs], materialize_grads=True)
    assert len(got) == len(want) == 5
    for g, w in zip(got, want):
        _close(g, w)
