"""Hessian-vector products in both orders, and the forward and reverse first orders: their IR
size and run time against the gradient's.

    python -m benchmarks.hvp [--budget 4]

For a small CNN and a tanh MLP (the shape of a physics-informed network), `--autodiff`
gives the gradient `@loss_vjp`, and `--jvp` on it the HVP `@loss_vjp_jvp` (forward over
reverse), which returns the gradient and H v; `--jvp` gives one directional derivative
`@loss_jvp`, and `--autodiff` on it the HVP `@loss_jvp_vjp` (reverse over forward, seeded
(0, 1)). The benchmark counts the ops of each function (RLX ops, after the passes'
cleanup) and times the compiled functions in one process, interleaved
(`benchmarks.harness.time_interleaved`). The tests (`tests/autodiff/test_jvp_compose.py`)
check the same functions against `torch.func.jvp` and `torch.func.hessian`. Results go to
`benchmarks/results/hvp.json`.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

import rlx_mlir
from benchmarks.harness import THREADS, configure_threads, machine_record, preload_openmp, time_interleaved
from rlx_mlir.autodiff.forward import jvp
from rlx_mlir.dialects.rlx import RLX

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


@dataclass(frozen=True)
class Model:
    """`@loss(data..., params...) -> tensor<f64>` and the same loss in PyTorch."""

    name: str
    source: str
    data: tuple
    params: tuple
    fn: Callable = field(compare=False)

    @property
    def wrt(self) -> list[int]:
        return list(range(len(self.data), len(self.data) + len(self.params)))

    def inputs(self, seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """Data, parameters and one tangent per parameter, drawn from N(0, 1) (scaled by 1/2)."""
        rng = np.random.default_rng(seed)
        draw = lambda shapes: [rng.standard_normal(s) * 0.5 for s in shapes]  # noqa: E731
        return draw(self.data), draw(self.params), draw(self.params)


def _mlp_loss(x, w1, b1, w2, b2, w3):
    h = torch.tanh(torch.tanh(x @ w1 + b1) @ w2 + b2)
    return ((h @ w3) ** 2).mean()


MLP = Model(
    "tanh_mlp",
    """
func.func @loss(%x: tensor<16x2xf64>, %w1: tensor<2x16xf64>, %b1: tensor<16xf64>, %w2: tensor<16x16xf64>,
                %b2: tensor<16xf64>, %w3: tensor<16x1xf64>) -> tensor<f64> {
  %m1 = rlx.matmul %x, %w1 : (tensor<16x2xf64>, tensor<2x16xf64>) -> tensor<16x16xf64>
  %a1 = rlx.add %m1, %b1 : (tensor<16x16xf64>, tensor<16xf64>) -> tensor<16x16xf64>
  %h1 = rlx.tanh %a1 : (tensor<16x16xf64>) -> tensor<16x16xf64>
  %m2 = rlx.matmul %h1, %w2 : (tensor<16x16xf64>, tensor<16x16xf64>) -> tensor<16x16xf64>
  %a2 = rlx.add %m2, %b2 : (tensor<16x16xf64>, tensor<16xf64>) -> tensor<16x16xf64>
  %h2 = rlx.tanh %a2 : (tensor<16x16xf64>) -> tensor<16x16xf64>
  %u = rlx.matmul %h2, %w3 : (tensor<16x16xf64>, tensor<16x1xf64>) -> tensor<16x1xf64>
  %sq = rlx.mul %u, %u : (tensor<16x1xf64>, tensor<16x1xf64>) -> tensor<16x1xf64>
  %l = rlx.mean %sq dims [0, 1] : (tensor<16x1xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
""",
    data=((16, 2),),
    params=((2, 16), (16,), (16, 16), (16,), (16, 1)),
    fn=_mlp_loss,
)


def _cnn_loss(x, onehot, w1, w2, b2):
    h = torch.nn.functional.max_pool2d(torch.tanh(torch.nn.functional.conv2d(x, w1, padding=1)), 2)
    logp = torch.log_softmax(h.reshape(2, 36) @ w2 + b2, 1)
    return -(logp * onehot).sum()


CNN = Model(
    "small_cnn",
    """
func.func @loss(%x: tensor<2x1x6x6xf64>, %onehot: tensor<2x3xf64>, %w1: tensor<4x1x3x3xf64>, %w2: tensor<36x3xf64>,
                %b2: tensor<3xf64>) -> tensor<f64> {
  %c = rlx.conv2d %x, %w1 stride [1, 1] padding [1, 1] : (tensor<2x1x6x6xf64>, tensor<4x1x3x3xf64>) -> tensor<2x4x6x6xf64>
  %t = rlx.tanh %c : (tensor<2x4x6x6xf64>) -> tensor<2x4x6x6xf64>
  %p = rlx.max_pool2d %t kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x4x6x6xf64>) -> tensor<2x4x3x3xf64>
  %r = rlx.reshape %p : (tensor<2x4x3x3xf64>) -> tensor<2x36xf64>
  %m = rlx.matmul %r, %w2 : (tensor<2x36xf64>, tensor<36x3xf64>) -> tensor<2x3xf64>
  %z = rlx.add %m, %b2 : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %logp = rlx.log_softmax %z dim 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %picked = rlx.mul %logp, %onehot : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = rlx.sum %picked dims [0, 1] : (tensor<2x3xf64>) -> tensor<f64>
  %l = rlx.neg %s : (tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
""",
    data=((2, 1, 6, 6), (2, 3)),
    params=((4, 1, 3, 3), (36, 3), (3,)),
    fn=_cnn_loss,
)

MODELS = (MLP, CNN)

FUNCTIONS = {
    "gradient": "loss_vjp",
    "jvp": "loss_jvp",
    "hvp_forward_over_reverse": "loss_vjp_jvp",
    "hvp_reverse_over_forward": "loss_jvp_vjp",
}
"""What each timed function is (its label), and its name in the module."""


def both_orders(model: Model):
    """The module with `@loss_vjp` (the gradient), `@loss_vjp_jvp` (forward over reverse:
    the gradient and H v), `@loss_jvp` and `@loss_jvp_vjp` (reverse over forward)."""
    module = rlx_mlir.autodiff(model.source, "loss", wrt=model.wrt)
    module = jvp(module, "loss_vjp", wrt=model.wrt)
    module = jvp(module, "loss", wrt=model.wrt)
    return rlx_mlir.autodiff(module, "loss_jvp", wrt=model.wrt)


def rlx_op_count(module, name: str) -> int:
    """The RLX ops of function `@name` (constants and the return not counted)."""
    function = next(op for op in module.ops if op.sym_name.data == name)
    return sum(1 for op in function.walk() if type(op) in RLX.operations)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=4.0)
    args = parser.parse_args(argv)
    configure_threads(THREADS)
    preload_openmp()
    report = {"machine": machine_record(), "load_average_before": os.getloadavg(), "models": {}}
    for model in MODELS:
        module = both_orders(model)
        counts = {name: rlx_op_count(module, name) for name in ("loss", *FUNCTIONS.values())}
        compiled = rlx_mlir.compile(module)
        data, params, tangents = model.inputs()
        zero, one = np.zeros(()), np.ones(())
        arguments = {
            "loss_vjp": (*data, *params, one),
            "loss_jvp": (*data, *params, *tangents),
            "loss_vjp_jvp": (*data, *params, one, *tangents),
            "loss_jvp_vjp": (*data, *params, *tangents, zero, one),
        }
        calls = {label: functools.partial(compiled[name], *arguments[name]) for label, name in FUNCTIONS.items()}
        medians, rounds = time_interleaved(calls, budget_s=args.budget)
        row = {
            "ops": counts,
            "seconds": medians,
            "ir_ratio": {label: counts[name] / counts["loss_vjp"] for label, name in FUNCTIONS.items()},
            "time_ratio": {label: medians[label] / medians["gradient"] for label in FUNCTIONS},
            "rounds": rounds,
        }
        report["models"][model.name] = row
        print(f"{model.name} (gradient {medians['gradient'] * 1e6:.1f} us, {counts['loss_vjp']} ops):", ", ".join(
            f"{label} IR x{row['ir_ratio'][label]:.2f} time x{row['time_ratio'][label]:.2f}" for label in FUNCTIONS
        ))
    report["load_average_after"] = os.getloadavg()
    print(f"load average (1, 5, 15 min): before {report['load_average_before']}, after {report['load_average_after']}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hvp.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
