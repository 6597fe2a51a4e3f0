"""Causal attention, forward plus backward, against PyTorch's `scaled_dot_product_attention`.

    python -m benchmarks.attention [--lengths 256 1024 2048] [--batch 8] [--heads 6] [--budget 3]

Ours: one compiled function `rlx.attention` then `rlx.attention_backward` (the flash-style
lowering: key blocks with an online softmax, scores recomputed from the logsumexp).
PyTorch's: `F.scaled_dot_product_attention(q, k, v, is_causal=True)` and `backward`, its
CPU flash kernel, on the same threads (`benchmarks.harness`). Both are checked against
each other's f64 oracle before timing (PyTorch's math backend in f64).

Peak memory: each side runs alone in a child process (`--only ours|torch`) and reports
its peak resident set size (`VmHWM`), so neither side's buffers count in the other's.
Results go to `benchmarks/results/attention.json`.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from benchmarks.harness import against_torch, child_peak_rss_mib, peak_rss_mib, start_threads, write_report

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def rlx_source(batch: int, heads: int, length: int, width: int) -> str:
    t = f"tensor<{batch}x{heads}x{length}x{width}xf32>"
    lse = f"tensor<{batch}x{heads}x{length}xf32>"
    scale = 1.0 / math.sqrt(width)
    return (
        f"func.func @f(%q: {t}, %k: {t}, %v: {t}, %dout: {t}) -> ({t}, {t}, {t}, {t}) {{\n"
        f"  %out, %lse = rlx.attention %q, %k, %v scale {scale!r} is_causal true : ({t}, {t}, {t}) -> ({t}, {lse})\n"
        f"  %dq, %dk, %dv = rlx.attention_backward %dout, %q, %k, %v, %out, %lse scale {scale!r} is_causal true"
        f" : ({t}, {t}, {t}, {t}, {t}, {lse}) -> ({t}, {t}, {t})\n"
        f"  return %out, %dq, %dk, %dv : {t}, {t}, {t}, {t}\n}}\n"
    )


def inputs(batch: int, heads: int, length: int, width: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((batch, heads, length, width), dtype=np.float32) for _ in range(4)]


def ours(batch, heads, length, width):
    from rlx_mlir import compile as compile_rlx

    function = compile_rlx(rlx_source(batch, heads, length, width))["f"]
    arrays = inputs(batch, heads, length, width)
    return lambda: function(*arrays)


def pytorch(batch, heads, length, width):
    import torch
    import torch.nn.functional as F

    q, k, v, dout = (torch.from_numpy(a) for a in inputs(batch, heads, length, width))

    def step():
        qs, ks, vs = (t.detach().requires_grad_() for t in (q, k, v))
        out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True)
        out.backward(dout)
        return out, qs.grad, ks.grad, vs.grad

    return step


def check(batch, heads, length, width) -> float:
    """Our out, dq, dk, dv against PyTorch's f64 math backend: the largest error relative to
    each tensor's largest value (f32's rounding over a length-L sum stays far below 1e-4)."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v, dout = (torch.from_numpy(a).double() for a in inputs(batch, heads, length, width))
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.backward(dout)
    want = [out.detach(), q.grad, k.grad, v.grad]
    got = ours(batch, heads, length, width)()
    return max(float((torch.from_numpy(np.asarray(g)).double() - w).abs().max() / w.abs().max()) for g, w in zip(got, want))


def peak_rss_child(args, side: str, length: int) -> float:
    return child_peak_rss_mib("benchmarks.attention", ["--only", side, "--lengths", str(length), "--batch",
                              str(args.batch), "--heads", str(args.heads), "--width", str(args.width)], side)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 2048])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--heads", type=int, default=6)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--only", choices=("ours", "torch"), help="(child) run one side twice and print its peak RSS")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    start_threads()
    if args.only:
        step = (ours if args.only == "ours" else pytorch)(args.batch, args.heads, args.lengths[0], args.width)
        step()
        step()
        print(peak_rss_mib())
        return 0
    results = []
    for length in args.lengths:
        shape = (args.batch, args.heads, length, args.width)
        error = check(*shape)
        result = {
            "shape": list(shape), **against_torch(ours(*shape), pytorch(*shape), args.budget),
            "max_rel_err": error, "correct": error < 1e-4, "ours_peak_mib": peak_rss_child(args, "ours", length),
            "torch_peak_mib": peak_rss_child(args, "torch", length),
        }
        results.append(result)
        print(f"L={length}: ours {result['ours_ms']:.1f} ms, torch {result['torch_ms']:.1f} ms, ratio {result['ratio']:.2f}; "
              f"peak RSS ours {result['ours_peak_mib']:.0f} MiB, torch {result['torch_peak_mib']:.0f} MiB; "
              f"max error {error:.1e}", flush=True)
    return write_report(args.out, "attention", results)


if __name__ == "__main__":
    sys.exit(main())
