"""Benchmark suite: our backward kernels against PyTorch, same process, same threads.

    python -m benchmarks.run                       # every case, the default pipeline (optimizing-omp)
    python -m benchmarks.run --pipeline o3 --cases a- b-
    python -m benchmarks.run --iree                # add IREE if iree-base-* are installed
    python -m benchmarks.run --batches 8 ?         # only batch 8 and a dynamic batch

Prints a table (median ms, GFLOP/s or GB/s, ratio = PyTorch time / our time), writes
``results.json`` and ``results.png`` into ``--out`` (default ``benchmarks/results``), then
times ``rlx-opt --decompose-backward`` on ``examples/resnet18_backward.mlir`` and the cold
compile of that module to a shared library.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.harness import REPO, THREADS, configure_threads  # noqa: E402

configure_threads(THREADS)


def main(argv=None) -> int:
    from benchmarks.cases import BATCHES, CASES, DENSE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default=None, help="backend pipeline (default: the backend's default, optimizing-omp where intel-openmp is installed)")
    parser.add_argument("--cases", nargs="*", help="case name prefixes or substrings (default: all)")
    parser.add_argument("--conv-weight", default="direct", choices=("direct", "im2col"), help="decompose-backward formulation of dw")
    parser.add_argument("--conv-input", default="direct", choices=("direct", "transpose"), help="decompose-backward formulation of dx")
    parser.add_argument("--iree", action="store_true", help="add an IREE column (needs iree-base-compiler/runtime)")
    parser.add_argument("--batches", nargs="*", default=list(BATCHES), help=f"batches to run every case at; '?' declares the batch dynamic (default: {' '.join(BATCHES)})")
    parser.add_argument("--budget", type=float, default=4.0, help="seconds of timed rounds per case (default 4)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results", help="directory for JSON and PNG")
    parser.add_argument("--no-resnet", action="store_true", help="skip the ResNet-18 decompose/compile timings")
    args = parser.parse_args(argv)

    import torch

    from benchmarks.harness import (
        ensure_pipeline,
        format_table,
        machine_record,
        geomean,
        preload_openmp,
        run_case,
        time_cold_compile,
        time_decompose,
        write_chart,
    )

    if args.pipeline is None:
        from rlx_mlir.backend.pipelines import default_pipeline

        args.pipeline = default_pipeline()
    ensure_pipeline(args.pipeline)  # unknown names fail before any work
    torch.set_num_threads(THREADS)
    preload_openmp()
    for label in args.batches:
        if label != "?" and not (label.isdigit() and int(label) > 0):
            parser.error(f"--batches: expected positive integers or '?', got {label!r}")
    selected = [c for c in CASES if not args.cases or any(c.name.startswith(p) or p in c.name for p in args.cases)]
    runs = [(label, c.at_batch(label)) for c in selected for label in args.batches]
    results = []
    for _, case in runs:
        result = run_case(case, args.pipeline, args.conv_weight, args.conv_input, iree=args.iree, budget_s=args.budget)
        results.append(result)
        print(f"  {case.name} n={case.batch_label}: ours {result.ours_ms:.2f} ms, torch {result.torch_ms:.2f} ms, ratio {result.ratio:.2f}", file=sys.stderr, flush=True)

    print(f"pipeline {args.pipeline}, conv-weight={args.conv_weight}, conv-input={args.conv_input}, {THREADS} threads, torch {torch.__version__}")
    print(format_table(results))
    summary = {}
    dense = [r.ratio for r in results if r.kind.startswith("conv") and r.name.startswith(DENSE)]
    if dense:
        summary["dense_conv_geomean_ratio"] = geomean(dense)
        summary["dense_conv_min_ratio"] = min(dense)
        print(f"dense conv (a b c f) ratio, all batches: geomean {summary['dense_conv_geomean_ratio']:.3f}, min {summary['dense_conv_min_ratio']:.3f}")
    for label in args.batches:
        at = [r.ratio for (run_label, _), r in zip(runs, results) if run_label == label]
        if at:
            summary[f"geomean_ratio_batch_{label}"] = geomean(at)
            print(f"batch {label}: geomean ratio {geomean(at):.3f}, min {min(at):.3f} over {len(at)} cases")

    if not args.no_resnet:
        example = REPO / "examples" / "resnet18_backward.mlir"
        summary["resnet18_decompose_s"] = time_decompose(example)
        summary["resnet18_cold_compile_s"] = time_cold_compile(example, args.pipeline)
        print(f"resnet18_backward.mlir: rlx-opt --decompose-backward {summary['resnet18_decompose_s']:.2f} s;"
              f" cold compile to a shared library ({args.pipeline}) {summary['resnet18_cold_compile_s']:.1f} s")

    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "pipeline": args.pipeline,
        "conv_weight": args.conv_weight,
        "conv_input": args.conv_input,
        "threads": THREADS,
        "batches": args.batches,
        **machine_record(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "summary": summary,
        "cases": [r.to_json() for r in results],
    }
    stem = f"results-{args.pipeline}"
    (args.out / f"{stem}.json").write_text(json.dumps(report, indent=2))
    if write_chart(results, args.out / f"{stem}.png", f"rlx-mlir ({args.pipeline}) vs PyTorch, {THREADS} threads"):
        print(f"wrote {args.out / (stem + '.json')} and {stem}.png")
    else:
        print(f"wrote {args.out / (stem + '.json')} (no chart: matplotlib is not installed)")
    return 0 if all(r.correct for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
