"""Named lowering pipelines, as data: which flags each tool gets on the way to native code.

A pipeline says how linalg-on-tensors becomes LLVM IR (``mlir-opt`` flags), whether LLVM's
own optimizer runs on that IR (``opt`` flags; empty means skip ``opt``), and how machine
code is generated (``llc`` flags). Keeping this as data keeps the driver in
:mod:`rlx_mlir.backend.compile` ignorant of strategy, makes the flags part of the cache
key verbatim, and lets a new pipeline (transform schedules, OpenMP) be one more entry.
"""

from __future__ import annotations

from dataclasses import dataclass

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

PIPELINES: dict[str, Pipeline] = {p.name: p for p in (PLAIN, O3)}


def get_pipeline(name: str) -> Pipeline:
    """The pipeline called ``name``; ValueError listing the known ones otherwise."""
    try:
        return PIPELINES[name]
    except KeyError:
        known = ", ".join(sorted(PIPELINES))
        raise ValueError(f"unknown pipeline {name!r}; known pipelines: {known}") from None
