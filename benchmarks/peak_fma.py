"""The host's measured peak FMA rate: the ceiling that matrix-product GFLOP/s are a fraction of.

    python -m benchmarks.peak_fma [--seconds 1]

A loop of independent vector FMAs (``ACCUMULATORS`` chains of ``llvm.fma`` on whole vector
registers, as many lanes as our libraries are compiled for), compiled by the same ``llc``
with the same ``-mcpu`` as our libraries (rlx_mlir.backend.toolchain), runs on every thread
the benchmarks use at once; the rate is 2 FLOP per lane per FMA. Enough chains hide the FMA
latency (4 cycles on AVX-512 cores, two FMA ports: 8 chains in flight), and the chains stay
in registers (16 of 32 zmm), so nothing but the FMA units limits the loop. The best of
several short runs is taken: other processes only ever slow a run down, never speed it up.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import tempfile
import threading
import time
from pathlib import Path

ACCUMULATORS = 16
"""Independent FMA chains per loop iteration: at least latency x ports, at most the registers."""
ITERATIONS = 2_000_000
"""Loop trips of one timed call (about 10 ms at 2 FMAs per cycle and 3 GHz)."""


def kernel_ir(lanes: int, element: str = "float") -> str:
    """LLVM IR of ``@fma_chains(i64 n, x, y)``: n trips of ACCUMULATORS chains acc = acc * x + y,
    returning the sum of one lane of each so none of them is dead code."""
    vec = f"<{lanes} x {element}>"
    suffix = f"v{lanes}{'f32' if element == 'float' else 'f64'}"
    lines = [
        f"declare {vec} @llvm.fma.{suffix}({vec}, {vec}, {vec})",
        f"define {element} @fma_chains(i64 %n, {element} %x, {element} %y) {{",
        "entry:",
        f"  %x0 = insertelement {vec} poison, {element} %x, i64 0",
        f"  %xs = shufflevector {vec} %x0, {vec} poison, <{lanes} x i32> zeroinitializer",
        f"  %y0 = insertelement {vec} poison, {element} %y, i64 0",
        f"  %ys = shufflevector {vec} %y0, {vec} poison, <{lanes} x i32> zeroinitializer",
        "  br label %loop",
        "loop:",
        "  %i = phi i64 [ 0, %entry ], [ %next, %loop ]",
    ]
    for a in range(ACCUMULATORS):
        lines.append(f"  %acc{a} = phi {vec} [ %ys, %entry ], [ %new{a}, %loop ]")
    for a in range(ACCUMULATORS):
        lines.append(f"  %new{a} = call {vec} @llvm.fma.{suffix}({vec} %acc{a}, {vec} %xs, {vec} %ys)")
    lines += [
        "  %next = add i64 %i, 1",
        "  %more = icmp slt i64 %next, %n",
        "  br i1 %more, label %loop, label %done",
        "done:",
    ]
    total = "0.0"
    for a in range(ACCUMULATORS):
        lines.append(f"  %e{a} = extractelement {vec} %new{a}, i64 0")
        lines.append(f"  %s{a} = fadd {element} {total}, %e{a}")
        total = f"%s{a}"
    lines += [f"  ret {element} {total}", "}"]
    return "\n".join(lines) + "\n"


@functools.cache
def _library(lanes: int, element: str) -> ctypes.CDLL:
    """The kernel compiled by our llc for our CPU and linked by our C compiler."""
    from rlx_mlir.backend import toolchain
    from rlx_mlir.backend.machine import host_triple, machine_params

    cpu = machine_params().cpu
    workdir = Path(tempfile.mkdtemp(prefix="rlx-peak-fma-"))
    obj, shared = workdir / "fma.o", workdir / "fma.so"
    llc = str(toolchain.find_tool("llc").path)
    toolchain.run("llc", [llc, "-O3", f"-mtriple={host_triple()}", f"-mcpu={cpu}", "-filetype=obj",
                          "--relocation-model=pic", "-o", str(obj), "-"], input=kernel_ir(lanes, element))
    toolchain.run("link", [*toolchain.c_compiler(), "-shared", "-o", str(shared), str(obj)])
    library = ctypes.CDLL(str(shared))
    c_type = ctypes.c_float if element == "float" else ctypes.c_double
    library.fma_chains.restype = c_type
    library.fma_chains.argtypes = (ctypes.c_int64, c_type, c_type)
    return library


@functools.cache
def peak_gflops(threads: int, seconds: float = 1.0, element: str = "float") -> float:
    """GFLOP/s of ``threads`` threads running the kernel at once: the best of repeated runs
    within ``seconds`` (measured once per process and arguments). ctypes releases the GIL during the call, so the threads run in parallel."""
    from rlx_mlir.backend.machine import machine_params

    lanes = machine_params().f32_lanes // (1 if element == "float" else 2)
    kernel = _library(lanes, element).fma_chains
    kernel(1000, 0.999, 1e-3)  # warm-up: page in the code
    flop = 2.0 * lanes * ACCUMULATORS * ITERATIONS * threads
    best = 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or best == 0.0:
        workers = [threading.Thread(target=kernel, args=(ITERATIONS, 0.999, 1e-3)) for _ in range(threads)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        best = max(best, flop / (time.perf_counter() - start) / 1e9)
    return best


def main(argv: list[str] | None = None) -> int:
    from benchmarks.harness import THREADS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds of repeated runs per measurement")
    args = parser.parse_args(argv)
    for element, name in (("float", "f32"), ("double", "f64")):
        one = peak_gflops(1, args.seconds, element)
        every = peak_gflops(THREADS, args.seconds, element)
        print(f"peak {name} FMA: {one:.0f} GFLOP/s on 1 thread, {every:.0f} GFLOP/s on {THREADS} threads")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
