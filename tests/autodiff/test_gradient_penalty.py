"""A WGAN-GP gradient penalty on a small conv critic, differentiated by the autodiff pass.

critic(x) = (leaky_relu(conv(x, w)) |> max_pool |> avg_pool |> flatten) @ fc, one score per sample
gp(x, w, fc) = lambda * mean_n (||d sum(critic(x)) / d x_n||_2 - 1)^2

`--autodiff="func=critic wrt=0"` gives `@critic_vjp(x, w, fc, seed) -> d/dx`; the penalty
is written on top of that function's body in RLX ops (`@gp`), and `--autodiff="func=gp"`
differentiates it again, through the conv, activation and pool gradients, with respect
to every critic parameter: that is the second-order use the issue names. Against
`torch.autograd.grad(gp, params)` with `create_graph=True`, in float64. The penalty
composes selections (leaky_relu, max pool), a square root and sums, so the bound is 1e-11
of each gradient's largest magnitude, as in test_conv_net_orders.py (measured: ~1e-15).
"""

from __future__ import annotations

import re

import numpy as np
import torch
import torch.nn.functional as F

import rlx_mlir
from vjp_harness import lower_adjoint_ops

LAMBDA = 10.0
CRITIC = """
func.func @critic(%x: tensor<2x1x8x8xf64>, %w: tensor<3x1x3x3xf64>, %fc: tensor<12x1xf64>) -> tensor<2x1xf64> {
  %c = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<2x1x8x8xf64>, tensor<3x1x3x3xf64>) -> tensor<2x3x8x8xf64>
  %a = rlx.leaky_relu %c negative_slope 0.2 : (tensor<2x3x8x8xf64>) -> tensor<2x3x8x8xf64>
  %m = rlx.max_pool2d %a kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x3x8x8xf64>) -> tensor<2x3x4x4xf64>
  %p = rlx.avg_pool2d %m kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x3x4x4xf64>) -> tensor<2x3x2x2xf64>
  %f = rlx.reshape %p : (tensor<2x3x2x2xf64>) -> tensor<2x12xf64>
  %s = rlx.matmul %f, %fc : (tensor<2x12xf64>, tensor<12x1xf64>) -> tensor<2x1xf64>
  return %s : tensor<2x1xf64>
}
"""

PENALTY = f"""
  %sq = rlx.mul %GRAD, %GRAD : (tensor<2x1x8x8xf64>, tensor<2x1x8x8xf64>) -> tensor<2x1x8x8xf64>
  %ss = rlx.sum %sq dims [1, 2, 3] : (tensor<2x1x8x8xf64>) -> tensor<2xf64>
  %norm = rlx.sqrt %ss : (tensor<2xf64>) -> tensor<2xf64>
  %one = arith.constant dense<1.0> : tensor<f64>
  %d = rlx.sub %norm, %one : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %d2 = rlx.mul %d, %d : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %mean = rlx.mean %d2 dims [0] : (tensor<2xf64>) -> tensor<f64>
  %lambda = arith.constant dense<{LAMBDA}> : tensor<f64>
  %gp = rlx.mul %mean, %lambda : (tensor<f64>, tensor<f64>) -> tensor<f64>
  func.return %gp : tensor<f64>
"""


def gradient_penalty_module() -> str:
    """@critic, @critic_vjp and @gp: critic_vjp's body with the penalty instead of its return."""
    text = str(rlx_mlir.autodiff(CRITIC, "critic", wrt=[0]))
    vjp = re.search(r"func\.func @critic_vjp\((.*?)\) -> tensor<2x1x8x8xf64> \{\n(.*?)\n\s*func\.return (%\w+) :.*?\n\s*\}", text, re.S)
    args, body, grad = vjp.groups()
    gp = f"func.func @gp({args}) -> tensor<f64> {{\n{body}\n{PENALTY.replace('%GRAD', grad)}}}\n"
    return text.rstrip().removesuffix("}") + gp + "}\n"


def test_gradient_penalty_parameter_gradients_match_pytorch():
    source = gradient_penalty_module()
    module = rlx_mlir.autodiff(source, "gp", wrt=[1, 2])
    lower_adjoint_ops(module)
    compiled = rlx_mlir.compile(module, pipeline="plain")
    rng = np.random.default_rng(0)
    x, w, fc = rng.standard_normal((2, 1, 8, 8)), rng.standard_normal((3, 1, 3, 3)), rng.standard_normal((12, 1))
    seed = np.ones((2, 1))
    gp = compiled["gp"](x, w, fc, seed)
    dw, dfc = compiled["gp_vjp"](x, w, fc, seed, np.array(1.0))

    tx, tw, tfc = (torch.tensor(v, requires_grad=True) for v in (x, w, fc))
    a = F.max_pool2d(F.leaky_relu(F.conv2d(tx, tw, padding=1), 0.2), 2)
    scores = F.avg_pool2d(a, 2).reshape(2, 12) @ tfc
    (g,) = torch.autograd.grad(scores.sum(), tx, create_graph=True)
    want_gp = LAMBDA * ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
    want = torch.autograd.grad(want_gp, (tw, tfc))
    for got, ref in ((gp, want_gp), (dw, want[0]), (dfc, want[1])):
        ref = ref.detach().numpy()
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 1e-11 * np.abs(ref).max()
