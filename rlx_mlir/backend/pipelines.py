"""Named lowering pipelines, as data: which flags each tool gets on the way to native code.

A pipeline says how linalg-on-tensors becomes LLVM IR (``mlir-opt`` flags), whether LLVM's
own optimizer runs on that IR (``opt`` flags; empty means skip ``opt``), and how machine
code is generated (``llc`` flags). Keeping this as data keeps the driver in
:mod:`rlx_mlir.backend.compile` ignorant of strategy, makes the flags part of the cache
key verbatim, and lets a new pipeline (transform schedules, OpenMP) be one more entry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from rlx_mlir.backend.machine import PARAMS, MachineParams, host_triple, machine_params
from rlx_mlir.backend.schedules import PARAMS_FILE, SCHEDULES_DIR, params_library
from rlx_mlir.backend.toolchain import ToolchainError

# Bufferize whole functions: tensors at function boundaries become memrefs with the
# identity layout, so the C interface takes plain contiguous buffers.
_BUFFERIZE = (
    "--one-shot-bufferize=bufferize-function-boundaries"
    " function-boundary-type-conversion=identity-layout-map"
)

# Correct lowering from linalg-on-tensors to the LLVM dialect, as MLIR 22 needs it: each
# step that is not plain conversion says beside it why it is there.
_TO_LLVM_DIALECT = (
    _BUFFERIZE,
    # Frees temporaries and makes every returned buffer owned by the caller (returned
    # arguments and constants are cloned), so the runtime may free every result. Without it
    # every call leaks its temporaries.
    "--buffer-deallocation-pipeline",
    # Lowers the bufferization.clone ops the deallocation pipeline inserts; convert-to-llvm
    # does not.
    "--convert-bufferization-to-memref",
    "--convert-linalg-to-loops",
    "--convert-scf-to-cf",
    # tensor.pad leaves memref.subview and affine.apply behind, which mlir-translate
    # rejects; these remove them.
    "--expand-strided-metadata",
    "--lower-affine",
    # Math ops with an LLVM intrinsic (exp, tanh, log, ...) become intrinsics; the rest
    # (e.g. math.erf) become libm calls. convert-to-llvm alone leaves math.erf behind.
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-to-llvm",
    "--reconcile-unrealized-casts",
)


def _llvm_native(cpu: str) -> tuple[str, ...]:
    """Flags for `opt` and `llc` alike, for LLVM CPU ``cpu`` (``native``: this host).

    The IR mlir-translate writes names no target: without a triple `opt` models a generic
    target on which no loop is worth vectorizing, and llc expanded memset a byte at a time
    (measurements: docs/schedules-notes.md).
    """
    return ("-O3", f"-mtriple={host_triple()}", f"-mcpu={cpu}")


# llc's schedulers track every memory operation of a scheduling region against every
# other, quadratic in the region: the fully unrolled window scans of max-pool backward
# (ResNet-18's stem pool at batch 8) spent 13 of their 14 s of llc there. Past this many
# memory operations (LLVM's default: 1000) the DAG builder chains them conservatively
# instead; only ordering edges are added, so the code stays correct. That kernel's llc
# time falls to 1.8 s, while the machine code of every conv and matmul kernel of
# ResNet-18's step stays byte-identical (at 100 it did not: 13 of 35 changed).
_LLC_HUGE_REGION = ("-dag-maps-huge-region=200",)

# The scheduled pipelines let llc fuse a multiply and the add consuming it into one FMA
# (one rounding instead of two, as oneDNN's kernels do). The vectorized contractions need
# it: a contraction step over one element folds to a separate mulf and addf, which
# without this run at half the FMA throughput. (llc 22 warns that the X86 backend ignores
# the flag; it does not: the conv-weight kernel has 64 vfmadd with it, 64 vmulps + 64
# vaddps without.)
_LLC_FMA = ("--fp-contract=fast",)


@dataclass(frozen=True)
class Pipeline:
    """Flags for each lowering tool; see the module docstring."""

    name: str
    mlir_opt_flags: tuple[str, ...]
    llvm_opt_flags: tuple[str, ...]
    llc_flags: tuple[str, ...]
    doc: str
    # Name of the schedule-free pipeline to lower with when this one's tools fail (a
    # transform schedule that crashes or rejects mlir-opt on some module); None: no retry.
    fallback: str | None = None
    # Extra linker arguments the generated code needs (e.g. a threading runtime), resolved
    # when first linked: a pipeline whose runtime is not installed stays listed and fails
    # with a ToolchainError naming what to install only when used.
    link: Callable[[], tuple[str, ...]] | None = field(default=None, compare=False, repr=False)

    @property
    def uses_schedules(self) -> bool:
        return any(flag.startswith("--transform-") for flag in self.mlir_opt_flags)

    @property
    def link_flags(self) -> tuple[str, ...]:
        """Linker arguments for the runtime libraries this pipeline's code calls."""
        return () if self.link is None else self.link()


def _plain(machine: MachineParams) -> Pipeline:
    return Pipeline(
        name="plain",
        mlir_opt_flags=_TO_LLVM_DIALECT,
        llvm_opt_flags=(),
        llc_flags=(*_llvm_native(machine.cpu), *_LLC_HUGE_REGION),
        doc=(
            "Reference lowering: linalg to scalar loops, no loop transformations and no LLVM"
            " mid-level optimizer. Slow but simple; the baseline every other pipeline must"
            " match numerically."
        ),
    )


def _o3(machine: MachineParams) -> Pipeline:
    return Pipeline(
        name="o3",
        mlir_opt_flags=_TO_LLVM_DIALECT,
        llvm_opt_flags=_llvm_native(machine.cpu),
        llc_flags=(*_llvm_native(machine.cpu), *_LLC_HUGE_REGION),
        doc=(
            "The plain lowering followed by LLVM 'opt -O3' on the LLVM IR: LLVM vectorizes and"
            " unrolls the scalar loops (about 5x on convolutions) at the cost of a slower"
            " compile. Same MLIR, so numerics differ from plain only by floating-point"
            " reassociation LLVM may legally do (none without fast-math flags)."
        ),
    )


# The entry point (@__transform_main); the machine parameters (params.mlir, the rendering of
# machine.PARAMS; the pipelines preload the rendering of the machine compiled for instead,
# see schedule_files) and the shared steps (common.mlir) the other libraries include; one
# library per op kind, each exporting @apply_<kind> (see main.mlir). The compile cache keys
# on their contents (compile._cache_key), so editing one, or the parameters, rebuilds.
OPTIMIZING_SCHEDULE = SCHEDULES_DIR / "main.mlir"
SCHEDULE_LIBRARIES = (
    PARAMS_FILE,
    SCHEDULES_DIR / "common.mlir",
    *(
        SCHEDULES_DIR / f"{kind}.mlir"
        for kind in ("matmul", "batch_matmul", "conv-weight", "conv", "grouped-conv", "pool", "transpose", "threads")
    ),
)
SCHEDULE_FILES = (OPTIMIZING_SCHEDULE, *SCHEDULE_LIBRARIES)


def schedule_files(machine: MachineParams) -> tuple[Path, ...]:
    """:data:`SCHEDULE_FILES` with ``params.mlir`` rendered for ``machine``."""
    params = params_library(machine)
    return tuple(params if path == PARAMS_FILE else path for path in SCHEDULE_FILES)


def _optimizing_flags(machine: MachineParams, threads: bool) -> tuple[str, ...]:
    """mlir-opt flags: the transform schedule, then the plain lowering adapted to it.

    The schedule tiles, vectorizes and bufferizes (see its header); what it leaves as
    linalg on buffers becomes sequential loops here. The schedules' scf.forall loops become
    OpenMP loops with ``threads``, forking ``machine.threads`` threads (a library is built
    for one thread count, which the cache key holds through these flags), and sequential
    loops otherwise. Unscheduled ops stay sequential either way: as multi-dimensional
    scf.parallel, convert-scf-to-openmp collapses them into one loop that recovers every
    index with a division per element, which keeps LLVM from vectorizing them
    (measurements: docs/schedules-notes.md).
    """
    if threads:
        foralls = (
            "--scf-forall-to-parallel",
            f"--convert-scf-to-openmp=num-threads={machine.threads}",
        )
    else:
        foralls = ("--scf-forall-to-for",)
    loops = ("--convert-linalg-to-loops", *foralls)
    return (
        "--transform-preload-library=transform-library-paths="
        + ",".join(str(path) for path in schedule_files(machine)),
        "--transform-interpreter",
        "--canonicalize",
        "--cse",
        "--buffer-deallocation-pipeline",
        "--convert-bufferization-to-memref",
        # Vector transfers the schedule left at rank > 1 (accumulator loads/stores),
        # unrolled so no alloca lands in a loop.
        "--convert-vector-to-scf=full-unroll=true",
        *loops,
        # OpenMP regions need memrefs lowered before their bodies become CFGs.
        "--expand-strided-metadata",
        "--lower-affine",
        "--finalize-memref-to-llvm",
        "--convert-scf-to-cf",
        "--convert-vector-to-llvm",
        "--convert-math-to-llvm",
        "--convert-math-to-libm",
        "--convert-to-llvm",
        "--reconcile-unrealized-casts",
    )


OPENMP_WHEEL = "intel-openmp"


def openmp_library() -> Path | None:
    """``libiomp5.so`` of the ``intel-openmp`` wheel (LLVM/Intel ``__kmpc_*`` ABI), if installed.

    Found through the wheel's installed-files record (it installs into ``<prefix>/lib``,
    outside site-packages), so any environment layout works.
    """
    return _installed_openmp_library()


@functools.cache
def _installed_openmp_library() -> Path | None:
    try:
        files = metadata.distribution(OPENMP_WHEEL).files or ()
    except metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.name == "libiomp5.so":
            path = Path(entry.locate()).resolve()
            if path.is_file():
                return path
    return None


def _openmp_link_flags() -> tuple[str, ...]:
    library = openmp_library()
    if library is None:
        raise ToolchainError(
            "the 'optimizing-omp' pipeline links the OpenMP runtime libiomp5.so, which was"
            f" not found: install the '{OPENMP_WHEEL}' wheel (pip install {OPENMP_WHEEL})"
            " or use the single-threaded 'optimizing' pipeline"
        )
    # The rpath lets the library load in any process, without LD_LIBRARY_PATH.
    return (f"-L{library.parent}", "-liomp5", f"-Wl,-rpath,{library.parent}")


def _optimizing(machine: MachineParams) -> Pipeline:
    return Pipeline(
        name="optimizing",
        mlir_opt_flags=_optimizing_flags(machine, threads=False),
        llvm_opt_flags=_llvm_native(machine.cpu),
        llc_flags=(*_llvm_native(machine.cpu), *_LLC_HUGE_REGION, *_LLC_FMA),
        doc=(
            "Transform-dialect schedules per op kind (schedules/: matmul, conv weight and"
            " input gradients, grouped/depthwise gradients, pool gradients, transposes):"
            " cache and register tiling, vectorization, hoisted accumulators, outer-product"
            " FMAs; every other op as in 'o3'. One thread. Sums are reassociated (vector"
            " lanes) and a multiply feeding an add may be fused into an FMA, within the float"
            " tolerances. Falls back to 'o3' for a module the schedule makes mlir-opt fail on."
        ),
        fallback="o3",
    )


def _optimizing_omp(machine: MachineParams) -> Pipeline:
    return Pipeline(
        name="optimizing-omp",
        mlir_opt_flags=_optimizing_flags(machine, threads=True),
        llvm_opt_flags=_llvm_native(machine.cpu),
        llc_flags=(*_llvm_native(machine.cpu), *_LLC_HUGE_REGION, *_LLC_FMA),
        doc=(
            "'optimizing' on all cores: the schedules' scf.forall loops run as OpenMP"
            " work-sharing loops on libiomp5 (PyPI intel-openmp), linked into the library;"
            " unscheduled ops stay sequential loops. The thread count is the machine's"
            " (OMP_NUM_THREADS, else the process's CPU affinity), fixed when compiled."
            " Needs the intel-openmp wheel. Falls back to 'o3' (one thread) for a module"
            " the schedule makes mlir-opt fail on."
        ),
        fallback="o3",
        link=_openmp_link_flags,
    )


# Each pipeline as a function of the machine compiled for: the thread count and vector
# width reach the schedules (params.mlir) and mlir-opt's OpenMP lowering, the CPU opt and
# llc.
_BUILDERS: dict[str, Callable[[MachineParams], Pipeline]] = {
    "plain": _plain,
    "o3": _o3,
    "optimizing": _optimizing,
    "optimizing-omp": _optimizing_omp,
}


@functools.cache
def pipeline_for(name: str, machine: MachineParams) -> Pipeline:
    """Pipeline ``name`` (one of the built-in ones) for ``machine``."""
    return _BUILDERS[name](machine)


# The pipelines for the machine the schedules were tuned on (machine.PARAMS): their
# names, docs and flag layout. Compiles use get_pipeline, which builds them for this
# machine.
PLAIN, O3, OPTIMIZING, OPTIMIZING_OMP = (pipeline_for(n, PARAMS) for n in _BUILDERS)
PIPELINES: dict[str, Pipeline] = {p.name: p for p in (PLAIN, O3, OPTIMIZING, OPTIMIZING_OMP)}
_SCHEDULED = frozenset(p.name for p in PIPELINES.values() if p.uses_schedules)


def get_pipeline(name: str, machine: MachineParams | None = None) -> Pipeline:
    """The pipeline called ``name`` for ``machine`` (default:
    :func:`machine.machine_params`, this process's threads and CPU); ValueError listing
    the known ones otherwise. A pipeline registered in :data:`PIPELINES` under a new name,
    or replacing a built-in one, is returned as registered."""
    try:
        registered = PIPELINES[name]
    except KeyError:
        unscheduled = ", ".join(sorted(p for p in PIPELINES if p not in _SCHEDULED))
        scheduled = ", ".join(sorted(p for p in PIPELINES if p in _SCHEDULED))
        raise ValueError(
            f"unknown pipeline {name!r}; known pipelines: {unscheduled};"
            f" with transform schedules: {scheduled}"
        ) from None
    if name not in _BUILDERS or registered is not pipeline_for(name, PARAMS):
        return registered
    machine = machine_params() if machine is None else machine
    pipeline = pipeline_for(name, machine)
    if pipeline.uses_schedules:
        # Rewrites the rendered params file should a temp cleaner have removed it since.
        params_library(machine)
    return pipeline


def default_pipeline() -> str:
    """The pipeline used when none is named: 'optimizing-omp' where the intel-openmp
    wheel is installed, else single-threaded 'optimizing'. Both fall back to 'o3' per
    module when their schedules fail."""
    return OPTIMIZING_OMP.name if openmp_library() is not None else OPTIMIZING.name
