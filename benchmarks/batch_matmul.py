"""Batched matrix products, ours against `torch.bmm` / `torch.matmul` in one process.

    python -m benchmarks.batch_matmul [--budget 3]

Ours: one compiled `rlx.matmul` (3-D), scheduled by batch_matmul.mlir (threads over the
batch, 8 x 32 register tiles of FMAs). Cases: attention's score product at 48 heads,
48 x (256x64 . 64x256), and a GQA-style broadcast, where 8 query heads' rows share one
kv head: [8, 256, 64] . [1, 64, 256] (an `rlx.expand` of the shared operand, as PyTorch's
broadcasting matmul imports). Each is checked against PyTorch in f64 before timing, and
timed interleaved with PyTorch on the same threads (`benchmarks.harness`). Results go to
`benchmarks/results/batch_matmul.json`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.harness import against_torch, start_threads, write_report

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


@dataclass(frozen=True)
class Product:
    """y[b] = a[b] . c[b or 0]: `shared` when one [1, K, N] operand serves every batch."""

    name: str
    batch: int
    m: int
    k: int
    n: int
    shared: bool = False

    def shapes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return (self.batch, self.m, self.k), (1 if self.shared else self.batch, self.k, self.n)

    def source(self) -> str:
        (a_shape, c_shape) = self.shapes()
        a, c0 = (f"tensor<{'x'.join(map(str, s))}xf32>" for s in (a_shape, c_shape))
        c, y = f"tensor<{self.batch}x{self.k}x{self.n}xf32>", f"tensor<{self.batch}x{self.m}x{self.n}xf32>"
        expand = f"  %c = rlx.expand %c0 : ({c0}) -> {c}\n" if self.shared else ""
        operand = "%c" if self.shared else "%c0"
        return (
            f"func.func @f(%a: {a}, %c0: {c0}) -> {y} {{\n{expand}"
            f"  %y = rlx.matmul %a, {operand} : ({a}, {c}) -> {y}\n  return %y : {y}\n}}\n"
        )

    def inputs(self) -> list[np.ndarray]:
        rng = np.random.default_rng(0)
        return [rng.standard_normal(shape, dtype=np.float32) for shape in self.shapes()]

    def gflop(self) -> float:
        return 2 * self.batch * self.m * self.k * self.n / 1e9


PRODUCTS = (
    Product("heads 48 x (256x64 . 64x256)", 48, 256, 64, 256),
    Product("GQA 8 x (256x64) . shared 64x256", 8, 256, 64, 256, shared=True),
)


def ours(product: Product):
    from rlx_mlir import compile as compile_rlx  # after start_threads, as torch

    function = compile_rlx(product.source())["f"]
    arrays = product.inputs()
    return lambda: function(*arrays)


def pytorch(product: Product):
    import torch  # after start_threads: OpenMP reads its variables when torch loads

    a, c = (torch.from_numpy(x) for x in product.inputs())
    return lambda: torch.matmul(a, c)


def relative_error(product: Product) -> float:
    """Our result against PyTorch's f64 product, relative to its largest value."""
    import torch  # after start_threads: OpenMP reads its variables when torch loads

    a, c = (torch.from_numpy(x).double() for x in product.inputs())
    want = torch.matmul(a, c)
    got = torch.from_numpy(np.asarray(ours(product)())).double()
    return float((got - want).abs().max() / want.abs().max())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    start_threads()
    results = []
    for product in PRODUCTS:
        error = relative_error(product)
        timed = against_torch(ours(product), pytorch(product), args.budget)
        result = {
            "name": product.name, "shapes": [list(s) for s in product.shapes()], **timed,
            "ours_gflops": product.gflop() / timed["ours_ms"] * 1e3, "torch_gflops": product.gflop() / timed["torch_ms"] * 1e3,
            "max_rel_err": error, "correct": error < 1e-5,
        }
        results.append(result)
        print(f"{product.name}: ours {result['ours_ms']:.2f} ms ({result['ours_gflops']:.0f} GFLOP/s), "
              f"torch {result['torch_ms']:.2f} ms ({result['torch_gflops']:.0f} GFLOP/s), ratio {result['ratio']:.2f}; "
              f"max error {error:.1e}", flush=True)
    return write_report(args.out, "batch_matmul", results)


if __name__ == "__main__":
    sys.exit(main())
