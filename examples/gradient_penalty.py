"""A WGAN-GP gradient penalty, differentiated twice by `rlx_mlir.autodiff`.

    python examples/gradient_penalty.py

critic(x) = (leaky_relu(conv(x, w)) |> max_pool |> avg_pool |> flatten) @ fc
gp(x, w, fc) = lambda * mean_n (||d sum(critic(x)) / d x_n||_2 - 1)^2

1. `autodiff(critic, wrt=[0])` adds `@critic_vjp(x, w, fc, seed) -> d critic / d x`, in
   RLX ops only.
2. `@gp` is that function's body with the penalty written after it, in RLX ops.
3. `autodiff(gp, wrt=[1, 2])` differentiates the penalty with respect to the critic's
   parameters: the second order, through the conv, activation and pool gradients.

With torch installed, the penalty and its gradients are compared with PyTorch's
`torch.autograd.grad(..., create_graph=True)` differentiated again.
"""

from __future__ import annotations

import re

import numpy as np

import rlx_mlir

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

# lambda * mean((||g_n|| - 1)^2) of the input gradient %GRAD.
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


def penalty_module() -> str:
    """@critic, @critic_vjp, and @gp: critic_vjp's body with the penalty instead of its return."""
    text = str(rlx_mlir.autodiff(CRITIC, "critic", wrt=[0]))
    found = re.search(
        r"func\.func @critic_vjp\((.*?)\) -> tensor<2x1x8x8xf64> \{\n(.*?)\n\s*func\.return (%\w+) :.*?\n\s*\}", text, re.S
    )
    args, body, grad = found.groups()
    gp = f"func.func @gp({args}) -> tensor<f64> {{\n{body}\n{PENALTY.replace('%GRAD', grad)}}}\n"
    return text.rstrip().removesuffix("}") + gp + "}\n"


def main() -> None:
    module = rlx_mlir.autodiff(penalty_module(), "gp", wrt=[1, 2])  # adds @gp_vjp -> (d/dw, d/dfc)
    compiled = rlx_mlir.compile(module)
    rng = np.random.default_rng(0)
    x, w, fc = rng.standard_normal((2, 1, 8, 8)), rng.standard_normal((3, 1, 3, 3)), rng.standard_normal((12, 1))
    seed = np.ones((2, 1))  # the cotangent of critic's scores: d sum(critic) / dx
    gp = compiled["gp"](x, w, fc, seed)
    dw, dfc = compiled["gp_vjp"](x, w, fc, seed, np.array(1.0))
    print(f"gradient penalty {float(gp):.6f}; |d gp/dw| {np.linalg.norm(dw):.6f}, |d gp/dfc| {np.linalg.norm(dfc):.6f}")
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return
    tx, tw, tfc = (torch.tensor(v, requires_grad=True) for v in (x, w, fc))
    scores = F.avg_pool2d(F.max_pool2d(F.leaky_relu(F.conv2d(tx, tw, padding=1), 0.2), 2), 2).reshape(2, 12) @ tfc
    (g,) = torch.autograd.grad(scores.sum(), tx, create_graph=True)
    want_gp = LAMBDA * ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
    want_dw, want_dfc = torch.autograd.grad(want_gp, (tw, tfc))
    worst = max(
        float(np.abs(got - ref.detach().numpy()).max() / np.abs(ref.detach().numpy()).max())
        for got, ref in ((gp, want_gp), (dw, want_dw), (dfc, want_dfc))
    )
    print(f"PyTorch: gradient penalty {want_gp.item():.6f}; largest difference {worst:.1e} of each result's largest value")


if __name__ == "__main__":
    main()
