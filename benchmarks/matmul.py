"""Plain matrix products against torch.matmul in one process.

    python -m benchmarks.matmul [--budget 2] [--cases PREFIX ...]

Each case compiles one RLX function with the default pipeline, checks its result against
PyTorch's, and times both in interleaved rounds on the same threads
(`benchmarks.harness.time_interleaved`). ratio = PyTorch time / our time (> 1: faster);
GFLOP/s counts 2*M*N*K, and "of peak" divides it by the host's measured peak FMA rate on
the same threads (`benchmarks.peak_fma`, measured once per run).

The shapes are a transformer's projections and MLP at nanoGPT's sizes (2048 tokens, width
384, MLP width 1536), a small product (512x64x512) and the ViT-B/16 MLP at batch 8 (1576
tokens, width 768, MLP width 3072); each also transposed the ways the
backward needs it: Aᵀ·B (a weight gradient, A stored K x M) and A·Bᵀ (an input gradient,
B stored N x K), written as `rlx.permute` feeding `rlx.matmul`, as the VJP and the importer
emit them. Results go to `benchmarks/results/matmul.json`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from benchmarks.harness import THREADS, case_by_case_main, comparison_result, time_interleaved
from benchmarks.peak_fma import peak_gflops

SHAPES = (
    (2048, 384, 1536), (2048, 1536, 384), (2048, 384, 384), (512, 64, 512),
    (1576, 768, 3072), (1576, 3072, 768),
)
"""(M, K, N) of each product: nanoGPT's, a small one, and the ViT-B/16 MLP's at batch 8
(8 x 197 tokens), whose B outgrows L2 per thread."""
VARIANTS = ("nn", "tn", "nt")
"""A·B; Aᵀ·B with A stored K x M; A·Bᵀ with B stored N x K."""


@dataclass(frozen=True)
class MatmulCase:
    m: int
    k: int
    n: int
    variant: str
    dtype: str = "f32"

    @property
    def name(self) -> str:
        return f"matmul-{self.variant}-{self.m}x{self.k}x{self.n}"

    @property
    def stored(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The shapes of the two arguments as the function takes them."""
        a = (self.k, self.m) if self.variant == "tn" else (self.m, self.k)
        b = (self.n, self.k) if self.variant == "nt" else (self.k, self.n)
        return a, b

    def source(self) -> str:
        def ty(shape):
            return f"tensor<{shape[0]}x{shape[1]}x{self.dtype}>"

        (sa, sb), y = self.stored, ty((self.m, self.n))
        a, b = "%a", "%b"
        lines = []
        if self.variant == "tn":
            lines.append(f"  %at = rlx.permute %a dims [1, 0] : ({ty(sa)}) -> {ty((self.m, self.k))}")
            a = "%at"
        if self.variant == "nt":
            lines.append(f"  %bt = rlx.permute %b dims [1, 0] : ({ty(sb)}) -> {ty((self.k, self.n))}")
            b = "%bt"
        lines.append(f"  %y = rlx.matmul {a}, {b} : ({ty((self.m, self.k))}, {ty((self.k, self.n))}) -> {y}")
        body = "\n".join(lines)
        return f"func.func @f(%a: {ty(sa)}, %b: {ty(sb)}) -> {y} {{\n{body}\n  return %y : {y}\n}}\n"

    def reference(self, a, b):
        a = a.t() if self.variant == "tn" else a
        b = b.t() if self.variant == "nt" else b
        return a @ b


def cases() -> list[MatmulCase]:
    return [MatmulCase(m, k, n, v) for (m, k, n) in SHAPES for v in VARIANTS]


def run(case: MatmulCase, budget: float) -> dict:
    import torch

    from rlx_mlir import compile as compile_rlx

    start = time.perf_counter()
    fn = compile_rlx(case.source())["f"]
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape, dtype=np.float32) for shape in case.stored)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    want = case.reference(ta, tb).numpy()
    got = np.asarray(fn(a, b))
    error = float(np.max(np.abs(got - want)))
    # A sum of K products in f32: about K roundings (eps 1.2e-7) of the result, with a margin.
    correct = got.shape == want.shape and error <= 1e-6 * case.k * max(1.0, float(np.max(np.abs(want))))
    medians, rounds = time_interleaved({"ours": lambda: fn(a, b), "torch": lambda: case.reference(ta, tb)}, budget_s=budget)
    result = comparison_result(case.name, medians, rounds, error, correct, compile_s, flop=2 * case.m * case.n * case.k)
    return with_fraction_of_peak(result, peak_gflops(THREADS, element="float" if case.dtype == "f32" else "double"))


def with_fraction_of_peak(result: dict, peak: float) -> dict:
    """``result`` with both sides' GFLOP/s as a fraction of ``peak`` (printed, and kept in the results file)."""
    fractions = {f"{side}_of_peak": result[f"{side}_gflops"] / peak for side in ("ours", "torch")}
    print(f"{result['name']}: peak {peak:.0f} GFLOP/s, ours {fractions['ours_of_peak']:.0%} of it,"
          f" torch {fractions['torch_of_peak']:.0%}", flush=True)
    return {**result, "peak_gflops": peak, **fractions}


def main(argv: list[str] | None = None) -> int:
    return case_by_case_main(argv, __doc__.splitlines()[0], cases, run, "matmul.json")


if __name__ == "__main__":
    sys.exit(main())
