"""Measure our compiled backward kernels against PyTorch in one process.

Fairness rules: the same inputs, the same thread count for everyone (``THREADS``),
warm-up calls first, then interleaved rounds (ours, PyTorch, [IREE], order alternating per
round) and the median of each. OpenMP runtimes are told to sleep when idle
(``OMP_WAIT_POLICY=PASSIVE``), so one runtime's spinning threads do not steal the cores of
the next one, but the LLVM/Intel runtime's threads spin 1 ms first (``KMP_BLOCKTIME=1``):
a compiled step is hundreds of short parallel regions back to back, and with a block time
of 0 every region paid a sleeping thread's wake-up, which on an idle virtual machine is a
halted vCPU's (measured on 2 KVM vCPUs, idle: the PINN step 20.5 ms at 0, 2.1 ms at 1 ms,
2.0 ms at the runtime's default of 200 ms; eager's own time 5.8 -> 2.7 ms). One
millisecond keeps a side's spinning from reaching into the next side's timing.
:func:`configure_threads` must run before torch is imported.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.cases import Case



def _machine_threads() -> int:
    """OMP_NUM_THREADS if set, else the CPUs this process may use: the count our
    libraries are compiled for (rlx_mlir.backend.machine.thread_count), so PyTorch and
    we run on the same number of threads."""
    requested = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if requested.isdigit() and int(requested) > 0:
        return int(requested)
    return len(os.sched_getaffinity(0))


THREADS = _machine_threads()
REPO = Path(__file__).resolve().parents[1]


def configure_threads(threads: int = THREADS) -> None:
    """Thread count and idle policy for every runtime in the process (call before imports)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ.setdefault("KMP_BLOCKTIME", "1")
    os.environ.setdefault("KMP_WARNINGS", "0")


def machine_record() -> dict:
    """Where and with what a result was measured, for the results files: the CPU, the
    thread count and vector lanes our libraries were compiled for, torch's and the MLIR
    tools' versions."""
    import dataclasses
    import platform

    import torch

    from rlx_mlir.backend import cache, toolchain
    from rlx_mlir.backend.machine import machine_params

    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "machine": platform.processor() or platform.machine(),
        "cpu": cpu,
        # LLVM's name for the host (znver3: Zen 3, AVX2; znver4: Zen 4, AVX-512).
        "llvm_host_cpu": cache.llvm_host_cpu(),
        "compiled_for": dataclasses.asdict(machine_params()),
        "torch": torch.__version__,
        "tools": {name: toolchain.find_tool(name).version for name in ("mlir-opt", "llc")},
    }


def preload_openmp() -> Path | None:
    """Load libiomp5 (PyPI ``intel-openmp``) globally, if installed; returns its path.

    Libraries of 'optimizing-omp' link libiomp5 themselves (rpath); loading it up front
    keeps the runtime's start-up out of the first timed call.
    """
    from rlx_mlir.backend.pipelines import openmp_library

    library = openmp_library()
    if library is not None:
        ctypes.CDLL(str(library), mode=os.RTLD_GLOBAL)
    return library


@dataclass
class Result:
    """One case's measurements (times in milliseconds)."""

    name: str
    kind: str
    batch: str
    unit: str
    work: float
    pipeline: str
    ours_ms: float
    torch_ms: float
    ratio: float
    ours_rate: float
    torch_rate: float
    max_abs_err: float
    rel_err: float
    correct: bool
    rounds: int
    compile_s: float
    iree_ms: float | None = None
    iree_rate: float | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def lower(case: Case, conv_weight: str = "direct", conv_input: str = "direct"):
    """The case's RLX module lowered to linalg-on-tensors (our passes, chosen formulation)."""
    from rlx_mlir.ir import make_context, parse_module, verify_module
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    ctx = make_context()
    module = parse_module(ctx, case.rlx_module(), case.name)
    for pass_ in (
        DecomposeBackwardPass(conv_weight=conv_weight, conv_input=conv_input),
        ConvertRlxToLinalgPass(),
    ):
        pass_.apply(ctx, module)
    verify_module(module)
    return module


def ensure_pipeline(name: str) -> None:
    """Fail early (ValueError/ToolchainError) when ``name`` is unknown or its runtime missing."""
    from rlx_mlir.backend import pipelines

    pipelines.get_pipeline(name).link_flags  # noqa: B018


def compile_case(case: Case, pipeline: str, conv_weight: str = "direct", conv_input: str = "direct"):
    """(callable ``f``, seconds spent compiling, linalg text) for ``case``."""
    from rlx_mlir.backend import compile_module
    from rlx_mlir.backend.interface import module_text

    start = time.perf_counter()
    module = lower(case, conv_weight, conv_input)
    native = compile_module(module, pipeline)
    return native["f"], time.perf_counter() - start, module_text(module)


def iree_callable(linalg_text: str, arrays: tuple[np.ndarray, ...]) -> Callable[[], object] | None:
    """The same linalg compiled by IREE (llvm-cpu, host CPU), or None if IREE is absent."""
    try:
        import iree.compiler as ireec
        import iree.runtime as ireert
    except ImportError:
        return None
    flatbuffer = ireec.compile_str(
        linalg_text,
        target_backends=["llvm-cpu"],
        extra_args=["--iree-llvmcpu-target-cpu=host"],
    )
    ireert.flags.parse_flags(f"--task_topology_max_group_count={THREADS}")
    config = ireert.Config("local-task")
    ctx = ireert.SystemContext(config=config)
    vm_module = ireert.VmModule.copy_buffer(ctx.instance, flatbuffer)
    ctx.add_vm_module(vm_module)
    function = ctx.modules.module["f"]
    device_args = [ireert.asdevicearray(config.device, a) for a in arrays]
    return lambda: function(*device_args).to_host()


def _to_numpy(value) -> np.ndarray:
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


def time_interleaved(
    callables: dict[str, Callable[[], object]],
    warmup: int = 2,
    min_rounds: int = 5,
    max_rounds: int = 60,
    budget_s: float = 4.0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[str, float], int]:
    """Median seconds per call of each callable, measured in interleaved rounds.

    ``clock`` times each call (wall time by default; ``time.process_time``, the CPU time of
    all the process's threads, is less sensitive to other jobs taking the cores away); the
    budget is always wall time."""
    for fn in callables.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in callables}
    names = list(callables)
    start = time.perf_counter()
    rounds = 0
    while rounds < max_rounds and (rounds < min_rounds or time.perf_counter() - start < budget_s):
        order = names if rounds % 2 == 0 else names[::-1]
        for name in order:
            t0 = clock()
            callables[name]()
            samples[name].append(clock() - t0)
        rounds += 1
    return {name: statistics.median(s) for name, s in samples.items()}, rounds


def run_case(
    case: Case,
    pipeline: str,
    conv_weight: str = "direct",
    conv_input: str = "direct",
    iree: bool = False,
    budget_s: float = 4.0,
    min_rounds: int = 5,
) -> Result:
    """Compile, check against PyTorch, and time one case."""
    fn, compile_s, linalg_text = compile_case(case, pipeline, conv_weight, conv_input)
    arrays = case.inputs()
    reference = case.torch_reference(arrays)
    want = _to_numpy(reference())
    got = fn(*arrays)
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    scale = max(1.0, float(np.max(np.abs(want))))
    # The numeric tests' float32 tolerance (tests/oracle.py): rtol 2e-4, atol 2e-4 * max|want|.
    correct = got.shape == want.shape and bool(np.allclose(got, want, rtol=2e-4, atol=2e-4 * scale))
    notes: list[str] = []
    callables: dict[str, Callable[[], object]] = {"ours": lambda: fn(*arrays), "torch": reference}
    if iree:
        try:
            iree_fn = iree_callable(linalg_text, arrays)
        except Exception as err_:  # IREE is optional: record why it has no number
            iree_fn = None
            notes.append(f"iree failed: {str(err_).splitlines()[0][:200]}")
        if iree_fn is not None:
            callables["iree"] = iree_fn
    medians, rounds = time_interleaved(callables, min_rounds=min_rounds, budget_s=budget_s)
    work = case.work()
    iree_s = medians.get("iree")
    return Result(
        name=case.name,
        kind=case.kind,
        batch=case.batch_label,
        unit=case.unit,
        work=work,
        pipeline=pipeline,
        ours_ms=medians["ours"] * 1e3,
        torch_ms=medians["torch"] * 1e3,
        ratio=medians["torch"] / medians["ours"],
        ours_rate=work / medians["ours"] / 1e9,
        torch_rate=work / medians["torch"] / 1e9,
        max_abs_err=err,
        rel_err=err / scale,
        correct=bool(correct),
        rounds=rounds,
        compile_s=compile_s,
        iree_ms=None if iree_s is None else iree_s * 1e3,
        iree_rate=None if iree_s is None else work / iree_s / 1e9,
        notes=notes,
    )


def time_decompose(example: Path) -> float:
    """Wall seconds of ``rlx-opt --decompose-backward example`` (a fresh process)."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rlx_mlir.tools.rlx_opt", str(example), "--decompose-backward"],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=REPO,
    )
    return time.perf_counter() - start


def time_cold_compile(example: Path, pipeline: str) -> float:
    """Seconds from RLX text to a shared library with an empty compile cache."""
    from rlx_mlir.api import lower_to_linalg
    from rlx_mlir.backend import build_library
    from rlx_mlir.backend.cache import CACHE_DIR_ENV

    previous = os.environ.get(CACHE_DIR_ENV)
    with tempfile.TemporaryDirectory(prefix="rlx-bench-cache-") as tmp:
        os.environ[CACHE_DIR_ENV] = tmp
        try:
            start = time.perf_counter()
            build_library(lower_to_linalg(example.read_text(), str(example)), pipeline)
            return time.perf_counter() - start
        finally:
            if previous is None:
                del os.environ[CACHE_DIR_ENV]
            else:
                os.environ[CACHE_DIR_ENV] = previous


def start_threads() -> None:
    """Every runtime of this process on ``THREADS`` threads (:func:`configure_threads`,
    then torch's, then our OpenMP runtime loaded): a benchmark's first call."""
    configure_threads()
    import torch  # after configure_threads: OpenMP reads its variables when torch loads

    torch.set_num_threads(THREADS)
    preload_openmp()


def against_torch(ours: Callable[[], object], torch: Callable[[], object], budget_s: float) -> dict:
    """Ours and PyTorch's call timed interleaved: their medians (ms), the ratio torch/ours
    (above 1: we are faster) and the rounds, as a results-file entry."""
    medians, rounds = time_interleaved({"ours": ours, "torch": torch}, budget_s=budget_s)
    return {
        "ours_ms": medians["ours"] * 1e3, "torch_ms": medians["torch"] * 1e3,
        "ratio": medians["torch"] / medians["ours"], "rounds": rounds,
    }


def write_report(directory: Path, name: str, cases: list[dict]) -> int:
    """``directory/name.json``: the cases with the machine and date they were measured on.
    Returns the benchmark's exit status: 0 when every case was ``correct``, else 1."""
    directory.mkdir(parents=True, exist_ok=True)
    report = {"threads": THREADS, **machine_record(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cases": cases}
    (directory / f"{name}.json").write_text(json.dumps(report, indent=2))
    return 0 if all(case["correct"] for case in cases) else 1


def child_peak_rss_mib(module: str, arguments: list[str], side: str) -> float:
    """Peak RSS (MiB) of `python -m module arguments...`, a child that runs only `side`'s
    work and prints its own `peak_rss_mib()` last, so neither side's memory counts in the
    other's."""
    command = [sys.executable, "-m", module, *arguments]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=os.environ.copy())
    if done.returncode != 0:
        raise RuntimeError(f"the {side} child failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def peak_rss_mib() -> float:
    """This process's peak resident set size, `VmHWM`, in MiB.

    Not `getrusage(...).ru_maxrss`: Linux keeps that across `execve`, so a child started by
    a large parent reports at least the parent's peak (both sides of the first run read the
    parent's 899 MiB). `VmHWM` belongs to the address space the child's `exec` created."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def geomean(values: list[float]) -> float:
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def format_table(results: list[Result]) -> str:
    has_iree = any(r.iree_ms is not None for r in results)
    header = f"{'case':34} {'batch':>5} {'ours ms':>9} {'torch ms':>9} {'ours':>8} {'torch':>8} {'unit':7} {'ratio':>6}"
    if has_iree:
        header += f" {'iree ms':>9} {'vs iree':>7}"
    header += "  ok"
    lines = [header, "-" * len(header)]
    for r in results:
        line = (
            f"{r.name:34} {r.batch:>5} {r.ours_ms:9.2f} {r.torch_ms:9.2f} {r.ours_rate:8.2f} {r.torch_rate:8.2f}"
            f" {r.unit:7} {r.ratio:6.2f}"
        )
        if has_iree:
            if r.iree_ms is None:
                line += f" {'-':>9} {'-':>7}"
            else:
                line += f" {r.iree_ms:9.2f} {r.iree_ms / r.ours_ms:7.2f}"
        line += "  " + ("yes" if r.correct else f"NO (rel err {r.rel_err:.1e})")
        lines.append(line)
    return "\n".join(lines)


def write_chart(results: list[Result], path: Path, title: str) -> bool:
    """Bar chart of the ratio PyTorch/ours per case (log scale); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [f"{r.name} n={r.batch}" for r in results]
    ratios = [r.ratio for r in results]
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(names) + 1.5))
    colors = ["tab:green" if v >= 1 else ("tab:orange" if v >= 0.25 else "tab:red") for v in ratios]
    ax.barh(names, ratios, color=colors)
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.axvline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.invert_yaxis()
    ax.set_xlabel("PyTorch time / our time (log; > 1 means faster than PyTorch)")
    ax.set_title(title)
    for i, (v, r) in enumerate(zip(ratios, results)):
        ax.text(v, i, f" {v:.2f} ({r.ours_rate:.1f} {r.unit})", va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def comparison_result(name: str, medians: dict[str, float], rounds: int, error: float, correct: bool,
                      compile_s: float, flop: float | None = None) -> dict:
    """One case's record: ``medians`` (seconds) of ``ours`` and ``torch`` from
    :func:`time_interleaved`, ratio = PyTorch time / ours, GFLOP/s when ``flop`` is given."""
    result = {"name": name, "ours_ms": medians["ours"] * 1e3, "torch_ms": medians["torch"] * 1e3}
    if flop is not None:
        result.update(ours_gflops=flop / 1e9 / medians["ours"], torch_gflops=flop / 1e9 / medians["torch"])
    return {**result, "ratio": medians["torch"] / medians["ours"], "max_abs_err": error, "correct": correct,
            "rounds": rounds, "compile_s": compile_s}


def describe_comparison(result: dict) -> str:
    """The printed line of a :func:`comparison_result`."""
    rates = {side: f" ({result[side + '_gflops']:.0f} GFLOP/s)" if side + "_gflops" in result else "" for side in ("ours", "torch")}
    return (
        f"{result['name']}: ours {result['ours_ms']:.2f} ms{rates['ours']}, torch {result['torch_ms']:.2f} ms{rates['torch']}, "
        f"ratio {result['ratio']:.2f}, max error {result['max_abs_err']:.1e}, correct {result['correct']}"
    )


def case_by_case_main(
    argv: list[str] | None,
    description: str,
    cases: Callable[[], list],
    run: Callable[[object, float], dict],
    results_file: str,
) -> int:
    """The command line of a benchmark of named cases timed one by one against PyTorch.

    Options ``--budget`` (seconds of timed rounds per case), ``--cases PREFIX ...`` and
    ``--out DIR``. ``run(case, budget)`` returns a result with at least ``name`` and
    ``correct`` (see :func:`comparison_result`), printed by :func:`describe_comparison`. Writes ``results_file`` under the output
    folder with the machine record; exit status 1 when a result was not correct. Threads
    are configured here, before torch is imported.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of timed rounds per case")
    parser.add_argument("--cases", nargs="*", default=[], help="run only the cases whose name starts with one of these")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = parser.parse_args(argv)
    configure_threads()
    import torch  # after configure_threads: torch reads the thread settings when imported

    torch.set_num_threads(THREADS)
    preload_openmp()
    results = []
    for case in cases():
        if args.cases and not any(case.name.startswith(prefix) for prefix in args.cases):
            continue
        result = run(case, args.budget)
        results.append(result)
        print(describe_comparison(result), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"threads": THREADS, **machine_record(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cases": results}
    (args.out / results_file).write_text(json.dumps(report, indent=2))
    return 0 if all(r["correct"] for r in results) else 1
