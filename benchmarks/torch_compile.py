"""Training steps three ways: PyTorch eager, `torch.compile` (Inductor), and ours, both as
`torch.compile(backend="rlx")` and as `export_training_step`'s compiled step.

    python -m benchmarks.torch_compile [--model resnet18] [--batch 8] [--size 224] [--budget 30]
        [--sides eager,inductor,rlx,step,step_static]

Models: `resnet18` and `mobilenet_v2` (torchvision's, the copies in `tests/torch/models.py`,
`--size` is the image side), `gpt` (`examples/train_gpt.py`'s nanoGPT at the character-level
configuration of nanoGPT's shakespeare_char: 6 layers, 6 heads, width 384, vocabulary 65;
`--size` is the block, 256 there) and `vit` (`tests/torch/test_vit_step.py`'s torchvision
ViT at patch 16, 4 layers, ViT-B/16's widths; `--size` is the image side). Training mode,
f32, cross-entropy, and the optimizer step (SGD, momentum 0.9) in every side's step.

Each side trains its own copy of the same weights:
- `eager`: zero_grad, forward, loss, backward, step;
- `inductor`: the same loop on `torch.compile(model)`;
- `rlx`: the same loop on `torch.compile(model, backend="rlx")`;
- `step`: `export_training_step(...).compile()`, its gradients set as `.grad` and its
  buffers copied back, then the same optimizer step; `step_static`: the same, exported at
  the example's batch (`dynamic_shapes=None`) instead of the default dynamic batch.

Reported, from this one process: the first step's time of each side (its compile
included, into an empty compile cache), then the median step time over interleaved rounds
(`benchmarks.harness.time_interleaved`, the same threads for all) and ratios against
eager; for `step`, export and cold compile time and a cached compile. Peak memory: each
side runs alone in a child process (`child_peak_rss_mib`). The backend's overhead over
`export_training_step` is `rlx / step - 1` (target: under 5%).
Results go to `benchmarks/results/torch_compile-<model>.json`.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import THREADS, child_peak_rss_mib, configure_threads, machine_record, peak_rss_mib, preload_openmp, time_interleaved

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
SIDES = ("eager", "inductor", "rlx", "step", "step_static")
GPT = {"LAYERS": 6, "HEADS": 6, "WIDTH": 384}
"""nanoGPT's shakespeare_char configuration; the block is `--size`."""
GPT_VOCABULARY = 65
VIT = {"patch_size": 16, "num_layers": 4, "num_heads": 12, "hidden_dim": 768, "mlp_dim": 3072}
"""ViT-B/16's widths, 4 layers."""
DEFAULT_SIZE = {"resnet18": 224, "mobilenet_v2": 224, "vit": 224, "gpt": 256}


def _module(name: str, path: Path):
    """A source file of the repository's tests or examples, as a module (they are no package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workload(torch, name: str, batch: int, size: int):
    """(model, inputs, loss_fn) of `name`: seed 0 weights, training mode, f32."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    cross_entropy = torch.nn.functional.cross_entropy
    if name == "gpt":
        gpt = _module("rlx_bench_gpt", REPO / "examples" / "train_gpt.py")
        for constant, value in {**GPT, "BLOCK": size}.items():
            setattr(gpt, constant, value)       # its classes read the sizes at construction and call
        idx = torch.randint(0, GPT_VOCABULARY, (batch, size + 1), generator=generator)
        return gpt.Gpt(GPT_VOCABULARY).train(), (idx[:, :-1], idx[:, 1:]), gpt.next_token_loss
    x = torch.randn(batch, 3, size, size, generator=generator)
    target = torch.randint(0, 1000, (batch,), generator=generator)
    if name == "vit":
        sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "torch")]  # test_vit_step imports its neighbours
        vit = _module("rlx_bench_vit", REPO / "tests" / "torch" / "test_vit_step.py")
        return vit.VisionTransformer(size, **VIT).train(), (x, target), cross_entropy
    models = _module("rlx_bench_models", REPO / "tests" / "torch" / "models.py")
    return getattr(models, name)(num_classes=1000).train(), (x, target), cross_entropy


def training_step(torch, side: str, model, inputs, loss_fn):
    """One optimizer step of `side` on its own copy of `model`, as a callable."""
    model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, target = inputs
    if side in ("step", "step_static"):
        from rlx_mlir.torch import export_training_step  # imports torch: only after configure_threads

        # `step` is the default export (a dynamic batch where the graph allows it);
        # `step_static` is exported at the example's batch (dynamic_shapes=None).
        batch = {"dynamic_shapes": None} if side == "step_static" else {}
        exported, export_s = _timed(lambda: export_training_step(model, inputs, loss_fn=loss_fn, **batch))
        compiled, cold_compile_s = _timed(exported.compile)
        parameters, buffers = dict(model.named_parameters()), dict(model.named_buffers())

        def step():
            loss, grads, new_buffers = compiled(x, target)
            for name, grad in grads.items():
                parameters[name].grad = torch.from_numpy(grad)
            with torch.no_grad():
                for name, value in new_buffers.items():
                    buffers[name].copy_(torch.from_numpy(value))
            optimizer.step()
            return loss

        step.exported, step.export_s, step.cold_compile_s = exported, export_s, cold_compile_s
        return step
    run = {"eager": model, "inductor": torch.compile(model), "rlx": torch.compile(model, backend="rlx")}[side]

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(run(x), target)
        loss.backward()
        optimizer.step()
        return loss

    return step


def _arguments(args: argparse.Namespace) -> list[str]:
    return ["--model", args.model, "--batch", str(args.batch), "--size", str(args.size), "--rounds", str(args.rounds)]


def _only(torch, args: argparse.Namespace) -> None:
    """Child mode: one side's first step and `rounds` more, then its peak RSS in MiB."""
    step = training_step(torch, args.only, *workload(torch, args.model, args.batch, args.size))
    for _ in range(1 + args.rounds):
        step()
    print(peak_rss_mib())


def _timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.torch_compile", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet18", choices=tuple(DEFAULT_SIZE))
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, help="image side, or the GPT's block (default: 224, GPT 256)")
    parser.add_argument("--budget", type=float, default=30.0, help="seconds of interleaved timing")
    parser.add_argument("--rounds", type=int, default=3, help="steps after the first in the memory children")
    parser.add_argument("--sides", default=",".join(SIDES), help=f"a subset of {','.join(SIDES)}")
    parser.add_argument("--only", choices=SIDES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.size = args.size or DEFAULT_SIZE[args.model]
    sides = [side for side in args.sides.split(",") if side]
    unknown = sorted(set(sides) - set(SIDES))
    if unknown:
        parser.error(f"unknown side(s) {unknown}; the sides are {','.join(SIDES)}")
    configure_threads()
    preload_openmp()
    if not args.only:  # the children reuse this run's cache: they measure memory, not compiles
        os.environ["RLX_MLIR_CACHE_DIR"] = tempfile.mkdtemp(prefix="rlx-torch-compile-cache-")
    import torch  # after configure_threads: the thread count is fixed at torch's import

    torch.set_num_threads(THREADS)
    if args.only:
        _only(torch, args)
        return 0
    model, inputs, loss_fn = workload(torch, args.model, args.batch, args.size)
    steps, first_s, result = {}, {}, {}
    for side in sides:
        steps[side], setup_s = _timed(lambda: training_step(torch, side, model, inputs, loss_fn))
        _, first_s[side] = _timed(steps[side])
        first_s[side] += setup_s
        print(f"{side}: first step (compile included) {first_s[side]:.1f} s", file=sys.stderr, flush=True)
    if "step" in sides:
        result["export_s"], result["cold_compile_s"] = steps["step"].export_s, steps["step"].cold_compile_s
        _, result["cached_compile_s"] = _timed(steps["step"].exported.compile)
    medians, rounds = time_interleaved(steps, warmup=1, min_rounds=3, budget_s=args.budget)
    peak = {side: child_peak_rss_mib("benchmarks.torch_compile", [*_arguments(args), "--only", side], side)
            for side in sides}
    result.update({
        "model": args.model, "batch": args.batch, "size": args.size, "threads": THREADS, "dtype": "float32",
        "optimizer": "SGD(momentum=0.9)", "rounds": rounds,
        "ms": {side: medians[side] * 1e3 for side in sides},
        "ratio_vs_eager": {side: medians["eager"] / medians[side] for side in sides} if "eager" in sides else {},
        "first_step_s": first_s, "peak_rss_mib": peak,
        **machine_record(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "load_average_1min": os.getloadavg()[0],      # the machines are shared
    })
    if {"rlx", "step"} <= set(sides):
        result["rlx_overhead_over_step"] = medians["rlx"] / medians["step"] - 1
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"torch_compile-{args.model}.json").write_text(json.dumps(result, indent=2) + "\n")
    print("| model | batch | size | side | ms | ratio vs eager | peak MiB | first step s |")
    print("|---|---|---|---|---|---|---|---|")
    for side in sides:
        ratio = result["ratio_vs_eager"].get(side, float("nan"))
        print(f"| {args.model} | {args.batch} | {args.size} | {side} | {medians[side] * 1e3:.0f} | {ratio:.2f} "
              f"| {peak[side]:.0f} | {first_s[side]:.1f} |")
    if "step" in sides:
        print(f"export_training_step: export {result['export_s']:.1f} s + cold compile {result['cold_compile_s']:.1f} s, "
              f"cached compile {result['cached_compile_s']:.2f} s")
    if "rlx_overhead_over_step" in result:
        print(f"backend overhead over export_training_step: {100 * result['rlx_overhead_over_step']:+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
