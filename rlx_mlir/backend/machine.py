"""The machine the code is compiled for: its threads, its vector width, its CPU.

Code must follow the host: the schedules split work by thread count and vectorize rows
and register tiles by the f32 lanes of a vector register, and ``opt``/``llc`` generate for
one CPU. :func:`machine_params` reads these from the environment and the host;
:data:`PARAMS` holds the values the schedules were tuned with, and the constants below
hold what was measured per CPU. The schedules read them from ``params.mlir``, rendered by
:func:`rlx_mlir.backend.schedules.render_params`; the compile cache keys on that
rendering, so a library built for 2 threads or 8 lanes is never reused for 4 threads or
16 lanes.
"""

from __future__ import annotations

import functools
import os
import platform
import sysconfig
from dataclasses import dataclass

from rlx_mlir.backend import toolchain


@dataclass(frozen=True)
class MachineParams:
    """What the schedules assume of the machine.

    ``threads``: how many threads ``optimizing-omp``'s OpenMP regions fork, and how many
    ``scf.forall`` iterations a schedule that splits an op by thread count makes; the
    default 2 is the cores of the machines these schedules were tuned on.
    ``f32_lanes``: f32 elements in one vector register, the width of the vectorized rows
    and register tiles; the default 8 is AVX2's ymm.
    ``full_width_fma``: a whole-register FMA issues as often as a half-register one (FMA
    units as wide as the registers), so a row is cheapest in whole vectors even with a few
    zero columns; see :data:`FULL_WIDTH_FMA_CPUS`.
    """

    threads: int = 2
    f32_lanes: int = 8
    cpu: str = "native"
    """The LLVM CPU ``opt`` and ``llc`` generate code for (``-mcpu``)."""
    full_width_fma: bool = False


PARAMS = MachineParams()
"""The parameters the schedules were tuned with; ``params.mlir`` is their rendering."""

CPU_VARIABLE = "RLX_MLIR_CPU"
"""Environment variable naming the LLVM CPU to compile for (default ``native``, this
host), e.g. ``x86-64-v4`` or ``skylake-avx512`` to emit AVX-512 code on another machine."""


def machine_params() -> MachineParams:
    """The machine the pipelines compile for: its threads, vector width and CPU.

    Threads: ``OMP_NUM_THREADS`` if set (its first, outermost level), else the CPUs this
    process may run on (its affinity mask, not the machine's CPU count: a container or
    ``taskset`` limits it). Vector width and CPU: :data:`CPU_VARIABLE`'s CPU, else the
    host's, resolved by :func:`f32_lanes_of`.
    """
    cpu = os.environ.get(CPU_VARIABLE, "").strip() or "native"
    lanes = f32_lanes_of(cpu)
    return MachineParams(threads=thread_count(), f32_lanes=lanes, cpu=cpu, full_width_fma=has_full_width_fma(cpu, lanes))


FULL_WIDTH_FMA_CPUS = frozenset({"znver5"})
"""LLVM CPUs whose 16-lane FMAs issue at the rate of their 8-lane ones, as measured for the
conv schedule: on a Zen 5 slice, a 28-wide conv row computed as two 16-lane vectors (4
zero columns) ran 1.27x faster than as its 16 + 8 + 4 chunks (docs/schedules-notes.md). On
Zen 4, whose 512-bit FMAs are two 256-bit halves, the chunks measured faster. Other CPUs
are unmeasured and keep the chunks. LLVM's own tuning cannot tell the two apart (both
prefer 512-bit vectors)."""


def has_full_width_fma(cpu: str, lanes: int) -> bool:
    """Whether ``cpu`` (``native``: the host, as llc names it) is in
    :data:`FULL_WIDTH_FMA_CPUS` and compiled for with 16 lanes."""
    if lanes < 16:
        return False
    if cpu == "native":
        try:
            cpu = llvm_host_cpu()
        except toolchain.ToolchainError:  # no llc: the chunks, which suit every CPU
            return False
    return cpu in FULL_WIDTH_FMA_CPUS


SHORT_LANES = 8
"""The narrowest f32 vector the conv schedule computes a chunk in: 8 lanes, or the whole
register where it is narrower. A conv whose output rows are narrower than a 16-lane
register (the 7x7 maps of ResNet's last stage) is widened to 8 columns, not 16: on AVX-512
machines whose FMA units are 256 bits wide (Zen 4) two 8-lane FMAs issue per cycle where one
16-lane FMA does, so the 8-wide rows waste 1 column in 8 instead of 9 in 16."""


def conv_weight_rows(params: MachineParams) -> int:
    """Rows p of the conv weight gradient's register tile, p x (2 vectors) accumulators:
    8 where vectors hold 16 f32 (AVX-512, whose 32 vector registers hold the 16
    accumulators and the operands), else 4 (8 accumulators in AVX2's 16 registers).
    Measured on Zen 5 against 4 rows (one process, PyTorch interleaved, `PASSIVE`):
    512x512 at 7x7 11.3 -> 7.0 ms, 64x64 at 56x56 10.5 -> 8.6 ms, 128x128 at 28x28 (batch
    7) 6.4 -> 4.5 ms."""
    return 8 if params.f32_lanes >= 16 else 4


def thread_count() -> int:
    """``OMP_NUM_THREADS`` (first level of a nested list such as ``4,2``) if it is a
    positive integer, else the number of CPUs in this process's affinity mask."""
    requested = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if requested.isdigit() and int(requested) > 0:
        return int(requested)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity masks on this platform
        return max(1, os.cpu_count() or 1)


def host_triple() -> str:
    """The LLVM target triple of this machine, e.g. ``x86_64-pc-linux-gnu``."""
    return sysconfig.get_config_var("HOST_GNU_TYPE") or f"{platform.machine()}-unknown-linux-gnu"


@functools.cache
def llvm_host_cpu() -> str:
    """LLVM's name for this host's CPU (``Host CPU:`` of ``llc --version``: znver3, znver4,
    ...), or "" where llc does not say."""
    llc = toolchain.find_tool("llc")
    version = toolchain.run("llc --version", [str(llc.path), "--version"])
    return next((ln.split(":", 1)[1].strip() for ln in version.splitlines() if "Host CPU" in ln), "")


# A 16-lane f32 add: llc selects zmm registers for it where 512-bit vectors are the
# target's preferred width, ymm pairs where 256-bit ones are, xmm quadruples below that.
_LANES_PROBE = """\
define <16 x float> @lanes(<16 x float> %a, <16 x float> %b) {
  %c = fadd <16 x float> %a, %b
  ret <16 x float> %c
}
"""


@functools.cache
def f32_lanes_of(cpu: str) -> int:
    """f32 lanes of the vector registers llc uses for ``cpu`` (16 AVX-512, 8 AVX2, 4 SSE).

    Asked of llc itself, with the triple and ``-mcpu`` the pipelines pass, rather than
    read from ``/proc/cpuinfo``: llc's choice is what the code will use (a CPU that has
    AVX-512 but prefers 256-bit vectors gets ymm code), and a named CPU resolves the same
    way as ``native``. Without llc: :data:`PARAMS`'s width.
    """
    try:
        llc = toolchain.find_tool("llc")
        asm = toolchain.run(
            "llc (vector width probe)",
            [str(llc.path), "-O3", f"-mtriple={host_triple()}", f"-mcpu={cpu}", "-o", "-", "-"],
            input=_LANES_PROBE,
        )
    except toolchain.ToolchainError:
        return PARAMS.f32_lanes
    for register, lanes in (("%zmm", 16), ("%ymm", 8), ("%xmm", 4)):
        if register in asm:
            return lanes
    return PARAMS.f32_lanes
