"""A graph of kernel calls run by one native call: a small generated C driver.

A small training step (a PINN's higher-order step) is hundreds of kernel calls of a few
microseconds each. Called one by one from Python, each call's argument checks, ctypes
descriptors and NumPy result wrapping cost more than the kernel. The driver makes the
calls natively instead: it takes the kernels' C-interface entry points as a table of
function pointers (so the kernels may live in any number of libraries, and the driver's
code does not depend on where they are loaded), passes memref descriptors from one kernel
to the next on its own stack, frees each intermediate buffer after its last use, and
writes the graph's results into descriptors that Python wraps as NumPy arrays.

Ownership. Every kernel result is a buffer the kernel malloc'ed, a view of one of its
arguments' buffers (same ``allocated`` pointer), or a global constant (``allocated`` is
MLIR's ``0xdeadbeef`` marker). The driver gives each value an owner: itself, the owner of
the argument or earlier sibling result it shares a buffer with, or none (a global, or a
graph input the caller owns), and counts the live values of each owner; an owner's buffer
is freed when its count reaches zero. A returned value is never released, so its buffer
passes to the caller. This is not MLIR's ownership-based deallocation: the kernels are
separate functions whose results are always fresh or views of their arguments, and the
driver compares pointers at run time in plain C, so no `memref<?xi1>` ownership
indicators are ever built (the assertion that keeps us from `func.call` in one library).

Batch checks. A kernel's arguments tied by a batch group must agree in dimension 0; the
driver compares them before each call and, on a mismatch, frees what it allocated and
returns the 1-based index of the call, so the caller can report it (the kernels assume
it and would read out of bounds).

The driver's C source depends only on the graph's structure and ranks: it is compiled
with the toolchain's C compiler, unoptimized (see `_build`), once, and kept in the
compile cache.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from pathlib import Path

from rlx_mlir.backend import cache, toolchain

ENTRY = "rlx_graph_run"

_PRELUDE = """\
#include <stdint.h>
#include <stdlib.h>

/* MLIR's `allocated` pointer of a global constant's descriptor. */
#define RLX_GLOBAL ((void *)0xdeadbeef)

/* Value v was just produced with buffer `allocated` by a call that read `reads` (its
   arguments, then its earlier results): it owns a fresh buffer, shares the owner of the
   value whose buffer it views, or has none (a global constant). */
static void rlx_produced(int32_t v, void *allocated, const int32_t *reads, int32_t n,
                         void **alloc, int32_t *owner, int32_t *refs, unsigned char *live) {
  int32_t o = v;
  if (allocated == RLX_GLOBAL) {
    o = -1;
  } else {
    for (int32_t i = 0; i < n; ++i) {
      if (alloc[reads[i]] == allocated) { o = owner[reads[i]]; break; }
    }
  }
  alloc[v] = allocated;
  owner[v] = o;
  live[v] = 1;
  if (o >= 0) ++refs[o];
}

/* Value v is dead: free its owner's buffer if no live value uses it and the graph owns it
   (values below `first` are the caller's inputs and constants). */
static void rlx_release(int32_t v, int32_t first, void **alloc, int32_t *owner, int32_t *refs,
                        unsigned char *live) {
  int32_t o = owner[v];
  live[v] = 0;
  if (o >= 0 && --refs[o] == 0 && o >= first) free(alloc[o]);
}
"""


@dataclass(frozen=True)
class DriverCall:
    """One kernel call: the value numbers it reads and produces, in the graph's numbering
    (inputs first, then constants, then results in call order)."""

    arguments: tuple[int, ...]
    results: tuple[int, ...]
    frees: tuple[int, ...]
    """Values whose last use this call is (results nobody reads included)."""
    tied: tuple[tuple[int, ...], ...] = ()
    """Groups of argument positions whose dimension 0 must agree."""


@dataclass(frozen=True)
class DriverGraph:
    """What the driver needs: the rank of every value, which values come from the caller
    (`inputs`: the graph's arguments then its constants), the calls, and the values it
    returns through descriptors (intermediates only: the caller returns its own arrays)."""

    ranks: tuple[int, ...]
    inputs: int
    calls: tuple[DriverCall, ...]
    outputs: tuple[int, ...]


def c_source(graph: DriverGraph) -> str:
    """``int32_t rlx_graph_run(void *const *kernels, void *const *inputs, void *const *outputs)``:
    0 on success, else the 1-based index of the call whose batch check failed."""
    n = len(graph.ranks)
    lines = [_PRELUDE]
    for rank in sorted(set(graph.ranks)):
        sizes = f" int64_t sizes[{rank}]; int64_t strides[{rank}];" if rank else ""
        lines.append(f"typedef struct {{ void *allocated; void *aligned; int64_t offset;{sizes} }} rlx_d{rank};")
    lines += [
        "",
        f"int32_t {ENTRY}(void *const *kernels, void *const *inputs, void *const *outputs) {{",
        f"  void *alloc[{n}]; int32_t owner[{n}]; int32_t refs[{n}]; unsigned char live[{n}];",
        "  int32_t status = 0;",
        f"  for (int32_t v = 0; v < {n}; ++v) {{ owner[v] = v; refs[v] = 0; live[v] = 0; alloc[v] = 0; }}",
    ]
    read = {v for call in graph.calls for v in call.arguments}
    for v in sorted(read & set(range(graph.inputs))):
        lines.append(f"  rlx_d{graph.ranks[v]} *p{v} = inputs[{v}]; alloc[{v}] = p{v}->allocated;")
    for i, call in enumerate(graph.calls):
        lines += _call_lines(graph, i, call)
    for k, v in enumerate(graph.outputs):
        lines.append(f"  *(rlx_d{graph.ranks[v]} *)outputs[{k}] = *p{v};")
    lines += [
        "  return 0;",
        "fail:",
        f"  for (int32_t v = {graph.inputs}; v < {n}; ++v)",
        f"    if (live[v]) rlx_release(v, {graph.inputs}, alloc, owner, refs, live);",
        "  return status;",
        "}",
        "",
    ]
    return "\n".join(lines)


def _call_lines(graph: DriverGraph, i: int, call: DriverCall) -> list[str]:
    lines = [f"  /* call {i} */"]
    for group in call.tied:
        first, *rest = (call.arguments[position] for position in group)
        for other in rest:
            lines.append(f"  if (p{first}->sizes[0] != p{other}->sizes[0]) {{ status = {i + 1}; goto fail; }}")
    types = [f"rlx_d{graph.ranks[v]} r{k};" for k, v in enumerate(call.results)]
    pointers = [f"p{v}" for v in call.arguments]
    if len(call.results) == 1:
        lines.append(f"  rlx_d{graph.ranks[call.results[0]]} c{i};")
        lines.append(f"  rlx_d{graph.ranks[call.results[0]]} *p{call.results[0]} = &c{i};")
        pointers.insert(0, f"&c{i}")
    elif call.results:
        lines.append(f"  struct {{ {' '.join(types)} }} c{i};")
        lines += [f"  rlx_d{graph.ranks[v]} *p{v} = &c{i}.r{k};" for k, v in enumerate(call.results)]
        pointers.insert(0, f"&c{i}")
    signature = ", ".join(["void *"] * len(pointers)) or "void"
    lines.append(f"  ((void (*)({signature}))kernels[{i}])({', '.join(pointers)});")
    for k, v in enumerate(call.results):
        reads = [*call.arguments, *call.results[:k]]
        table = f"(const int32_t[]){{{', '.join(map(str, reads))}}}" if reads else "0"
        lines.append(
            f"  rlx_produced({v}, p{v}->allocated, {table}, {len(reads)}, alloc, owner, refs, live);"
        )
    for v in call.frees:
        lines.append(f"  rlx_release({v}, {graph.inputs}, alloc, owner, refs, live);")
    return lines


class Driver:
    """The compiled driver of one graph: ``driver(kernels, inputs, outputs) -> status``,
    each argument a ctypes array of pointers."""

    def __init__(self, graph: DriverGraph):
        self.path = _build(c_source(graph))
        self._library = ctypes.CDLL(str(self.path), mode=os.RTLD_LOCAL)
        self._entry = getattr(self._library, ENTRY)
        self._entry.restype = ctypes.c_int32
        self._entry.argtypes = [ctypes.c_void_p] * 3

    def __call__(self, kernels, inputs, outputs) -> int:
        return self._entry(kernels, inputs, outputs)


def _build(source: str) -> Path:
    """The shared library of `source`, from the compile cache or built into it."""
    compiler = toolchain.c_compiler()
    key = cache.make_key("kernel-graph-driver", source, *compiler)
    directory = cache.cache_dir()
    found = cache.lookup(directory, key)
    if found is not None:
        return found[0]

    def build(workdir: Path) -> Path:
        (workdir / "driver.c").write_text(source)
        library = workdir / "driver.so"
        # -O0: the driver is one long straight-line function, and optimizing it is
        # superlinear (3000 calls: 452 s at -O1, 2.2 s at -O0, loaded machine); its own
        # work per call (a few loads and compares) is nothing beside a kernel's.
        toolchain.run(
            "compile kernel graph driver",
            [*compiler, "-O0", "-shared", "-fPIC", "-o", str(library), str(workdir / "driver.c")],
            size=len(source),
        )
        return library

    return cache.publish(directory, key, build, {"kind": "kernel graph driver"})
