"""Compile the blocked kernels: ``blocked-conv.mlir`` first, then an `optimizing` pipeline.

The blocked schedule runs as a pre-step of its own (mlir-opt with the library's entry
point ``@blocked_conv_main``) instead of being registered in ``main.mlir``: the layout is
an experiment, and the default pipelines must not change until it wins. What it leaves
(vector code inside scf.forall/scf.for, the packs lowered to pads and transposes) is then
compiled like any module by the named pipeline, whose libraries schedule the transposes
and the copies and bufferize.
"""

from __future__ import annotations

from rlx_mlir.backend import compile_module, toolchain
from rlx_mlir.backend.machine import MachineParams, machine_params
from rlx_mlir.backend.runtime import NativeModule
from rlx_mlir.backend.schedules import SCHEDULES_DIR, params_library

BLOCKED_CONV_SCHEDULE = SCHEDULES_DIR / "blocked-conv.mlir"
ENTRY_POINT = "blocked_conv_main"


def schedule_blocked(text: str, machine: MachineParams | None = None) -> str:
    """``text`` with its ``blocked_conv`` generics register-tiled and vectorized, its packs lowered."""
    machine = machine or machine_params()
    libraries = (params_library(machine), SCHEDULES_DIR / "common.mlir", BLOCKED_CONV_SCHEDULE)
    return toolchain.run(
        "mlir-opt (blocked-conv schedule)",
        [
            str(toolchain.find_tool("mlir-opt").path),
            "--transform-preload-library=transform-library-paths=" + ",".join(str(p) for p in libraries),
            f"--transform-interpreter=entry-point={ENTRY_POINT}",
            "--canonicalize",
            "--cse",
            "-",
        ],
        input=text,
    )


def compile_blocked(text: str, pipeline: str = "optimizing-omp") -> NativeModule:
    """Schedule ``text``'s blocked kernels, then compile and load it with ``pipeline``."""
    return compile_module(schedule_blocked(text), pipeline)
