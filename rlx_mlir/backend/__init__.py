"""Native backend: linalg-on-tensors (upstream MLIR dialects only) to callable code.

Knows no RLX op. Takes MLIR text or an xDSL module, lowers it with the MLIR/LLVM 22 tools
(:mod:`.toolchain`) along a named pipeline (:mod:`.pipelines`), caches the shared library
(:mod:`.cache`, :mod:`.compile`) and calls it on NumPy arrays (:mod:`.runtime`).
"""

from rlx_mlir.backend.compile import (
    STAGES,
    Library,
    build_library,
    compile_module,
    compile_to_library,
    emit,
    environment_key,
    last_compile_was_cache_hit,
    load_cached,
)
from rlx_mlir.backend.interface import FunctionSignature, TensorSpec
from rlx_mlir.backend.pipelines import PIPELINES, Pipeline, get_pipeline
from rlx_mlir.backend.runtime import NativeFunction, NativeModule, load
from rlx_mlir.backend.toolchain import ToolchainError, describe

__all__ = [
    "PIPELINES",
    "STAGES",
    "FunctionSignature",
    "Library",
    "NativeFunction",
    "NativeModule",
    "Pipeline",
    "TensorSpec",
    "ToolchainError",
    "build_library",
    "compile_module",
    "compile_to_library",
    "describe",
    "emit",
    "environment_key",
    "get_pipeline",
    "last_compile_was_cache_hit",
    "load",
    "load_cached",
]
