"""Higher-order training steps: ours against PyTorch eager, `torch.compile` and JAX.

    python -m benchmarks.higher_order [--steps wgan_gp force_matching pinn] [--budget 10] [--no-torch-compile]

Three steps, each a loss that differentiates inside itself, then its parameter gradients,
f32, on the same weights and inputs for every side:

- `wgan_gp`: the WGAN-GP critic loss of a DCGAN critic (three stride-2 4x4 convs
  3->64->128->256, LeakyReLU(0.2), a linear score; 32x32 images, batch 16), the penalty at
  random interpolates;
- `force_matching`: energy plus force MSE of an MLP pair potential (16 atoms, width 64,
  batch 16), the forces -dE/dpos;
- `pinn`: the 2-D Poisson residual of a tanh MLP (width 64; 256 interior and 64 boundary
  points), its Laplacian from two nested gradients.

The models and the step functions are the tests' (`tests/torch/test_higher_order_steps.py`).
The sides:

- ours: `export_training_step(model, inputs, step_fn=f).compile()`, called with the inputs;
- eager: `f` then `torch.autograd.grad(loss, parameters)` (the `create_graph=True` route);
- torch.compile: `torch.compile` of that same eager step (it breaks the graph at
  `autograd.grad`, whose double backward AOTAutograd does not support);
- JAX: the same step written with `jax.grad`, `jax.jit(jax.value_and_grad(loss))`, on
  XLA:CPU; left out with a note when jax is not installed (`pip install -e '.[bench]'`).

Timing: one process, every side on the same threads (`benchmarks.harness`), warm-up
calls, then interleaved rounds; the median of each; ratio = their time / ours (> 1: we
are faster). Peak memory: each side runs alone in a child process, which reports its peak
resident set size. Before timing, every side's gradients are compared with eager's
(relative L2 of the worst parameter). Results: `benchmarks/results/higher_order.json`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import THREADS, child_peak_rss_mib, configure_threads, machine_record, peak_rss_mib, preload_openmp, time_interleaved

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
STEPS = ("wgan_gp", "force_matching", "pinn")
SIDES = ("ours", "eager", "torch_compile", "jax")


def _test_steps():
    """tests/torch/test_higher_order_steps.py: the models and step functions the tests check,
    imported by name (torch.compile looks the step's module up in `sys.modules`)."""
    for folder in (REPO / "tests", REPO / "tests" / "torch"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    return importlib.import_module("test_higher_order_steps")


def setup(name: str):
    """(model, step_fn, inputs) of the step `name`, f32, seeded."""
    import torch  # after configure_threads (benchmarks.harness): OpenMP reads it at import

    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    t = _test_steps()
    if name == "wgan_gp":
        model = t.DcganCritic(channels=(3, 64, 128, 256), size=32)
        inputs = (torch.randn(16, 3, 32, 32, generator=generator), torch.randn(16, 3, 32, 32, generator=generator),
                  torch.rand(16, 1, 1, 1, generator=generator))
        return model, t.wgan_gp, inputs
    if name == "force_matching":
        model = t.PairPotential(width=64)
        inputs = (2.0 * torch.randn(16, t.ATOMS, 3, generator=generator), torch.randn(16, generator=generator),
                  torch.randn(16, t.ATOMS, 3, generator=generator))
        return model, t.force_matching, inputs
    model = t.TanhMlp(width=64)
    interior = torch.rand(256, 2, generator=generator)
    forcing = -2 * torch.pi ** 2 * torch.sin(torch.pi * interior[:, 0]) * torch.sin(torch.pi * interior[:, 1])
    return model, t.poisson_residual, (interior, forcing, torch.rand(64, 2, generator=generator).round())


def eager_step(model, step_fn, inputs):
    """() -> (loss, parameter gradients): PyTorch's create_graph=True route."""
    import torch  # after configure_threads

    parameters = list(model.parameters())

    def step():
        loss = step_fn(model, *[x.detach().clone() for x in inputs])
        return loss, torch.autograd.grad(loss, parameters)

    return step


def side(name: str, which: str, model, step_fn, inputs):
    """() -> {parameter name: gradient as NumPy} for one side; None (and why) if unavailable."""
    import torch  # after configure_threads

    names = [n for n, _ in model.named_parameters()]
    if which == "ours":
        from rlx_mlir.torch import export_training_step  # imports torch: after configure_threads

        compiled = export_training_step(model, inputs, step_fn=step_fn).compile()
        return lambda: compiled(*inputs)[1], None
    if which == "eager":
        step = eager_step(model, step_fn, inputs)
        return lambda: dict(zip(names, (g.numpy() for g in step()[1]))), None
    if which == "torch_compile":
        step = torch.compile(eager_step(model, step_fn, inputs))
        return lambda: dict(zip(names, (g.numpy() for g in step()[1]))), None
    try:
        import jax  # optional: the bench extra
    except ImportError:
        return None, "jax is not installed (pip install -e '.[bench]')"
    from benchmarks.higher_order_jax import jax_step  # after jax is known to be installed

    step = jax_step(name, {n: p.detach().numpy() for n, p in model.named_parameters()},
                    [x.numpy() for x in inputs])
    return (lambda: {n: np.asarray(g) for n, g in jax.block_until_ready(step()).items()}), None


def worst_error(got: dict, want: dict) -> float:
    return max(float(np.linalg.norm(got[n] - w) / max(np.linalg.norm(w), 1e-30)) for n, w in want.items())


def _only(args) -> int:
    """Child mode: one side of one step alone, then its peak RSS in MiB."""
    model, step_fn, inputs = setup(args.steps[0])
    run, _ = side(args.steps[0], args.only, model, step_fn, inputs)
    for _ in range(2 + args.rounds):
        run()
    print(peak_rss_mib())
    return 0


def measure(name: str, args) -> dict:
    model, step_fn, inputs = setup(name)
    sides, notes, setup_s = {}, {}, {}
    for which in SIDES:
        if which == "torch_compile" and args.no_torch_compile:
            notes[which] = "left out (--no-torch-compile)"
            continue
        t0 = time.perf_counter()
        try:
            run, why = side(name, which, model, step_fn, inputs)
            if run is not None:
                run()  # the first call compiles (torch.compile, jax.jit)
        except Exception as error:  # a side that cannot run this step is reported, not fatal
            run, why = None, f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
        setup_s[which] = time.perf_counter() - t0
        if run is None:
            notes[which] = why
            print(f"{name}: {which} left out: {why}", file=sys.stderr, flush=True)
        else:
            sides[which] = run
            print(f"{name}: {which} ready in {setup_s[which]:.1f} s", file=sys.stderr, flush=True)
    want = sides["eager"]()
    errors = {which: worst_error(run(), want) for which, run in sides.items() if which != "eager"}
    medians, rounds = time_interleaved(sides, warmup=2, min_rounds=5, budget_s=args.budget)
    peak = {which: child_peak_rss_mib("benchmarks.higher_order", ["--steps", name, "--only", which, "--rounds",
                                                                  str(args.rounds)], which) for which in sides}
    ms = {which: medians[which] * 1e3 for which in sides}
    return {
        "step": name, "ms": ms, "ratio_vs_ours": {w: ms[w] / ms["ours"] for w in sides if w != "ours"},
        "peak_rss_mib": peak, "worst_grad_rel_l2_vs_eager": errors, "setup_and_first_call_s": setup_s,
        "rounds": rounds, "notes": notes,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.higher_order", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS))
    parser.add_argument("--budget", type=float, default=10.0, help="seconds of interleaved timing per step")
    parser.add_argument("--rounds", type=int, default=5, help="steps per side in the memory children")
    parser.add_argument("--no-torch-compile", action="store_true", help="leave out the torch.compile column")
    parser.add_argument("--only", choices=SIDES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    configure_threads()
    preload_openmp()
    if args.only:
        return _only(args)
    results = [measure(name, args) for name in args.steps]
    record = {"threads": THREADS, "dtype": "float32", "steps": results, **machine_record(),
              "date": time.strftime("%Y-%m-%d %H:%M:%S"),
              # The machines are shared: the 1-minute load average when the timing ended.
              "load_average_1min": os.getloadavg()[0]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "higher_order.json").write_text(json.dumps(record, indent=2) + "\n")
    print("| step | side | ms | their ms / our ms | peak MiB | worst grad rel. L2 vs eager |")
    print("|---|---|---|---|---|---|")
    for r in results:
        for which, ms in r["ms"].items():
            ratio = "" if which == "ours" else f"{r['ratio_vs_ours'][which]:.2f}"
            error = "" if which == "eager" else f"{r['worst_grad_rel_l2_vs_eager'][which]:.1e}"
            print(f"| {r['step']} | {which} | {ms:.1f} | {ratio} | {r['peak_rss_mib'][which]:.0f} | {error} |")
        for which, why in r["notes"].items():
            print(f"| {r['step']} | {which} | - | - | - | {why} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
