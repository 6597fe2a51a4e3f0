"""The compile memo: which libraries (and kernel graph) a source compiled to, by its hash.

`rlx_mlir.compile` of an unchanged source finds every library in the backend's cache, but
it still lowered the source first, in Python, to learn the libraries' keys: for ResNet-18's
training step that is 1.2-1.4 s of the 1.4-2.7 s a cached compile took (the libraries load
in milliseconds). The memo keys a compile by what determines its result without lowering:

- the source's text (an xDSL module is printed in generic form);
- the options of the lowering (`outline`, the strided-conv form);
- the code that lowers it: a digest of this package's Python sources and xDSL's version;
- everything else a library depends on (`backend.environment_key`: the pipeline's flags
  and schedules, the tools, the host).

It records the cache keys of the libraries and, for a kernel graph, the text of its graph
functions (kernel calls and constants only, small). A record whose libraries are no longer
all in the cache is a miss, and the compile runs in full.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import xdsl
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from rlx_mlir.backend import NativeModule, cache, environment_key, get_pipeline, load_cached
from rlx_mlir.backend.interface import module_text
from rlx_mlir.ir import HexFloatParser, make_context
from rlx_mlir.kernel_graph import KernelGraph, Libraries
from rlx_mlir.backend.pipelines import default_pipeline

_FORMAT = "1"


@functools.cache
def _code_digest() -> str:
    """SHA-256 over this package's Python sources and xDSL's version: a change to any pass
    (or to xDSL) is a different lowering."""
    digest = hashlib.sha256(str(getattr(xdsl, "__version__", "")).encode())
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def memo_key(source: str | Operation, pipeline: str | None, outline: bool, strided_conv: str) -> str:
    """The memo's key for compiling ``source`` so (see the module docstring)."""
    lowering = get_pipeline(default_pipeline() if pipeline is None else pipeline)
    return cache.make_key(
        _FORMAT,
        module_text(source),
        f"outline={outline} strided_conv={strided_conv}",
        _code_digest(),
        environment_key(lowering),
    )


def recall(key: str):
    """The compile recorded under ``key``, loaded from the cache; None if there is none or
    any of its libraries is gone."""
    record = cache.load_record(cache.cache_dir(), key)
    if record is None or record.get("format") != _FORMAT:
        return None
    modules = [load_cached(library) for library in record["libraries"]]
    if not modules or any(module is None for module in modules):
        return None
    if record["graphs"] is None:
        return modules[0]
    graphs = HexFloatParser(make_context(), record["graphs"]).parse_module()
    functions = [op for op in graphs.body.block.ops if isinstance(op, func.FuncOp)]
    return KernelGraph(functions, Libraries(modules))


def remember(key: str, compiled) -> None:
    """Record ``compiled`` (a `NativeModule` or a `KernelGraph` over cached libraries)."""
    if isinstance(compiled, KernelGraph):
        kernels = compiled.kernels
        modules = kernels.modules if isinstance(kernels, Libraries) else [kernels]
        graphs = module_text(ModuleOp([f.clone() for f in compiled.graph_functions]))
    else:
        assert isinstance(compiled, NativeModule)
        modules, graphs = [compiled], None
    if any(module.key is None for module in modules):
        return
    record = {"format": _FORMAT, "libraries": [module.key for module in modules], "graphs": graphs}
    cache.store_record(cache.cache_dir(), key, record)
