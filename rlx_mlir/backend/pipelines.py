"""Named lowering pipelines, as data: which flags each tool gets on the way to native code.

A pipeline says how linalg-on-tensors becomes LLVM IR (``mlir-opt`` flags), whether LLVM's
own optimizer runs on that IR (``opt`` flags; empty means skip ``opt``), and how machine
code is generated (``llc`` flags). Keeping this as data keeps the driver in
:mod:`rlx_mlir.backend.compile` ignorant of strategy, makes the flags part of the cache
key verbatim, and lets a new pipeline (transform schedules, OpenMP) be one more entry.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

# Bufferize whole functions: tensors at function boundaries become memrefs with the
# identity layout, so the C interface takes plain contiguous buffers.
_BUFFERIZE = (
    "--one-shot-bufferize=bufferize-function-boundaries"
    " function-boundary-type-conversion=identity-layout-map"
)

# Correct lowering from linalg-on-tensors to the LLVM dialect (see
# shared/notes/mlir22-lowering.md for why each step is needed).
_TO_LLVM_DIALECT = (
    _BUFFERIZE,
    # Frees temporaries and makes every returned buffer owned by the caller (returned
    # arguments and constants are cloned), so the runtime may free every result.
    "--buffer-deallocation-pipeline",
    # Lowers the bufferization.clone ops the deallocation pipeline inserts; convert-to-llvm
    # does not.
    "--convert-bufferization-to-memref",
    "--convert-linalg-to-loops",
    "--convert-scf-to-cf",
    # tensor.pad leaves memref.subview and affine.apply behind; these remove them.
    "--expand-strided-metadata",
    "--lower-affine",
    # Math ops with an LLVM intrinsic (exp, tanh, log, ...) become intrinsics; the rest
    # (e.g. math.erf) become libm calls. convert-to-llvm alone leaves math.erf behind.
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-to-llvm",
    "--reconcile-unrealized-casts",
)

_LLC_NATIVE = ("-O3", "-mcpu=native")


@dataclass(frozen=True)
class Pipeline:
    """Flags for each lowering tool; see the module docstring."""

    name: str
    mlir_opt_flags: tuple[str, ...]
    llvm_opt_flags: tuple[str, ...]
    llc_flags: tuple[str, ...]
    doc: str
    # Extra linker arguments the generated code needs (e.g. a threading runtime).
    link_flags: tuple[str, ...] = ()


PLAIN = Pipeline(
    name="plain",
    mlir_opt_flags=_TO_LLVM_DIALECT,
    llvm_opt_flags=(),
    llc_flags=_LLC_NATIVE,
    doc=(
        "Reference lowering: linalg to scalar loops, no loop transformations and no LLVM"
        " mid-level optimizer. Slow but simple; the baseline every other pipeline must"
        " match numerically."
    ),
)

O3 = Pipeline(
    name="o3",
    mlir_opt_flags=_TO_LLVM_DIALECT,
    llvm_opt_flags=("-O3", "-mcpu=native"),
    llc_flags=_LLC_NATIVE,
    doc=(
        "The plain lowering followed by LLVM 'opt -O3' on the LLVM IR: LLVM vectorizes and"
        " unrolls the scalar loops (about 5x on convolutions) at the cost of a slower"
        " compile. Same MLIR, so numerics differ from plain only by floating-point"
        " reassociation LLVM may legally do (none without fast-math flags)."
    ),
)

SCHEDULES_DIR = Path(__file__).resolve().parent / "schedules"
# Versioned file name: the cache keys on flags, so an edited schedule needs a new name.
OPTIMIZING_SCHEDULE = SCHEDULES_DIR / "optimizing-v2.mlir"


def _optimizing_flags(threads: bool) -> tuple[str, ...]:
    """mlir-opt flags: the transform schedule, then the plain lowering adapted to it.

    The schedule tiles, vectorizes and bufferizes (see its header); what it leaves as
    linalg on buffers becomes loops here: parallel loops -> OpenMP with ``threads``,
    sequential loops otherwise (the schedule's scf.forall too).
    """
    if threads:
        loops = (
            "--convert-linalg-to-parallel-loops",
            "--scf-forall-to-parallel",
            "--convert-scf-to-openmp",
        )
    else:
        loops = ("--convert-linalg-to-loops", "--scf-forall-to-for")
    return (
        f"--transform-preload-library=transform-library-paths={OPTIMIZING_SCHEDULE}",
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


def openmp_library() -> Path | None:
    """``libiomp5.so`` of the ``intel-openmp`` wheel (LLVM/Intel ``__kmpc_*`` ABI), if installed."""
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        candidate = Path(prefix) / "lib" / "libiomp5.so"
        if candidate.is_file():
            return candidate
    return None


def _openmp_link_flags() -> tuple[str, ...]:
    library = openmp_library()
    if library is None:
        return ("-liomp5",)
    return (f"-L{library.parent}", "-liomp5", f"-Wl,-rpath,{library.parent}")


OPTIMIZING = Pipeline(
    name="optimizing",
    mlir_opt_flags=_optimizing_flags(threads=False),
    llvm_opt_flags=("-O3", "-mcpu=native"),
    llc_flags=_LLC_NATIVE,
    doc=(
        "Transform-dialect schedules per op kind (matmul; gather-form conv weight"
        " gradients): cache and register tiling, vectorization for the host's vector"
        " width, hoisted accumulators, outer-product FMAs; every other op as in 'o3'. One"
        " thread. Sums are reassociated (vector lanes), within the float tolerances."
    ),
)

OPTIMIZING_OMP = Pipeline(
    name="optimizing-omp",
    mlir_opt_flags=_optimizing_flags(threads=True),
    llvm_opt_flags=("-O3", "-mcpu=native"),
    llc_flags=_LLC_NATIVE,
    doc=(
        "'optimizing' on all cores: the schedules' scf.forall and every remaining linalg"
        " op's parallel loops run as OpenMP work-sharing loops on libiomp5 (PyPI"
        " intel-openmp), linked into the library. The thread count is OpenMP's"
        " (OMP_NUM_THREADS)."
    ),
    link_flags=_openmp_link_flags(),
)

# 'optimizing-omp' is not registered by default: the linker step does not yet pass
# Pipeline.link_flags, so its libraries load only in a process that already holds
# libiomp5 (see enable_openmp_pipeline).
PIPELINES: dict[str, Pipeline] = {p.name: p for p in (PLAIN, O3, OPTIMIZING)}
_SCHEDULED = frozenset({OPTIMIZING.name, OPTIMIZING_OMP.name})


def enable_openmp_pipeline() -> Pipeline:
    """Load libiomp5 into the process (global symbols) and register 'optimizing-omp'.

    Raises RuntimeError when the intel-openmp wheel is not installed.
    """
    import ctypes
    import os

    library = openmp_library()
    if library is None:
        raise RuntimeError("optimizing-omp needs libiomp5: pip install intel-openmp")
    ctypes.CDLL(str(library), mode=os.RTLD_GLOBAL)
    PIPELINES[OPTIMIZING_OMP.name] = OPTIMIZING_OMP
    return OPTIMIZING_OMP


def get_pipeline(name: str) -> Pipeline:
    """The pipeline called ``name``; ValueError listing the known ones otherwise."""
    try:
        return PIPELINES[name]
    except KeyError:
        unscheduled = ", ".join(sorted(p for p in PIPELINES if p not in _SCHEDULED))
        scheduled = ", ".join(sorted(p for p in PIPELINES if p in _SCHEDULED))
        raise ValueError(
            f"unknown pipeline {name!r}; known pipelines: {unscheduled};"
            f" with transform schedules: {scheduled}"
        ) from None
