"""Transform-dialect schedules used by the lowering pipelines, as package data.

``main.mlir`` is the entry point; ``common.mlir`` holds the steps several op kinds share;
``params.mlir`` the machine parameters; each other file is the library of one op kind (see
``pipelines.SCHEDULE_LIBRARIES``). The compile cache keys on each file's contents, so an
edit rebuilds.

The machine parameters are set here, in :data:`PARAMS`, and nowhere else: the libraries
read them from ``params.mlir`` (named sequences returning ``!transform.param<i64>``),
which is their rendering by :func:`render_params`. The checked-in ``params.mlir`` is the
rendering of :data:`PARAMS` (a test checks it); ``python -m rlx_mlir.backend.schedules
--render`` rewrites it.

The pipelines do not use :data:`PARAMS` as they are: :func:`machine_params` describes the
machine the code is compiled for (its thread count and vector width, read from the
environment and the host), and :func:`params_library` writes that rendering to a file the
schedules are preloaded from. The cache key hashes the file's contents, so a library built
for 2 threads or 8 lanes is never reused for 4 threads or 16 lanes.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

SCHEDULES_DIR = Path(__file__).resolve().parent
PARAMS_FILE = SCHEDULES_DIR / "params.mlir"


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
        from rlx_mlir.backend import toolchain
        from rlx_mlir.backend.cache import llvm_host_cpu

        try:
            cpu = llvm_host_cpu()
        except toolchain.ToolchainError:  # no llc: the chunks, which suit every CPU
            return False
    return cpu in FULL_WIDTH_FMA_CPUS


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
    from rlx_mlir.backend import pipelines, toolchain

    try:
        llc = toolchain.find_tool("llc")
        asm = toolchain.run(
            "llc (vector width probe)",
            [str(llc.path), "-O3", f"-mtriple={pipelines.host_triple()}", f"-mcpu={cpu}", "-o", "-", "-"],
            input=_LANES_PROBE,
        )
    except toolchain.ToolchainError:
        return PARAMS.f32_lanes
    for register, lanes in (("%zmm", 16), ("%ymm", 8), ("%xmm", 4)):
        if register in asm:
            return lanes
    return PARAMS.f32_lanes


def params_library(params: MachineParams) -> Path:
    """A file holding :func:`render_params` of ``params``, for the schedules to preload.

    The checked-in ``params.mlir`` when ``params`` renders to it; otherwise a file named
    by its contents' digest in a private temporary directory, written atomically (several
    processes may compile at once).
    """
    text = render_params(params)
    if PARAMS_FILE.read_text() == text:
        return PARAMS_FILE
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    directory = Path(tempfile.gettempdir()) / f"rlx-mlir-schedule-params-{os.getuid()}"
    directory.mkdir(mode=0o700, exist_ok=True)
    path = directory / f"params-{digest}.mlir"
    if not (path.is_file() and path.read_text() == text):
        fd, partial = tempfile.mkstemp(dir=directory, prefix=".params-")
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(partial, path)
    return path


def render_params(params: MachineParams = PARAMS) -> str:
    """The text of ``params.mlir`` for ``params``."""
    return _PARAMS_TEMPLATE.format(
        threads=params.threads,
        lanes=params.f32_lanes,
        lanes_x2=2 * params.f32_lanes,
        short=min(params.f32_lanes, SHORT_LANES),
        full_width_fma=int(params.full_width_fma),
        lanes_and_a_half=params.f32_lanes + params.f32_lanes // 2,
        weight_rows=conv_weight_rows(params),
    )


def conv_weight_rows(params: MachineParams) -> int:
    """Rows p of the conv weight gradient's register tile, p x (2 vectors) accumulators:
    8 where vectors hold 16 f32 (AVX-512, whose 32 vector registers hold the 16
    accumulators and the operands), else 4 (8 accumulators in AVX2's 16 registers).
    Measured on Zen 5 against 4 rows (one process, PyTorch interleaved, `PASSIVE`):
    512x512 at 7x7 11.3 -> 7.0 ms, 64x64 at 56x56 10.5 -> 8.6 ms, 128x128 at 28x28 (batch
    7) 6.4 -> 4.5 ms."""
    return 8 if params.f32_lanes >= 16 else 4


SHORT_LANES = 8
"""The narrowest f32 vector the conv schedule computes a chunk in: 8 lanes, or the whole
register where it is narrower. A conv whose output rows are narrower than a 16-lane
register (the 7x7 maps of ResNet's last stage) is widened to 8 columns, not 16: on AVX-512
machines whose FMA units are 256 bits wide (Zen 4) two 8-lane FMAs issue per cycle where one
16-lane FMA does, so the 8-wide rows waste 1 column in 8 instead of 9 in 16."""


_PARAMS_TEMPLATE = """\
// Schedule library of the `optimizing` pipelines: the machine parameters, as named sequences
// returning !transform.param<i64> that the other libraries include. Generated from
// rlx_mlir/backend/schedules/__init__.py (PARAMS): edit the values there and run
// `python -m rlx_mlir.backend.schedules --render`.
module attributes {{transform.with_named_sequence}} {{

  // Iterations of a scheduled op's scf.forall: its threads.
  transform.named_sequence @num_threads() -> !transform.param<i64> {{
    %p = transform.param.constant {threads} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // f32 elements per vector register.
  transform.named_sequence @f32_lanes() -> !transform.param<i64> {{
    %p = transform.param.constant {lanes} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // The narrowest vector a conv chunk is computed in: min(8, @f32_lanes).
  transform.named_sequence @f32_short_lanes() -> !transform.param<i64> {{
    %p = transform.param.constant {short} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // Rows of the conv weight gradient's register tile (schedules.conv_weight_rows).
  transform.named_sequence @conv_weight_rows() -> !transform.param<i64> {{
    %p = transform.param.constant {weight_rows} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // Two vector registers of f32.
  transform.named_sequence @f32_lanes_x2() -> !transform.param<i64> {{
    %p = transform.param.constant {lanes_x2} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // 1 where a whole-register FMA issues as often as a half-register one (512-bit FMA
  // units, schedules.FULL_WIDTH_FMA_CPUS), else 0.
  transform.named_sequence @f32_full_width_fma() -> !transform.param<i64> {{
    %p = transform.param.constant {full_width_fma} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // One and a half vector registers of f32: rows between this and @f32_lanes_x2 columns
  // split into three or more chunks (28 = 16 + 8 + 4 for 16 lanes).
  transform.named_sequence @f32_lanes_and_a_half() -> !transform.param<i64> {{
    %p = transform.param.constant {lanes_and_a_half} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // %op split along dimension 3 into chunks of whole vectors, then of halving widths
  // (56 = 7*{lanes}; 28 = 3*{lanes} + 4 for {lanes} lanes): each chunk with its tile width. The
  // target size of continuous_tile_sizes is an attribute, not a param, in MLIR 22.
  transform.named_sequence @split_dim3_in_vector_chunks(%op: !transform.any_op {{transform.consumed}})
      -> (!transform.any_op, !transform.param<i64>) {{
    %widths, %ends = transform.structured.continuous_tile_sizes %op {{ dimension = 3, target_size = {lanes} }}
        : (!transform.any_op) -> !transform.param<i64>
    %chunks = transform.structured.split %op after %ends {{ dimension = 3, multiway }}
        : !transform.any_op, !transform.param<i64>
    transform.yield %chunks, %widths : !transform.any_op, !transform.param<i64>
  }}

  // %op with its iteration dimension 3 padded up to a multiple of {lanes}: its operands
  // padded with zeros of their element type, its result sliced back to its size. The
  // padding sizes are an attribute here: pad_tiling_interface does not substitute params in
  // MLIR 22.
  transform.named_sequence @pad_dim3_to_vector_multiple(%op: !transform.any_op {{transform.consumed}})
      -> !transform.any_op {{
    %padded, %pads = transform.structured.pad_tiling_interface %op to padding_sizes [0, 0, 0, {lanes}] pad_to_multiple_of
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %padded : !transform.any_op
  }}

  // As @pad_dim3_to_vector_multiple, up to a multiple of @f32_short_lanes ({short}).
  transform.named_sequence @pad_dim3_to_short_vector_multiple(%op: !transform.any_op {{transform.consumed}})
      -> !transform.any_op {{
    %padded, %pads = transform.structured.pad_tiling_interface %op to padding_sizes [0, 0, 0, {short}] pad_to_multiple_of
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %padded : !transform.any_op
  }}
}}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlx_mlir.backend.schedules",
        description="Render params.mlir from the machine parameters in PARAMS.",
    )
    parser.add_argument(
        "--render",
        metavar="DIR",
        nargs="?",
        const=str(SCHEDULES_DIR),
        help="write params.mlir into DIR (default: the package's own copy)",
    )
    args = parser.parse_args(argv)
    if args.render is None:
        print(render_params(), end="")
    else:
        (Path(args.render) / PARAMS_FILE.name).write_text(render_params())
    return 0
