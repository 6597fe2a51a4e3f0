"""Drive the external tools from linalg-on-tensors to a loadable shared library.

Stages, each one's output accepted by the next tool:

=============  =============================================  =========================
stage          produced by                                     consumed by
=============  =============================================  =========================
``linalg``     :func:`rlx_mlir.backend.interface.prepare`      ``mlir-opt``
``llvm-mlir``  ``mlir-opt`` with the pipeline's flags          ``mlir-translate``
``llvm-ir``    ``mlir-translate --mlir-to-llvmir`` [+ ``opt``] ``llc`` / ``opt``
``obj``        ``llc -filetype=obj --relocation-model=pic``    the linker
``shared``     ``cc -shared ... -lmlir_c_runner_utils``        ``dlopen``
=============  =============================================  =========================

A pipeline with transform schedules names a schedule-free ``fallback``: when its mlir-opt run
fails on a module (mlir-opt 22 asserts in some pattern sets, or a schedule is rejected), or
any of its tool stages runs past its time limit (:func:`rlx_mlir.backend.toolchain.stage_timeout`,
scaled to the module), that module is lowered with the fallback instead, with a
:class:`PipelineFallbackWarning` naming the failure and the op kinds of the module. The result is cached under the requested pipeline's key: the retry is a
deterministic function of the same IR and pipeline, so the key still names one library.

:func:`build_library` runs all stages behind the content-addressed cache of
:mod:`rlx_mlir.backend.cache`; :func:`emit` runs up to one stage without caching, for
inspection and for the command-line tools.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, Float16Type, Float32Type, Float64Type, IndexType, IntegerType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from rlx_mlir.backend import cache, toolchain
from rlx_mlir.backend.boolean_storage import has_boolean_tensors, store_booleans_as_bytes
from rlx_mlir.backend.interface import (
    FunctionSignature,
    module_text,
    prepare,
    signatures_from_json,
)
from rlx_mlir.backend.pipelines import Pipeline, default_pipeline, get_pipeline
from rlx_mlir.backend.runtime import NativeModule, load
from rlx_mlir.errors import LocatedUserError

STAGES = ("linalg", "llvm-mlir", "llvm-ir", "obj", "shared")

# Bump when the prepared text or the library layout changes, to invalidate old entries.
_FORMAT_VERSION = "2"

# Position-independent object code, as a shared library needs.
_LLC_OBJECT_FLAGS = ("-filetype=obj", "--relocation-model=pic")
# -Bsymbolic binds calls between the module's own functions inside the library: a
# function named like a libc symbol (@select, @exp) must not resolve to libc's.
_LINK_FLAGS = ("-shared", "-Wl,-Bsymbolic")
# memrefCopy (strided copies, e.g. from tensor.pad) lives in the MLIR C runner utils;
# math ops without an LLVM intrinsic become libm calls.
_LINK_LIBRARIES = ("-lmlir_c_runner_utils", "-lm")

_last = threading.local()

# Tool stage whose failure a pipeline's fallback absorbs: the schedules run in mlir-opt.
# A later tool failing would fail the fallback's run the same way (and a missing runtime
# library is a setup error to report, not to hide).
_RETRIED_STAGES = ("mlir-opt",)


class PipelineFallbackWarning(UserWarning):
    """A scheduled pipeline failed on a module, which was lowered with its fallback."""


@dataclass(frozen=True)
class Library:
    """A compiled shared library and what is needed to call into it."""

    path: Path
    signatures: dict[str, FunctionSignature]
    cache_hit: bool
    key: str
    """The cache key it is stored under (:func:`load_cached` loads it again by this key)."""


def build_library(module: str | Operation, pipeline: str | None = None) -> Library:
    """Compile ``module`` to a shared library, reusing a cached build when possible.

    ``pipeline`` names a lowering (:data:`rlx_mlir.backend.PIPELINES`); None means
    :func:`rlx_mlir.backend.pipelines.default_pipeline`.
    """
    lowering = get_pipeline(default_pipeline() if pipeline is None else pipeline)
    if isinstance(module, ModuleOp) and has_boolean_tensors(module):
        module = module.clone()
        store_booleans_as_bytes(module)
    check_callable_element_types(module)
    text = module_text(module)
    key = _cache_key(text, lowering)
    directory = cache.cache_dir()
    found = cache.lookup(directory, key)
    if found is not None:
        library, metadata = found
        result = Library(library, signatures_from_json(metadata["signatures"]), True, key)
    else:
        prepared = prepare(text)
        library = cache.publish(
            directory,
            key,
            lambda workdir: _lower(prepared.text, lowering, "shared", workdir),
            {
                "pipeline": lowering.name,
                "signatures": [s.to_json() for s in prepared.signatures.values()],
            },
        )
        result = Library(library, prepared.signatures, False, key)
    _last.cache_hit = result.cache_hit
    return result


def compile_to_library(module: str | Operation, pipeline: str | None = None) -> Path:
    """Path of the shared library for ``module`` (see :func:`build_library`)."""
    return build_library(module, pipeline).path


def compile_module(module: str | Operation, pipeline: str | None = None) -> NativeModule:
    """Compile ``module`` and load it: ``compile_module(m)["f"](*arrays)``."""
    library = build_library(module, pipeline)
    return load(library.path, library.signatures, library.key)


def load_cached(key: str) -> NativeModule | None:
    """The library stored under cache ``key`` (a :attr:`NativeModule.key`), loaded; None
    if the cache no longer holds it intact."""
    found = cache.lookup(cache.cache_dir(), key)
    if found is None:
        return None
    library, metadata = found
    _last.cache_hit = True
    return load(library, signatures_from_json(metadata["signatures"]), key)


def last_compile_was_cache_hit() -> bool | None:
    """Whether this thread's last :func:`build_library` was served from the cache."""
    return getattr(_last, "cache_hit", None)


def emit(module: str | Operation, stage: str, pipeline: str | None = None) -> str | bytes:
    """``module`` lowered up to ``stage``: text for the IR stages, bytes for obj/shared."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")
    lowering = get_pipeline(default_pipeline() if pipeline is None else pipeline)
    if stage == "shared":
        check_callable_element_types(module)
    prepared = prepare(module)
    with tempfile.TemporaryDirectory(prefix="rlx-mlir-emit-") as tmp:
        output = _lower(prepared.text, lowering, stage, Path(tmp))
        return output.read_bytes() if isinstance(output, Path) else output


# Float types NumPy has no dtype for. LLVM lowers their arithmetic to calls into
# compiler-rt (`__truncsfbf2`, ...), which the shared library does not link, so loading it
# fails; and no NumPy array could be passed in or out. f16, f32 and f64 work.
_UNCALLABLE_FLOAT = re.compile(r"\b(bf16|tf32|f(?:8|6|4)E\w+)\b")


class UnsupportedElementType(LocatedUserError):
    """A module that uses an element type compiled code cannot be called with."""


def check_callable_element_types(module: str | Operation) -> None:
    """Refuse, before any tool runs, a module whose code could not be loaded and called.

    The error names the function, the element type and the first op that uses it, at
    the op's location, or else at its function's (ops made by our patterns have none).
    Text input is located by the first use of the type.
    """
    if isinstance(module, str):
        match = _UNCALLABLE_FLOAT.search(module)
        if match is None:
            return
        before = module[: match.start()]
        line = before.count("\n") + 1
        column = match.start() - (before.rfind("\n") + 1) + 1
        functions = re.findall(r'func\.func\s+(?:private\s+)?@([\w$.]+)|sym_name\s*=\s*"([^"]+)"', before)
        function = next((a or b for a, b in reversed(functions)), None)
        raise UnsupportedElementType(_element_type_message(match.group(1), function, None), f"<input>:{line}:{column}")
    fine = (Float16Type, Float32Type, Float64Type, IndexType, IntegerType)
    for op in module.walk():
        types = [v.type for v in (*op.operands, *op.results)]
        if isinstance(op, FuncOp):
            types += [*op.function_type.inputs.data, *op.function_type.outputs.data]
        for type_ in types:
            element = getattr(type_, "element_type", type_)
            if isinstance(element, fine):  # the common case, without printing the type
                continue
            match = _UNCALLABLE_FLOAT.fullmatch(str(element))
            if match is None:
                continue
            function = op if isinstance(op, FuncOp) else _enclosing_function(op)
            located = next(
                (o for o in (op, function) if o is not None and isinstance(o.location, FileLineColLoc)), None
            )
            where = None
            if located is not None:
                loc = located.location
                where = f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
            name = function.sym_name.data if function is not None else None
            raise UnsupportedElementType(_element_type_message(match.group(1), name, op.name), where)


def _enclosing_function(op: Operation):
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _element_type_message(element: str, function: str | None, op: str | None) -> str:
    subject = f"function @{function}" if function else "the module"
    via = f" (in '{op}')" if op and op != "func.func" else ""
    return (
        f"{subject} uses the element type {element}{via}: the native backend compiles only f16, f32"
        f" and f64 floats into callable code (NumPy has no {element}, and its arithmetic needs"
        f" conversions the library does not link); --emit=linalg still gives IR for another"
        f" toolchain such as IREE"
    )


def _lower(text: str, pipeline: Pipeline, stage: str, workdir: Path) -> str | Path:
    """Run the tools on prepared ``text`` up to ``stage``; files are written to ``workdir``.

    A failing mlir-opt run of a pipeline with a ``fallback`` re-runs the lowering with the
    fallback pipeline's tool flags (the link keeps this pipeline's flags).
    """
    if stage == "linalg":
        return text
    if pipeline.fallback is None:
        return _lower_with(text, pipeline, pipeline, stage, workdir)
    try:
        return _lower_with(text, pipeline, pipeline, stage, workdir)
    except toolchain.ToolchainError as error:
        message = str(error)
        timed_out = isinstance(error, toolchain.ToolchainTimeout) and error.stage != "link"
        if not (timed_out or message.startswith(_RETRIED_STAGES)):
            raise
        fallback = get_pipeline(pipeline.fallback)
        first_line = message.splitlines()[0]
        detail = _failure_detail(message)
        warnings.warn(
            f"pipeline {pipeline.name!r}: {first_line}{detail}; lowered this module"
            f" ({op_kinds(text)}) with the {fallback.name!r} pipeline instead",
            PipelineFallbackWarning,
            stacklevel=4,
        )
        return _lower_with(text, fallback, pipeline, stage, workdir)


_OP_NAME = re.compile(r'^\s*(?:%[^=]*=\s*)?"([a-z_]+\.[\w.]+)"', re.M)
# The schedules match linalg's structured ops; these are plumbing inside or around them.
_PLUMBING = ("linalg.yield", "linalg.index", "linalg.fill")


def op_kinds(text: str) -> str:
    """The linalg op kinds in prepared (generic-form) ``text``: what the schedules met.

    For example ``linalg.conv_2d_nchw_fchw, linalg.generic x3``.
    """
    counts: dict[str, int] = {}
    for name in _OP_NAME.findall(text):
        if name.startswith("linalg.") and name not in _PLUMBING:
            counts[name] = counts.get(name, 0) + 1
    kinds = [name if n == 1 else f"{name} x{n}" for name, n in sorted(counts.items())]
    return ", ".join(kinds) or "no compute ops"


def _failure_detail(message: str) -> str:
    """The first assertion or error line of a tool's stderr, for the warning."""
    for line in message.splitlines():
        if "Assertion" in line or "error:" in line:
            return f" ({line.strip()[:300]})"
    return ""


def _lower_with(
    text: str, pipeline: Pipeline, linked: Pipeline, stage: str, workdir: Path
) -> str | Path:
    """:func:`_lower` with ``pipeline``'s tool flags and ``linked``'s link flags."""
    tool = toolchain.find_tool
    # Printing locations keeps mlir-translate's errors pointing at lines of the input.
    llvm_mlir = toolchain.run(
        f"mlir-opt ({pipeline.name} pipeline)",
        [str(tool("mlir-opt").path), *pipeline.mlir_opt_flags, "--mlir-print-debuginfo", "-"],
        input=text,
    )
    if stage == "llvm-mlir":
        return llvm_mlir
    llvm_ir = toolchain.run(
        "mlir-translate",
        [str(tool("mlir-translate").path), "--mlir-to-llvmir", "-"],
        input=llvm_mlir,
    )
    if pipeline.llvm_opt_flags:
        llvm_ir = toolchain.run(
            "opt",
            [str(tool("opt").path), *pipeline.llvm_opt_flags, "-S", "-"],
            input=llvm_ir,
        )
    if stage == "llvm-ir":
        return llvm_ir
    obj = workdir / "module.o"
    toolchain.run(
        "llc",
        [
            str(tool("llc").path),
            *pipeline.llc_flags,
            *_LLC_OBJECT_FLAGS,
            "-o",
            str(obj),
            "-",
        ],
        input=llvm_ir,
    )
    if stage == "obj":
        return obj
    shared = workdir / "module.so"
    lib_dir = toolchain.runtime_library_dir()
    toolchain.run(
        "link",
        size=len(text),
        argv=[
            *toolchain.c_compiler(),
            *_LINK_FLAGS,
            "-o",
            str(shared),
            str(obj),
            f"-L{lib_dir}",
            *_LINK_LIBRARIES,
            f"-Wl,-rpath,{lib_dir}",
            *linked.link_flags,
        ],
    )
    return shared


def _schedule_digests(pipeline: Pipeline) -> list[str]:
    prefix = "--transform-preload-library=transform-library-paths="
    paths = [
        path
        for flag in pipeline.mlir_opt_flags
        if flag.startswith(prefix)
        for path in flag[len(prefix):].split(",")
    ]
    return [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths if Path(p).is_file()]


def _fallback_flags(pipeline: Pipeline) -> list[object] | None:
    if pipeline.fallback is None:
        return None
    fallback = get_pipeline(pipeline.fallback)
    return [fallback.name, fallback.mlir_opt_flags, fallback.llvm_opt_flags, fallback.llc_flags]


def _cache_key(text: str, pipeline: Pipeline) -> str:
    """Hash of everything that determines the library built from ``text``."""
    return cache.make_key(_FORMAT_VERSION, text, environment_key(pipeline))


def environment_key(pipeline: Pipeline) -> str:
    """Hash of everything besides the input IR that determines a library: the pipeline's
    flags and schedules, the tools, the linker, the host."""
    tools = [toolchain.find_tool(n) for n in ("mlir-opt", "mlir-translate", "opt", "llc")]
    return cache.make_key(
        json.dumps(
            [
                pipeline.name,
                pipeline.mlir_opt_flags,
                pipeline.llvm_opt_flags,
                pipeline.llc_flags,
                _LLC_OBJECT_FLAGS,
                _LINK_FLAGS,
                _LINK_LIBRARIES,
                pipeline.link_flags,
                # The fallback's flags decide the library of a module the pipeline fails on.
                _fallback_flags(pipeline),
            ]
        ),
        json.dumps([str(t) for t in tools]),
        # The schedules' contents, not only their names (the flags): editing one rebuilds.
        json.dumps(_schedule_digests(pipeline)),
        " ".join(toolchain.c_compiler()),
        str(toolchain.runtime_library_dir()),
        cache.host_identity(),
    )
