"""The blocked-layout experiment: case b's 3x3 conv (128 -> 128, 28x28, padding 1) in its
three directions, on channel-blocked layouts, against today's NCHW kernels and PyTorch.

    python -m benchmarks.blocked_conv [--batches 8 1 7 ?] [--repeats 3] [--budget 1.5]

Four callables per direction and batch, timed in one process in interleaved rounds
(:func:`benchmarks.harness.time_interleaved`), ``--repeats`` times; each repeat gives a
median per callable, and the table shows the median of those with their range:

- ``today``: the default pipeline's kernel on NCHW (decompose-backward, convert-rlx-to-linalg,
  ``optimizing-omp``);
- ``blocked``: the blocked kernel with its packs and unpacks (NCHW in, NCHW out);
- ``kernel``: the blocked kernel alone, on inputs already blocked: what a step kept
  blocked end to end would pay per conv;
- ``torch``: PyTorch (oneDNN) on NCHW.

Every result is checked against PyTorch first. The decision rule (docs/blocked-layouts.md):
the layout is rolled out only if ``today / kernel`` is at least 1.2. ``--clock cpu`` times
each call by the CPU time of all its threads instead of wall time. ``--profile-child
DIRECTION`` runs only that blocked kernel at batch 8 for ``--budget`` seconds, for
``perf record``. Results go to ``benchmarks/results/blocked_conv.json``.
"""

from __future__ import annotations

from benchmarks.harness import configure_threads

configure_threads()  # before torch is imported (the harness's rule)

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from benchmarks.cases import BATCH, BATCHES, case_by_name  # noqa: E402
from benchmarks.harness import REPO, machine_record, preload_openmp, time_interleaved  # noqa: E402
from rlx_mlir.api import lower_to_linalg  # noqa: E402
from rlx_mlir.backend import compile_module  # noqa: E402
from rlx_mlir.backend.machine import machine_params  # noqa: E402
from rlx_mlir.transforms.layout_blocked import DIRECTIONS, BlockedConv  # noqa: E402
from rlx_mlir.transforms.layout_blocked import arrays as layout  # noqa: E402
from rlx_mlir.transforms.layout_blocked.compile import compile_blocked  # noqa: E402

PIPELINE = "optimizing-omp"
CASE = case_by_name("b-128x28-3x3-bw-weight")
RESULTS = REPO / "benchmarks" / "results" / "blocked_conv.json"


def _forward_rlx(case) -> str:
    def activation(shape) -> str:
        return "tensor<" + "x".join("?" if case.dynamic_batch and i == 0 else str(d) for i, d in enumerate(shape)) + "xf32>"

    x, y = activation(case.x_shape), activation(case.y_shape)
    w = "tensor<" + "x".join(str(d) for d in case.w_shape) + "xf32>"
    p = case.pad
    return (
        f"func.func @f(%x: {x}, %w: {w}) -> {y} {{\n"
        f"  %y = rlx.conv2d %x, %w stride [1, 1] padding [{p}, {p}] : ({x}, {w}) -> {y}\n"
        f"  return %y : {y}\n}}\n"
    )


def today_module(direction: str, case) -> str:
    """RLX text of today's kernel for ``direction`` at ``case``'s batch."""
    if direction == "forward":
        return _forward_rlx(case)
    kind = "conv_input" if direction == "input" else "conv_weight"
    return dataclasses.replace(case, kind=kind).rlx_module()


def inputs(direction: str, case, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x, dy, w = (rng.standard_normal(s, dtype=np.float32) for s in (case.x_shape, case.y_shape, case.w_shape))
    return {"forward": (x, w), "input": (dy, w), "weight": (x, dy)}[direction]


def blocked_inputs(direction: str, arrays: tuple[np.ndarray, ...], block: int) -> tuple[np.ndarray, ...]:
    if direction == "forward":
        return layout.block_activation(arrays[0], block), layout.block_weight(arrays[1], block)
    if direction == "input":
        return layout.block_activation(arrays[0], block), layout.block_weight_for_input(arrays[1], block)
    return layout.block_activation(arrays[0], block), layout.block_activation(arrays[1], block)


def torch_call(direction: str, case, arrays):
    a, b = (torch.from_numpy(v) for v in arrays)
    p = case.pad
    if direction == "forward":
        return lambda: torch.nn.functional.conv2d(a, b, padding=p)
    if direction == "input":
        return lambda: torch.nn.grad.conv2d_input(case.x_shape, b, a, padding=p)
    return lambda: torch.nn.grad.conv2d_weight(a, case.w_shape, b, padding=p)


def _close(got, want) -> bool:
    want = np.asarray(want)
    scale = max(1.0, float(np.max(np.abs(want))))
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=2e-4, atol=2e-4 * scale))


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
"""``cpu``: the CPU time of all threads, for a machine shared with other jobs."""


def measure_batch(label: str, repeats: int, budget: float, block: int, clock: str = "wall") -> list[dict]:
    case = CASE.at_batch(label)
    conv = BlockedConv(None if case.dynamic_batch else case.batch, case.channels, case.filters, case.size, case.kernel, case.pad, block)
    start = time.perf_counter()
    blocked = compile_blocked(conv.module(), PIPELINE)
    blocked_compile_s = time.perf_counter() - start
    rows = []
    for direction in DIRECTIONS:
        start = time.perf_counter()
        today = compile_module(lower_to_linalg(today_module(direction, case), direction), PIPELINE)["f"]
        today_compile_s = time.perf_counter() - start
        arrays = inputs(direction, case)
        packed = blocked_inputs(direction, arrays, block)
        reference = torch_call(direction, case, arrays)
        want = reference().numpy()
        plain, kernel = blocked[direction], blocked[direction + "_blocked"]
        kernel_out = kernel(*packed)
        unblocked = (
            layout.unblock_weight(kernel_out, case.filters, case.channels)
            if direction == "weight"
            else layout.unblock_activation(kernel_out, want.shape[1])
        )
        correct = {"today": _close(today(*arrays), want), "blocked": _close(plain(*arrays), want), "kernel": _close(unblocked, want)}
        callables = {
            "today": lambda: today(*arrays),
            "blocked": lambda: plain(*arrays),
            "kernel": lambda: kernel(*packed),
            "torch": reference,
        }
        medians: dict[str, list[float]] = {name: [] for name in callables}
        rounds = 0
        for _ in range(repeats):
            result, n = time_interleaved(callables, budget_s=budget, clock=CLOCKS[clock])
            rounds += n
            for name, seconds in result.items():
                medians[name].append(seconds * 1e3)
        ms = {name: statistics.median(v) for name, v in medians.items()}
        row = {
            "direction": direction,
            "batch": case.batch_label,
            "ms": ms,
            "ms_range": {name: [min(v), max(v)] for name, v in medians.items()},
            "gflops": {name: case.work() / (t * 1e-3) / 1e9 for name, t in ms.items()},
            "today_over_kernel": ms["today"] / ms["kernel"],
            "today_over_blocked": ms["today"] / ms["blocked"],
            "torch_over_kernel": ms["torch"] / ms["kernel"],
            "torch_over_today": ms["torch"] / ms["today"],
            "correct": correct,
            "rounds": rounds,
            "compile_s": {"today": today_compile_s, "blocked_module": blocked_compile_s},
        }
        rows.append(row)
        print(_format(row), flush=True)
    return rows


def _format(row: dict) -> str:
    ms, r = row["ms"], row["ms_range"]
    cells = " ".join(f"{k} {ms[k]:7.2f} [{r[k][0]:.2f}-{r[k][1]:.2f}]" for k in ("today", "blocked", "kernel", "torch"))
    return (
        f"{row['direction']:8} {row['batch']:>5} {cells}  today/kernel {row['today_over_kernel']:.2f}"
        f" today/blocked {row['today_over_blocked']:.2f} torch/kernel {row['torch_over_kernel']:.2f}"
        f" torch/today {row['torch_over_today']:.2f} ok {all(row['correct'].values())}"
    )


def markdown_table(record: dict) -> str:
    """The rows of a results file as the table of docs/blocked-layouts.md."""
    lines = [
        "| direction | batch | today ms | blocked ms | kernel ms | PyTorch ms | today / kernel | today / blocked | PyTorch / kernel |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in record["rows"]:
        ms, r = row["ms"], row["ms_range"]
        cells = " | ".join(f"{ms[k]:.1f} ({r[k][0]:.1f}–{r[k][1]:.1f})" for k in ("today", "blocked", "kernel", "torch"))
        lines.append(
            f"| {row['direction']} | {row['batch']} | {cells} | {row['today_over_kernel']:.2f}"
            f" | {row['today_over_blocked']:.2f} | {row['torch_over_kernel']:.2f} |"
        )
    return "\n".join(lines)


def profile_child(direction: str, budget: float, block: int) -> None:
    """Only the blocked kernel of ``direction`` at batch 8, in a loop, for ``perf record``."""
    case = CASE.at_batch(str(BATCH))
    conv = BlockedConv(case.batch, case.channels, case.filters, case.size, case.kernel, case.pad, block)
    kernel = compile_blocked(conv.module(), PIPELINE)[direction + "_blocked"]
    packed = blocked_inputs(direction, inputs(direction, case), block)
    end = time.perf_counter() + budget
    calls = 0
    while time.perf_counter() < end:
        kernel(*packed)
        calls += 1
    print(f"{calls} calls")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", nargs="+", default=list(BATCHES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=1.5)
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall")
    parser.add_argument("--profile-child", choices=DIRECTIONS)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--table", type=Path, help="print a results file as a markdown table and exit")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(args.table.read_text())))
        return
    preload_openmp()
    block = machine_params().f32_lanes
    if args.profile_child:
        profile_child(args.profile_child, args.budget, block)
        return
    load_before = os.getloadavg()
    rows = [row for label in args.batches for row in measure_batch(label, args.repeats, args.budget, block, args.clock)]
    record = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "case": "b: 128 -> 128, 28x28, 3x3, stride 1, padding 1, f32",
        "block": block,
        "machine": machine_record(),
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
        "clock": args.clock,
        "threads": machine_params().threads,
        "repeats": args.repeats,
        "budget_s": args.budget,
        "rows": rows,
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"load average before {load_before}, after {record['loadavg_after']}; wrote {args.out}")


if __name__ == "__main__":
    main()
