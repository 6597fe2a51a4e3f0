"""The sequence-model ops against PyTorch in one process: embedding gradient and scans.

    python -m benchmarks.sequence_ops [--budget 2] [--cases PREFIX ...]

Each case compiles one RLX function with the default pipeline, checks its result against
PyTorch's, and times both in interleaved rounds on the same threads
(`benchmarks.harness.time_interleaved`). ratio = PyTorch time / our time (> 1: faster).

- `embedding_backward`: ATen's `embedding_dense_backward`, at a GPT-2 vocabulary (the
  size a gather-form reduction over the table could not survive) and at a character-level
  one, with a static and a dynamic batch.
- `cumsum`: `torch.cumsum` along the sequence axis.
- `linear_scan`: h_t = a_t * h_(t-1) + x_t. PyTorch has no op for it; the reference is the
  loop over t that a state-space model writes in PyTorch, on whole [B, D] slices.
Results go to `benchmarks/results/sequence_ops.json`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks.harness import case_by_case_main, comparison_result, time_interleaved



@dataclass(frozen=True)
class SequenceCase:
    name: str
    source: str
    """The RLX module: one function `f`."""
    inputs: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    reference: Callable[..., object]
    """PyTorch's computation of the same result, from torch tensors of the inputs."""


def embedding_backward_case(vocabulary: int, batch: int, tokens: int, width: int, dynamic: bool) -> SequenceCase:
    import torch

    lead = "?" if dynamic else str(batch)
    dy, t = f"tensor<{lead}x{tokens}x{width}xf32>", f"tensor<{lead}x{tokens}xi64>"
    gw = f"tensor<{vocabulary}x{width}xf32>"
    source = (
        f"func.func @f(%dy: {dy}, %t: {t}) -> {gw} {{\n"
        f"  %g = rlx.embedding_backward %dy, %t : ({dy}, {t}) -> {gw}\n"
        f"  return %g : {gw}\n}}\n"
    )

    def inputs(rng):
        return (
            rng.standard_normal((batch, tokens, width), dtype=np.float32),
            rng.integers(0, vocabulary, (batch, tokens), dtype=np.int64),
        )

    return SequenceCase(
        f"embedding_backward-V{vocabulary}-{lead}x{tokens}x{width}", source, inputs,
        lambda dy, t: torch.ops.aten.embedding_dense_backward(dy, t, vocabulary, -1, False),
    )


def cumsum_case(batch: int, length: int, width: int) -> SequenceCase:
    import torch

    x = f"tensor<{batch}x{length}x{width}xf32>"
    source = f"func.func @f(%x: {x}) -> {x} {{\n  %y = rlx.cumsum %x dim 1 : ({x}) -> {x}\n  return %y : {x}\n}}\n"
    return SequenceCase(
        f"cumsum-{batch}x{length}x{width}-dim1", source,
        lambda rng: (rng.standard_normal((batch, length, width), dtype=np.float32),),
        lambda x: torch.cumsum(x, 1),
    )


def linear_scan_case(batch: int, length: int, width: int) -> SequenceCase:
    import torch

    x = f"tensor<{batch}x{length}x{width}xf32>"
    source = (
        f"func.func @f(%a: {x}, %x: {x}) -> {x} {{\n"
        f"  %h = rlx.linear_scan %a, %x dim 1 : ({x}, {x}) -> {x}\n  return %h : {x}\n}}\n"
    )

    def loop(a, x):
        h = torch.zeros_like(x[:, 0])
        out = torch.empty_like(x)
        for step in range(x.shape[1]):
            h = a[:, step] * h + x[:, step]
            out[:, step] = h
        return out

    def inputs(rng):
        return (
            rng.uniform(0.5, 1.0, (batch, length, width)).astype(np.float32),
            rng.standard_normal((batch, length, width), dtype=np.float32),
        )

    return SequenceCase(f"linear_scan-{batch}x{length}x{width}-dim1", source, inputs, loop)


def cases() -> list[SequenceCase]:
    return [
        embedding_backward_case(50257, 8, 256, 768, dynamic=False),
        embedding_backward_case(50257, 8, 256, 768, dynamic=True),
        embedding_backward_case(50257, 1, 255, 768, dynamic=False),
        embedding_backward_case(65, 64, 256, 384, dynamic=False),
        cumsum_case(8, 1024, 256),
        linear_scan_case(8, 1024, 256),
    ]


def run(case: SequenceCase, budget: float) -> dict:
    import torch

    from rlx_mlir import compile as compile_rlx

    start = time.perf_counter()
    fn = compile_rlx(case.source)["f"]
    compile_s = time.perf_counter() - start
    arrays = case.inputs(np.random.default_rng(0))
    tensors = [torch.from_numpy(a) for a in arrays]
    want = case.reference(*tensors).numpy()
    got = np.asarray(fn(*arrays))
    scale = max(1.0, float(np.max(np.abs(want))))
    error = float(np.max(np.abs(got - want)))
    # The numeric tests' float32 tolerance (tests/oracle.py), scaled by the sum's length.
    correct = got.shape == want.shape and error <= 1e-4 * scale
    medians, rounds = time_interleaved({"ours": lambda: fn(*arrays), "torch": lambda: case.reference(*tensors)}, budget_s=budget)
    return comparison_result(case.name, medians, rounds, error, correct, compile_s)


def main(argv: list[str] | None = None) -> int:
    return case_by_case_main(argv, __doc__.splitlines()[0], cases, run, "sequence_ops.json")


if __name__ == "__main__":
    sys.exit(main())
