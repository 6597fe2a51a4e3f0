"""A whole training step, imported from PyTorch and compiled, against PyTorch eager.

    python -m benchmarks.train_step [--model resnet18] [--batch 8] [--size 224] [--budget 20] [--dynamic]

The model is torchvision's (the faithful copy in `tests/torch/models.py`), in training
mode, f32, with cross-entropy. Three numbers, each from this one run:

- export and cold compile: `export_training_step` plus `step.compile()` into an empty
  compile cache; then a cached compile (`step.compile()` again, which finds the library
  in the cache);
- time per step: our compiled step (`compiled(x, target)`, which reads the parameters
  and buffers from the model) against PyTorch eager (`zero_grad`, forward, loss,
  `backward`), interleaved rounds after a warm-up, on the same 2 threads (see
  `benchmarks.harness`), median of each; ratio = PyTorch time / our time (> 1: faster);
- peak memory: each side runs its steps alone in a child process (the same warm-up and
  rounds), and the child's peak resident set size (`VmHWM`) is reported, so that
  neither side's memory is counted in the other's.

`--dynamic` adds a fourth side to the interleaved rounds: the same step exported with a
dynamic batch (`dynamic_shapes=DYNAMIC_BATCH`), run at the same batch, against the static
step (ratio = static time / dynamic time); its compile times are reported beside.

Before timing, our loss and gradients are checked against PyTorch's on the same weights
and the same dropout masks: PyTorch's dropouts replay the masks our step drew
(`compiled.last_masks`). A step with other random ops (stochastic depth) is timed but not
compared.
Results go to `benchmarks/results/train_step-<model>.json` (`-dynamic.json` with `--dynamic`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import THREADS, configure_threads, child_peak_rss_mib, machine_record, peak_rss_mib, preload_openmp, time_interleaved

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def _models():
    """tests/torch/models.py, the torchvision definitions the tests use (torchvision itself
    cannot be imported on the CPU torch wheel)."""
    spec = importlib.util.spec_from_file_location("rlx_bench_models", REPO / "tests" / "torch" / "models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _setup(model_name: str, batch: int, size: int):
    import torch

    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    models = _models()
    model = getattr(models, model_name)(num_classes=1000).train()
    x = torch.randn(batch, 3, size, size)
    target = torch.randint(0, 1000, (batch,))
    return torch, model, x, target


def _eager_step(torch, model, x, target):
    def step():
        model.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        return loss

    return step


@contextlib.contextmanager
def _replaying_dropouts(torch, masks):
    """Within: `torch.nn.functional.dropout` (which `nn.Dropout` calls) applies `masks`,
    0.0 / 1.0 arrays in call order, as `x * mask / (1 - p)`: the masks our step drew, in its
    graph's order, which is the order the forward calls its dropouts."""
    functional = torch.nn.functional
    original = functional.dropout
    pending = iter(masks)

    def dropout(x, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return x
        return x * torch.from_numpy(next(pending)).to(x.dtype) / (1.0 - p)

    functional.dropout = dropout
    try:
        yield
    finally:
        functional.dropout = original


def _peak_rss_child(args: argparse.Namespace, side: str) -> float:
    """Peak RSS (MiB) of a child process that runs only `side`'s steps."""
    return child_peak_rss_mib("benchmarks.train_step", ["--model", args.model, "--batch", str(args.batch),
                              "--size", str(args.size), "--rounds", str(args.rounds), "--only", side], side)


def _only(args: argparse.Namespace) -> None:
    """Child mode: run one side's steps, print the peak RSS in MiB."""
    torch, model, x, target = _setup(args.model, args.batch, args.size)
    if args.only == "ours":
        from rlx_mlir.torch import export_training_step

        step = export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy,
                                    dynamic_shapes=None).compile()
        run = lambda: step(x, target)  # noqa: E731
    else:
        run = _eager_step(torch, model, x, target)
    for _ in range(2 + args.rounds):
        run()
    print(peak_rss_mib())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.train_step", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet18")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--budget", type=float, default=20.0, help="seconds of interleaved timing")
    parser.add_argument("--rounds", type=int, default=5, help="steps per side in the memory children")
    parser.add_argument("--dynamic", action="store_true", help="also time the step exported with a dynamic batch")
    parser.add_argument("--only", choices=("ours", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    configure_threads()
    preload_openmp()
    if args.only:
        _only(args)
        return 0

    import numpy as np

    cold_cache = tempfile.mkdtemp(prefix="rlx-train-step-cache-")
    os.environ["RLX_MLIR_CACHE_DIR"] = cold_cache
    torch, model, x, target = _setup(args.model, args.batch, args.size)
    from rlx_mlir.torch import export_training_step

    t0 = time.perf_counter()
    step = export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy, dynamic_shapes=None)
    export_s = time.perf_counter() - t0
    print(f"exported in {export_s:.1f} s", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    compiled = step.compile()
    cold_compile_s = time.perf_counter() - t0
    print(f"compiled (cold) in {cold_compile_s:.1f} s", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    step.compile()
    cached_s = time.perf_counter() - t0

    # Correctness on the same weights and masks, before any step changes them: loss and
    # gradients.
    loss, grads, _ = compiled(x, target)
    eager = _eager_step(torch, model, x, target)
    if all(m.kind == "dropout" for m in step.masks):
        with _replaying_dropouts(torch, [compiled.last_masks[m.name] for m in step.masks]):
            want = eager()
        # The tensor is named: the worst is often a gradient that is zero in exact arithmetic
        # (MobileNetV2's last batch-norm bias of a block, |grad| ~ 1e-17 in f64), where
        # every f32 implementation is off by more than the value itself.
        worst, worst_name = max(
            (float(np.linalg.norm(grads[name] - p.grad.numpy()) / max(np.linalg.norm(p.grad.numpy()), 1e-30)), name)
            for name, p in model.named_parameters()
        )
        loss_error = abs(float(loss) - want.item()) / abs(want.item())
    else:
        print("not compared: the step has random ops other than dropout", file=sys.stderr)
        worst, worst_name, loss_error = float("nan"), None, float("nan")

    sides = {"ours": lambda: compiled(x, target), "torch": eager}
    dynamic = _dynamic_side(torch, model, x, target, grads) if args.dynamic else {}
    if dynamic:
        sides["ours_dynamic"] = dynamic.pop("run")
    medians, rounds = time_interleaved(sides, warmup=2, min_rounds=5, budget_s=args.budget)
    ours_rss, torch_rss = _peak_rss_child(args, "ours"), _peak_rss_child(args, "torch")
    result = {
        "model": args.model, "batch": args.batch, "size": args.size, "threads": THREADS, "dtype": "float32",
        "ours_ms": medians["ours"] * 1e3, "torch_ms": medians["torch"] * 1e3,
        "ratio": medians["torch"] / medians["ours"], "rounds": rounds,
        "export_s": export_s, "cold_compile_s": cold_compile_s, "export_plus_cold_compile_s": export_s + cold_compile_s,
        "cached_compile_s": cached_s,
        "ours_peak_rss_mib": ours_rss, "torch_peak_rss_mib": torch_rss,
        "loss_rel_error": loss_error, "worst_grad_rel_l2_error": worst, "worst_grad": worst_name,
        **({"ours_dynamic_ms": medians["ours_dynamic"] * 1e3, "static_over_dynamic": medians["ours"] /
            medians["ours_dynamic"], **dynamic} if args.dynamic else {}),
        **machine_record(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        # The machines are shared: the 1-minute load average when the timing ended.
        "load_average_1min": os.getloadavg()[0],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = "-dynamic" if args.dynamic else ""
    (RESULTS / f"train_step-{args.model}{suffix}.json").write_text(json.dumps(result, indent=2) + "\n")
    print("| model | batch | ours ms | PyTorch ms | ratio | ours peak MiB | PyTorch peak MiB | export + cold compile s | cached compile s |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {args.model} | {args.batch} | {result['ours_ms']:.0f} | {result['torch_ms']:.0f} | {result['ratio']:.2f} "
          f"| {ours_rss:.0f} | {torch_rss:.0f} | {export_s:.1f} + {cold_compile_s:.1f} | {cached_s:.2f} |")
    print(f"loss rel. error {loss_error:.2e}, worst gradient rel. L2 error {worst:.2e} ({worst_name})")
    if args.dynamic:
        print(f"dynamic batch: {result['ours_dynamic_ms']:.0f} ms against static {result['ours_ms']:.0f} ms "
              f"(static / dynamic = {result['static_over_dynamic']:.3f}), export + cold compile "
              f"{result['dynamic_export_s']:.1f} + {result['dynamic_cold_compile_s']:.1f} s; "
              f"gradients within {result['dynamic_worst_grad_rel_l2_from_static']:.1e} of the static step's")
    return 0


def _dynamic_side(torch, model, x, target, static_grads) -> dict:
    """The step exported with a dynamic batch: its timings, its distance from the static
    step's gradients (the same weights: no step has changed them yet), and its runner."""
    import numpy as np

    from rlx_mlir.torch.step import DYNAMIC_BATCH, export_training_step

    t0 = time.perf_counter()
    step = export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy,
                                dynamic_shapes=DYNAMIC_BATCH)
    export_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    compiled = step.compile()
    compile_s = time.perf_counter() - t0
    _, grads, _ = compiled(x, target)
    worst = max(float(np.linalg.norm(grads[n] - g) / max(np.linalg.norm(g), 1e-30)) for n, g in static_grads.items())
    return {"run": lambda: compiled(x, target), "dynamic_export_s": export_s, "dynamic_cold_compile_s": compile_s,
            "dynamic_batch_in_ir": "?x" in step.mlir, "dynamic_worst_grad_rel_l2_from_static": worst}


if __name__ == "__main__":
    sys.exit(main())
