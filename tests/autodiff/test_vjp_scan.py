"""The scans' VJPs at the first and second order, against PyTorch's autograd, both in
float64: of the recurrence written as a loop (`scan_reference`) for the linear scan, of
`torch.cumsum` (flipped for reverse) for cumsum, whose VJP is the cumsum the other way.

Our VJP is a reversed linear scan with the coefficients shifted one step, and a product
with h shifted one step (autodiff/scan.py); its own VJP is again scans and layout ops, so
the second order runs the rule on its own output. Every function here is a polynomial of
the inputs with coefficients +1 (products of coefficients and inputs, summed), and so are
its derivatives: tests/oracle.py's bound `K (eps + eps64) A` applies, A the same function
of |inputs| (`vjp_harness.check`).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rlx_mlir
from oracle import assert_within_bound
from scan_reference import linear_scan
from vjp_harness import check


def _source(shape, dim, reverse) -> str:
    ty = f"tensor<{'x'.join(map(str, shape))}xf64>"
    flag = " reverse true" if reverse else ""
    return (
        f"func.func @f(%a: {ty}, %x: {ty}) -> {ty} {{\n"
        f"  %h = rlx.linear_scan %a, %x dim {dim}{flag} : ({ty}, {ty}) -> {ty}\n"
        f"  return %h : {ty}\n}}\n"
    )


SHAPE = (2, 4, 3)
PARAMS = [
    *(
        pytest.param(SHAPE, dim, reverse, order, id=f"2x4x3-dim{dim}{'-reverse' if reverse else ''}-order{order}")
        for order in (1, 2)
        for dim in range(3)
        for reverse in (False, True)
    ),
    pytest.param((2, 1, 3), 1, False, 2, id="T1-order2"),  # one step: h = x
    pytest.param((5,), 0, True, 2, id="5-reverse-order2"),
    pytest.param((2, 3, 2), 1, False, 3, id="2x3x2-dim1-order3"),  # the rule's own output, differentiated twice more
]


@pytest.mark.parametrize("shape, dim, reverse, order", PARAMS)
def test_linear_scan_vjp_matches_pytorch_loop(shape, dim, reverse, order):
    check(
        _source(shape, dim, reverse), lambda a, x: linear_scan(a, x, dim, reverse), [shape, shape], np.float64, order,
        label=f"linear_scan dim {dim} reverse {reverse}",
    )


@pytest.mark.parametrize("length", [5, 1])
def test_linear_scan_vjp_with_a_dynamic_batch_matches_pytorch(length):
    """The first-order VJP of a scan over a dynamic batch, run at two batch sizes: the
    shifts and the reversed scan carry the batch (T = 1 too, whose shifts are empty)."""
    ty = f"tensor<?x{length}x3xf32>"
    source = (
        f"func.func @f(%a: {ty}, %x: {ty}) -> {ty} {{\n"
        f"  %h = rlx.linear_scan %a, %x dim 1 : ({ty}, {ty}) -> {ty}\n"
        f"  return %h : {ty}\n}}\n"
    )
    vjp = rlx_mlir.compile(rlx_mlir.autodiff(source, "f"))["f_vjp"]
    for seed, n in enumerate((2, 4)):
        rng = np.random.default_rng(seed)
        a, x, h_bar = (rng.uniform(-1, 1, (n, length, 3)).astype(np.float32) for _ in range(3))
        got = vjp(a, x, h_bar)

        def grads(a_, x_, h_bar_):
            ts = [torch.from_numpy(v.astype(np.float64)).requires_grad_() for v in (a_, x_)]
            out = torch.autograd.grad(linear_scan(*ts, 1), ts, torch.from_numpy(h_bar_.astype(np.float64)))
            return [g.numpy() for g in out]

        want = grads(a, x, h_bar)
        magnitude = grads(np.abs(a), np.abs(x), np.abs(h_bar))
        for g, w, m in zip(got, want, magnitude):
            assert g.shape == (n, length, 3)
            assert_within_bound(g, w, m, dtype=np.float32, label=f"linear_scan vjp batch {n}")


def _torch_cumsum(x, dim, reverse):
    return torch.cumsum(x.flip(dim), dim).flip(dim) if reverse else torch.cumsum(x, dim)


@pytest.mark.parametrize("dim, reverse, order", [
    pytest.param(dim, reverse, order, id=f"dim{dim}{'-reverse' if reverse else ''}-order{order}")
    for order in (1, 2) for dim in range(2) for reverse in (False, True)
])
def test_cumsum_vjp_matches_pytorch(dim, reverse, order):
    shape = (3, 4)
    ty = "tensor<3x4xf64>"
    flag = " reverse true" if reverse else ""
    source = (
        f"func.func @f(%x: {ty}) -> {ty} {{\n"
        f"  %y = rlx.cumsum %x dim {dim}{flag} : ({ty}) -> {ty}\n"
        f"  return %y : {ty}\n}}\n"
    )
    check(source, lambda x: _torch_cumsum(x, dim, reverse), [shape], np.float64, order, label=f"cumsum dim {dim}")
