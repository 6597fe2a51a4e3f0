"""Measure how far PyTorch's own f32 training step is from its f64 step, tensor by tensor.

This is the measurement behind `tests/oracle.py`'s step rule (`assert_step_matches`). For
each model (batch 2, 3x64x64, training mode, cross-entropy, 1000 classes) it computes, on
one set of f32-valued weights and inputs:

- `ref`: PyTorch's f64 step (the oracle);
- `f32`: PyTorch's f32 step, default settings (what the rule's floor is built from);
- the f32 steps of other, equally valid f32 implementations, to see how much two honest
  f32 implementations' errors against `ref` differ from each other (the multiple M):
  `f32-1thread` (one thread: another blocking of the reductions), `f32-nhwc`
  (channels_last: other conv kernels), `f32-nomkldnn` (mkldnn disabled: im2col + GEMM
  convs, another algorithm altogether);
- `f64-pert`: the f64 step on weights and inputs each multiplied by (1 + u r), r uniform
  in [-1, 1], u = 2**-24: the change an f32 *rounding of the inputs alone* causes, i.e.
  the step's conditioning; no f32 implementation can be expected to do better;
- `rnd`: the f64 step rounded to f32 (at most 2**-24 relative: the representation limit);
- for f64, `f64-1thread`, `f64-nhwc`, `f64-nomkldnn` against the default f64 step, to see
  whether two f64 implementations agree to 1e-9.

Errors are relative L2 per tensor, ||a - ref|| / ||ref||. Run:
    python tests/torch/measure_step_errors.py [model ...] [--json out.json] [--table]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402
from step_reference import DropoutMasks, eager_step as _eager_step, named_step_inputs  # noqa: E402

U32 = 2.0 ** -24


def perturbed(model: torch.nn.Module, x: torch.Tensor, seed: int = 7):
    """A copy of (model, x) with every float value multiplied by (1 + U32 * uniform(-1, 1))."""
    import copy

    gen = torch.Generator().manual_seed(seed)
    model = copy.deepcopy(model)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1 + U32 * (2 * torch.rand(p.shape, generator=gen, dtype=p.dtype) - 1))
    x = x * (1 + U32 * (2 * torch.rand(x.shape, generator=gen, dtype=x.dtype) - 1))
    return model, x


def rel(a: np.ndarray, ref: np.ndarray) -> float:
    diff = np.linalg.norm((a.astype(np.float64) - ref).ravel())
    norm = np.linalg.norm(ref.ravel())
    return float(diff / norm) if norm > 0 else (0.0 if diff == 0 else float("inf"))


def variants(name: str):
    m32 = models.build(name, torch.float32)
    m64 = models.build(name, torch.float64)
    x32, target = named_step_inputs(m32, classes=models.num_classes(m32))
    x64 = x32.double()
    masks = DropoutMasks()

    def eager_step(*args, **kwargs):
        return _eager_step(*args, masks=masks, **kwargs)

    threads = torch.get_num_threads()
    out = {}
    out["ref"] = eager_step(m64, x64, target)
    out["f32"] = eager_step(m32, x32, target)
    out["f32-nhwc"] = eager_step(m32, x32, target, channels_last=True)
    with torch.backends.mkldnn.flags(enabled=False):
        out["f32-nomkldnn"] = eager_step(m32, x32, target)
        out["f64-nomkldnn"] = eager_step(m64, x64, target)
    torch.set_num_threads(1)
    try:
        out["f32-1thread"] = eager_step(m32, x32, target)
        out["f64-1thread"] = eager_step(m64, x64, target)
    finally:
        torch.set_num_threads(threads)
    out["f64-nhwc"] = eager_step(m64, x64, target, channels_last=True)
    pm, px = perturbed(m64, x64)
    out["f64-pert"] = eager_step(pm, px, target)
    out["rnd"] = {k: v.astype(np.float32) if v.dtype == np.float64 else v for k, v in out["ref"].items()}
    return out


def measure(name: str) -> dict:
    out = variants(name)
    ref = out["ref"]
    rows = []
    for key, want in ref.items():
        if not np.issubdtype(want.dtype, np.floating):
            exact = all(np.array_equal(out[v][key], want) for v in out)
            rows.append(dict(tensor=key, numel=int(want.size), integer=True, exact=exact))
            continue
        row = dict(tensor=key, numel=int(want.size), norm=float(np.linalg.norm(want.ravel())),
                   absmax=float(np.abs(want).max()))
        for v in out:
            if v != "ref":
                row[v] = rel(out[v][key], want)
        # absolute errors, for the tensors whose reference norm is ~0
        row["abs_f32"] = float(np.linalg.norm((out["f32"][key].astype(np.float64) - want).ravel()))
        rows.append(row)
    return dict(model=name, rows=rows)


def summarize(result: dict) -> str:
    rows = [r for r in result["rows"] if not r.get("integer")]
    ints = [r for r in result["rows"] if r.get("integer")]
    lines = [f"== {result['model']}: {len(rows)} float tensors (+{len(ints)} integer, "
             f"{'all exact' if all(r['exact'] for r in ints) else 'NOT exact'})"]
    for v in ("f32", "f32-1thread", "f32-nhwc", "f32-nomkldnn", "f64-pert", "rnd"):
        errs = np.array([r[v] for r in rows])
        lines.append(f"  {v:13s} worst {errs.max():.3g}  median {np.median(errs):.3g}  "
                     f"> 1e-4: {(errs > 1e-4).sum():4d}")
    for v in ("f64-1thread", "f64-nhwc", "f64-nomkldnn"):
        errs = np.array([r[v] for r in rows])
        lines.append(f"  {v:13s} worst {errs.max():.3g}  > 1e-9: {(errs > 1e-9).sum():4d}")
    # The ratio the rule's M bounds: another honest f32 implementation's error over PyTorch
    # f32's (default settings) error, on the tensors where PyTorch f32 misses 1e-4.
    hard = [r for r in rows if r["f32"] > 1e-4]
    for v in ("f32-1thread", "f32-nhwc", "f32-nomkldnn"):
        ratios = [r[v] / r["f32"] for r in rows if r["f32"] > 0]
        hard_ratios = [r[v] / r["f32"] for r in hard]
        lines.append(f"  {v:13s} / f32: worst {max(ratios):.3g} over all; "
                     f"{max(hard_ratios) if hard_ratios else float('nan'):.3g} over the {len(hard)} > 1e-4")
    worst = sorted(rows, key=lambda r: -r["f32"])[:8]
    lines.append("  worst tensors (f32 rel err, |ref|, f32-1thread, f32-nhwc, f32-nomkldnn, f64-pert):")
    for r in worst:
        lines.append(f"    {r['tensor']:45s} {r['f32']:.3g}  |ref| {r['norm']:.3g}  {r['f32-1thread']:.3g}  "
                     f"{r['f32-nhwc']:.3g}  {r['f32-nomkldnn']:.3g}  {r['f64-pert']:.3g}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=list(models.NAMED_MODELS))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--table", action="store_true", help="print every tensor's row")
    args = parser.parse_args(argv)
    results = []
    for name in args.models:
        result = measure(name)
        results.append(result)
        print(summarize(result), flush=True)
        if args.table:
            for r in result["rows"]:
                print("   ", json.dumps(r))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
