"""`torch.compile(model, backend="rlx")`: PyTorch's own front door to our compiler.

    model = torch.compile(model, backend="rlx")      # registered by the package's entry point
    loss = loss_fn(model(x), target); loss.backward(); optimizer.step()

Dynamo captures the user's Python as FX graphs; AOTAutograd (`aot_autograd`) traces each
one's forward and backward into two ATen graphs, with the importer's decomposition table
(`graph.decomposition_table`), so backward ops such as `convolution_backward` stay whole
for our own decompositions. Each graph is imported by the importer's `Emitter` and its
converter table, as a training step is, compiled to native code (`rlx_mlir.compile`,
cached), and run on the tensors AOTAutograd hands it. Gradients then reach `.grad`
through autograd, and optimizers, schedulers, hooks and `no_grad` evaluation work as with
any backend.

What crosses from the forward graph to the backward graph is AOTAutograd's choice (its
saved tensors), so two of the importer's conventions meet it here:
- A dropout mask is a float argument that the graph draws (`RandomMask`), where PyTorch
  saves a bool tensor. The forward returns it as bool; the backward takes it back as 0/1
  floats, which is all `native_dropout_backward` reads. Masks are drawn from a NumPy
  generator seeded by PyTorch's, so `torch.manual_seed` makes our masks reproducible.
- A max-pool's indices are never materialized (the pool's backward recomputes its argmax,
  see `aten/pool.py`), so the forward hands AOTAutograd a zero-stride stand-in of their
  shape and the backward never reads it.

A dynamic batch (`torch.compile(..., dynamic=True)`, `torch._dynamo.mark_dynamic(x, 0)`, or
Dynamo's automatic dynamic shapes after a second batch size) is compiled once, as `?`:
every later batch, an epoch's last partial one included, reuses it (`SizeBindings`).

A graph we cannot import (an ATen op, a dtype, a dynamic size) runs in PyTorch eager,
with one warning per problem naming the op and where it is; `options={"strict": True}`
raises the importer's `UnsupportedGraph` instead. Our own failures are never hidden that
way: an internal error propagates.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Region

from rlx_mlir import compile as compile_rlx
from rlx_mlir.errors import UserValueError
from rlx_mlir.torch.aten import CONVERTERS, SUPPORTED
from rlx_mlir.torch.batch import is_symbolic_scalar
from rlx_mlir.torch.emitter import Emitter, OnlyFor, RandomMask
from rlx_mlir.torch.errors import UnsupportedGraph
from rlx_mlir.torch.graph import JointGraph, decomposition_table, forward_provenance

aten = torch.ops.aten
FUNCTION_NAME = "graph"

_MASK_CONSUMERS = (aten.native_dropout_backward.default,)
"""Ops that read a saved bool mask, and read it only as 0/1 factors."""
_INDEX_CONSUMERS = (
    aten.max_pool2d_with_indices_backward.default,
    aten.max_pool3d_with_indices_backward.default,
)
"""Ops that take a max-pool's indices and ignore them (they recompute the argmax)."""


@dataclass(frozen=True)
class BackendOptions:
    """`torch.compile(..., options={...})`."""

    strict: bool = False
    """Raise `UnsupportedGraph` instead of running a graph we cannot import in eager."""

    @classmethod
    def parse(cls, options: Mapping | None) -> BackendOptions:
        options = dict(options or {})
        unknown = sorted(set(options) - {"strict"})
        if unknown:
            raise UserValueError(f"unknown option(s) {unknown} of the rlx backend (it takes: 'strict')")
        return cls(strict=bool(options.get("strict", False)))


def rlx_backend(gm: torch.fx.GraphModule, example_inputs: Sequence, options: Mapping | None = None):
    """The Dynamo backend: AOTAutograd's forward/backward split, each graph compiled by us."""
    compiler = functools.partial(compile_graph, options=BackendOptions.parse(options))
    split = aot_autograd(fw_compiler=compiler, bw_compiler=compiler, decompositions=decomposition_table(SUPPORTED))
    return split(gm, example_inputs)


class Statistics:
    """What the backend did in this process: `native_compiles` counts the graphs it compiled
    to native code, one per AOTAutograd graph and one per other value of a non-batch
    symbolic size (`SizeBindings`); a batch of another size compiles nothing."""

    native_compiles = 0


def compile_graph(gm: torch.fx.GraphModule, example_inputs: Sequence, options: BackendOptions = BackendOptions()):
    """One ATen graph of AOTAutograd as native code, or `gm` itself (eager) when we cannot import it."""
    bindings = SizeBindings.of(gm.graph)
    try:
        imported = ImportedGraph.of(gm, bindings.hints())
    except UnsupportedGraph as problem:
        if options.strict:
            raise
        _warn_once(problem.problem, str(problem))
        return make_boxed_func(gm)
    return CompiledGraph(gm, bindings, imported)


_WARNED: set[str] = set()


def _warn_once(problem: str, message: str) -> None:
    """One warning per problem (an unsupported op names its op in it), with the place of the
    first graph that had it: AOTAutograd's backward graph of the same op names no source
    line, and another message made it another warning."""
    if problem in _WARNED:
        return
    _WARNED.add(problem)
    warnings.warn(f"rlx backend: running a graph in PyTorch eager: {message}", stacklevel=3)


@dataclass
class ImportedGraph:
    """An AOTAutograd graph as `@graph(inputs..., masks..., constants...) -> outputs` in RLX.

    `inputs` says, per placeholder, how its tensor is passed: "tensor", "mask" (a bool
    tensor passed as 0/1 floats of `mask_dtypes[i]`), "size" (a symbolic size, not passed:
    the types carry the batch as `?`) or None (not passed: max-pool indices). `outputs`
    says, per graph output: an index into the function's results, "indices" (a stand-in of
    `output_values[i]`'s shape), "size" (the value of the symbolic size `output_values[i]`)
    or None (AOTAutograd's None). `sizes` are the values the graph's non-batch sizes were
    given (`SizeBindings`).
    """

    module: ModuleOp
    inputs: list[str | None]
    mask_dtypes: dict[int, torch.dtype]
    masks: list[RandomMask]
    constants: list[torch.Tensor]
    outputs: list[int | str | None]
    output_values: list[object]
    mask_batches: list[object]
    sizes: dict

    @classmethod
    def of(cls, gm: torch.fx.GraphModule, sizes: Mapping | None = None) -> ImportedGraph:
        graph = gm.graph
        placeholders = [node for node in graph.nodes if node.op == "placeholder"]
        inputs, mask_dtypes, passed = [], {}, []
        for position, node in enumerate(placeholders):
            kind = _input_kind(node)
            inputs.append(kind)
            if kind == "mask":
                dtype = _float_dtype_near(node)
                mask_dtypes[position] = dtype
                node.meta["val"] = torch.empty(node.meta["val"].shape, dtype=dtype, device="meta")
            if kind in ("tensor", "mask"):
                passed.append(node)
        constants = [(node, node.target, getattr(gm, node.target).detach().clone())
                     for node in graph.nodes if node.op == "get_attr"]
        joint = JointGraph(graph, [], [], passed, None, {}, {}, constants, forward_provenance(graph))
        emitter = Emitter(joint, sizes)
        for node, kind in zip(placeholders, inputs):
            if kind is None:
                emitter.values[node] = OnlyFor("a max-pool's indices", _INDEX_CONSUMERS)
            elif kind == "size":
                emitter.values[node] = node.meta["val"]
        emitter.walk(CONVERTERS)
        outputs, results, values = [], [], []
        for node in graph.output_node().args[0]:
            values.append(node.meta.get("val") if isinstance(node, torch.fx.Node) else node)
            if node is None:
                outputs.append(None)
                continue
            if not isinstance(node, torch.fx.Node):
                raise UnsupportedGraph(f"the graph returns {node!r}, not a tensor")
            value = emitter.values[node]
            if isinstance(value, OnlyFor) and set(value.consumers) & set(_INDEX_CONSUMERS):  # a max pool's indices
                outputs.append("indices")
                continue
            if is_symbolic_scalar(value):  # a size AOTAutograd saves for the backward
                outputs.append("size")
                continue
            emitter.node = node
            outputs.append(len(results))
            results.append(emitter.result(node))
        emitter.append(func.ReturnOp(*results))
        function_type = FunctionType.from_lists([arg.type for arg in emitter.block.args], [r.type for r in results])
        module = ModuleOp([func.FuncOp(FUNCTION_NAME, function_type, Region(emitter.block))])
        return cls(module, inputs, mask_dtypes, list(emitter.masks), [value for _, _, value in constants], outputs, values,
                   emitter.mask_batches, dict(sizes or {}))


def _input_kind(node: torch.fx.Node) -> str | None:
    value = node.meta.get("val")
    if is_symbolic_scalar(value):
        return "size"
    users = list(node.users)
    if isinstance(value, torch.Tensor) and value.dtype == torch.bool and users and all(
        user.target in _MASK_CONSUMERS for user in users
    ):
        return "mask"
    if isinstance(value, torch.Tensor) and value.dtype == torch.int64 and users and all(
        user.target in _INDEX_CONSUMERS for user in users
    ):
        return None
    return "tensor"


def _float_dtype_near(node: torch.fx.Node) -> torch.dtype:
    """The float type of the gradient a mask multiplies (its consumer's first operand)."""
    for user in node.users:
        grad = user.args[0]
        if isinstance(grad, torch.fx.Node) and grad.meta["val"].dtype.is_floating_point:
            return grad.meta["val"].dtype
    return torch.float32


@dataclass(frozen=True)
class SizeBindings:
    """Where a call's arguments hold the values of a graph's symbolic sizes.

    When Dynamo marks sizes dynamic (`dynamic=True`, `mark_dynamic`, or a second batch
    size), AOTAutograd's graphs carry symbols: `s0` for the batch, others for the sizes
    `dynamic=True` also frees (an image's height). RLX takes the batch as `?`; every other
    symbol is given its value, and the graph is compiled once per distinct set of those
    values (`CompiledGraph`): one compile serves every batch.
    """

    places: dict
    """symbol -> (placeholder position, dim), dim None for a size passed as an int."""
    hinted: dict
    """symbol -> the example's value, for the first compile."""
    batch: frozenset
    """The symbols that lead a tensor input and size nothing else."""

    @classmethod
    def of(cls, graph: torch.fx.Graph) -> SizeBindings:
        places, hinted, leading, inner = {}, {}, set(), set()
        for position, node in enumerate(node for node in graph.nodes if node.op == "placeholder"):
            value = node.meta.get("val")
            sizes = [(None, value)] if is_symbolic_scalar(value) else (
                list(enumerate(value.shape)) if isinstance(value, torch.Tensor) else [])
            for dim, size in sizes:
                if not isinstance(size, torch.SymInt) or not size.node.expr.is_Symbol:
                    continue
                symbol = size.node.expr
                places.setdefault(symbol, (position, dim))
                hinted.setdefault(symbol, size.node.hint)
                (leading if dim == 0 else inner if dim is not None else set()).add(symbol)
        return cls(places, hinted, frozenset(leading - inner))

    def hints(self) -> dict:
        return {symbol: value for symbol, value in self.hinted.items() if symbol not in self.batch}

    def values(self, args: Sequence) -> dict:
        """Every symbol's value in this call (the batch's too)."""
        return {symbol: int(args[position]) if dim is None else args[position].shape[dim]
                for symbol, (position, dim) in self.places.items()}


class CompiledGraph:
    """The native function of an `ImportedGraph`, called with and returning torch tensors.

    AOTAutograd's boxed convention: the arguments come as one list, which the call empties
    so that tensors only the graph needed are freed as soon as they are converted. The
    mark is an instance attribute because the backward reaches AOTAutograd through
    Dynamo's `disable` wrapper, whose `functools.wraps` copies the instance's `__dict__`
    and not its class's. Unboxed calls work too (graph inputs are tensors, never a list).

    A graph with symbolic sizes other than the batch holds one native function per set of
    their values (`SizeBindings`), compiled on the first call that needs it.
    """

    def __init__(self, gm: torch.fx.GraphModule, bindings: SizeBindings, imported: ImportedGraph) -> None:
        self.gm = gm
        self.bindings = bindings
        self.variants: dict[tuple, tuple[ImportedGraph, object]] = {}
        self._add(imported)
        self._boxed_call = True

    def _add(self, imported: ImportedGraph) -> tuple[ImportedGraph, object]:
        Statistics.native_compiles += 1
        variant = (imported, compile_rlx(imported.module, outline=True)[FUNCTION_NAME])
        self.variants[tuple(sorted(imported.sizes.items(), key=str))] = variant
        return variant

    def __call__(self, *given):
        args = given[0] if len(given) == 1 and isinstance(given[0], list) else list(given)
        sizes = self.bindings.values(args)
        fixed = {symbol: value for symbol, value in sizes.items() if symbol not in self.bindings.batch}
        variant = self.variants.get(tuple(sorted(fixed.items(), key=str)))
        graph, function = variant if variant is not None else self._add(ImportedGraph.of(self.gm, fixed))
        arrays = []
        for position, (kind, arg) in enumerate(zip(graph.inputs, args)):
            if kind not in ("tensor", "mask"):
                continue
            if kind == "mask":
                arg = arg.to(graph.mask_dtypes[position])
            arrays.append(_array(arg))
        args.clear()
        if graph.masks:
            rng = np.random.default_rng(int(torch.randint(0, 2**62, (1,)).item()))
            arrays += [mask.draw(rng, _value(batch, sizes)) for mask, batch in zip(graph.masks, graph.mask_batches)]
        arrays += [_array(value) for value in graph.constants]
        results = function(*arrays)
        results = results if isinstance(results, tuple) else (results,)
        outputs = []
        for plan, value in zip(graph.outputs, graph.output_values):
            if plan is None:
                outputs.append(None)
            elif plan == "indices":
                shape = [_value(size, sizes) for size in value.shape]
                outputs.append(torch.zeros((), dtype=value.dtype).expand(shape))
            elif plan == "size":
                outputs.append(_value(value, sizes))
            else:
                tensor = torch.from_numpy(np.asarray(results[plan]))
                outputs.append(tensor if tensor.dtype == value.dtype else tensor.to(value.dtype))
        return outputs


def _value(size, sizes: Mapping):
    """A size of the traced graph in this call: an int as it is, a SymInt evaluated."""
    return int(size.node.expr.subs(sizes)) if isinstance(size, torch.SymInt) else size


def _array(value: torch.Tensor) -> np.ndarray:
    """A C-contiguous view (or copy) of the tensor, 0-d kept 0-d (unlike np.ascontiguousarray)."""
    return value.detach().contiguous().numpy()


