"""Large RLX functions compiled as kernels and run as a graph of kernel calls.

A training step imported from PyTorch is one function of hundreds of RLX ops. Compiled
whole, it reaches LLVM as one huge function, and `opt -O3` spends superlinear time on it
(ResNet-18's step at batch 2, 64x64 ran past `opt`'s five-minute limit). So
`compile_as_kernels` outlines each distinct op into its own kernel
(`transforms.outline_kernels`: ResNet's repeated blocks share kernels), compiles the
kernels as the public functions of one library, each small, and runs the function's own
body, which is then only kernel calls and constants, as a graph: a generated C driver
(`backend.graph_driver`) makes every kernel call in one native call, memref descriptors
in between, each buffer freed after its last use. Called kernel by kernel from Python
instead, a small step (a PINN's, 300 calls of microseconds) spent most of its time in the
calls' argument checks, ctypes descriptors and NumPy wrapping; that path remains for
inputs the driver's one check refuses, so the diagnostics are the kernels' own.

Why not `func.call` inside one library: MLIR 22's ownership-based buffer deallocation
then checks at run time whether the step's many results alias the callees' buffers, and
lowers that check through `memref<?xi1>`, on which `memref-to-llvm` asserts.

The kernels are split into one library per CPU the process may use, balanced by size, and
the libraries are built concurrently (the tools are separate processes): ResNet-18's step
at batch 8, 224x224 has 76 kernels, which took 35 s as one library on this 2-core machine.
One library per kernel would cache finer but costs every kernel the tools' start-up (about
0.4 s for the smallest): 81 s of tool time in all, against 35 s.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, i1

from rlx_mlir.backend import NativeModule, compile_module
from rlx_mlir.backend.graph_driver import Driver, DriverCall, DriverGraph
from rlx_mlir.backend.interface import TensorSpec, _numpy_dtype
from rlx_mlir.backend.runtime import NativeFunction, descriptor_type, input_descriptor, take_results
from rlx_mlir.errors import InternalError


@dataclass(frozen=True)
class _Call:
    kernel: Callable[..., object]
    arguments: tuple[int, ...]
    results: tuple[int, ...]
    frees: tuple[int, ...]
    """Values whose last use this call is."""


class KernelGraphFunction:
    """A function whose body is kernel calls, tensor constants and a return.

    It runs as one native call (`backend.graph_driver`): the graph's inputs are checked
    once, in Python, against the specs of the kernels that read them; the values between
    kernels are proven by the IR and stay memref descriptors. An input the quick check
    does not accept (not an array of the exact dtype and shape) and a batch mismatch the
    driver reports take the call-by-call path, whose kernels raise today's diagnostics."""

    def __init__(self, function: func.FuncOp, kernels: "NativeModule | Libraries"):
        self.name = function.sym_name.data
        block = function.body.block
        self._arity = len(block.args)
        # Numbered as the driver wants: arguments, constants, then results in call order.
        constants = [op for op in block.ops if isinstance(op, arith.ConstantOp)]
        values = [*block.args, *(op.result for op in constants)]
        values += [r for op in block.ops if isinstance(op, func.CallOp) for r in op.results]
        index = {value: i for i, value in enumerate(values)}
        self._constants = {index[op.result]: _constant_array(op) for op in constants}
        calls: list[tuple[Callable, tuple[int, ...], tuple[int, ...]]] = []
        returned: tuple[int, ...] = ()
        for op in block.ops:
            if isinstance(op, func.CallOp):
                arguments = tuple(index[v] for v in op.arguments)
                calls.append((kernels[op.callee.string_value()], arguments, tuple(index[r] for r in op.results)))
            elif isinstance(op, func.ReturnOp):
                returned = tuple(index[v] for v in op.arguments)
            elif not isinstance(op, arith.ConstantOp):
                raise InternalError(f"{self.name}: a kernel graph holds {op.name}, not only kernel calls")
        last_use: dict[int, int] = {}
        for step, (_, arguments, _) in enumerate(calls):
            for value in arguments:
                last_use[value] = step
        keep = set(returned) | set(self._constants)
        self._calls = [
            _Call(kernel, arguments, results,
                  tuple(v for v in set(arguments) if last_use[v] == step and v not in keep and v >= self._arity))
            for step, (kernel, arguments, results) in enumerate(calls)
        ]
        self._returned = returned
        self._native = _NativeGraph.of(self._calls, [_rank(v) for v in values], self._arity, self._constants, returned)

    def __call__(self, *arrays):
        if len(arrays) != self._arity:
            raise TypeError(f"{self.name} takes {self._arity} arguments, got {len(arrays)}")
        results = self.run_native(arrays)
        if results is None:
            results = self.run_in_python(arrays)
        return results[0] if len(results) == 1 else results

    def run_native(self, arrays: Sequence[object]) -> tuple | None:
        """The results by one native call; None when the inputs or a batch check need the
        kernel-by-kernel path (which raises the diagnostic)."""
        return self._native.run(arrays) if self._native is not None else None

    def run_in_python(self, arrays: Sequence[object]) -> tuple:
        """The graph called kernel by kernel, each checking its arguments, NumPy arrays in
        between: the reference the driver must match, and the path of diagnostics."""
        values: dict[int, object] = dict(enumerate(arrays))
        values.update(self._constants)
        for call in self._calls:
            out = call.kernel(*(values[v] for v in call.arguments))
            outs = out if isinstance(out, tuple) else (out,)
            values.update(zip(call.results, outs))
            for value in call.frees:
                del values[value]
        return tuple(values[v] for v in self._returned)


def _rank(value) -> int:
    return len(value.type.get_shape()) if isinstance(value.type, TensorType) else 0


class _NativeGraph:
    """The driver of one graph with what a call needs prebuilt: the kernels' entry points,
    the constants' descriptors, the inputs' specs and the results' specs."""

    def __init__(self, calls: Sequence[_Call], ranks: Sequence[int], arity: int,
                 constants: dict[int, np.ndarray], returned: tuple[int, ...]):
        self._arity = arity
        self._constants = constants
        self._returned = returned
        inputs = arity + len(constants)
        self._specs: list[list[TensorSpec]] = [[] for _ in range(arity)]
        produced: dict[int, TensorSpec] = {}
        last_use: dict[int, int] = {}
        for step, call in enumerate(calls):
            signature = call.kernel.signature
            for position, value in enumerate(call.arguments):
                last_use[value] = step
                if value < arity and signature.inputs[position] not in self._specs[value]:
                    self._specs[value].append(signature.inputs[position])
            for value, spec in zip(call.results, signature.results):
                produced[value] = spec
                last_use.setdefault(value, step)
        self._outputs = tuple(v for v in returned if v >= inputs)
        self._output_specs = [produced[v] for v in self._outputs]
        kept = set(returned)
        driver_calls = tuple(
            DriverCall(
                call.arguments, call.results,
                tuple(sorted(v for v in {*call.arguments, *call.results}
                             if v >= inputs and v not in kept and last_use[v] == step)),
                call.kernel.signature.tied,
            )
            for step, call in enumerate(calls)
        )
        self._driver = Driver(DriverGraph(tuple(ranks), inputs, driver_calls, self._outputs))
        entries = [ctypes.cast(call.kernel.entry, ctypes.c_void_p).value for call in calls]
        self._kernels = (ctypes.c_void_p * max(1, len(entries)))(*entries)
        self._constant_descriptors = [input_descriptor(constants[v]) for v in sorted(constants)]
        self._constant_buffers = {c.ctypes.data for c in constants.values()}

    @staticmethod
    def of(calls, ranks, arity, constants, returned) -> "_NativeGraph | None":
        """The native graph, or None if a kernel is not a native function (nothing to drive)."""
        if not all(isinstance(call.kernel, NativeFunction) for call in calls):
            return None
        return _NativeGraph(calls, ranks, arity, constants, returned)

    def run(self, arrays: Sequence[object]) -> tuple | None:
        """The results, or None if the inputs or a batch check need the checking path."""
        checked = []
        for value, specs in zip(arrays, self._specs):
            if not specs:
                checked.append(None)
                continue
            if not isinstance(value, np.ndarray) or not all(_fits(value, spec) for spec in specs):
                return None
            checked.append(np.require(value, requirements=("C_CONTIGUOUS", "ALIGNED")))
        descriptors = [None if a is None else input_descriptor(a) for a in checked]
        pointers = [None if d is None else ctypes.addressof(d) for d in descriptors]
        pointers += [ctypes.addressof(d) for d in self._constant_descriptors]
        outputs = [descriptor_type(len(spec.shape))() for spec in self._output_specs]
        status = self._driver(
            self._kernels,
            (ctypes.c_void_p * max(1, len(pointers)))(*pointers),
            (ctypes.c_void_p * max(1, len(outputs)))(*(ctypes.addressof(d) for d in outputs)),
        )
        if status:
            return None
        owned = {a.ctypes.data for a in checked if a is not None} | self._constant_buffers
        taken = dict(zip(self._outputs, take_results(outputs, self._output_specs, owned)))
        return tuple(
            arrays[v] if v < self._arity else self._constants[v] if v in self._constants else taken[v]
            for v in self._returned
        )


def _fits(array: np.ndarray, spec: TensorSpec) -> bool:
    return (
        array.dtype == spec.dtype and array.ndim == len(spec.shape)
        and all(want is None or want == got for want, got in zip(spec.shape, array.shape))
    )


def _constant_array(op: arith.ConstantOp) -> np.ndarray:
    attr, type_ = op.value, op.result.type
    if not (isinstance(attr, DenseIntOrFPElementsAttr) and isinstance(type_, TensorType)):
        raise InternalError(f"a kernel graph constant must be a dense tensor, got {attr}")
    # A bool constant is a NumPy bool array: kernels take boolean tensors as bools
    # (`backend.boolean_storage`), which `_numpy_dtype` of i1 alone does not say.
    dtype = np.dtype(np.bool_) if type_.element_type == i1 else _numpy_dtype(type_.element_type)
    values = attr.get_values()
    shape = tuple(type_.get_shape())
    if len(values) == 1:
        return np.full(shape, values[0], dtype)
    return np.asarray(values, dtype).reshape(shape)


class KernelGraph:
    """`graph["f"](*arrays)`, like a `NativeModule`: the kernel graphs, and the library's
    other public functions as they are."""

    def __init__(self, functions: Sequence[func.FuncOp], kernels: "NativeModule | Libraries"):
        self.kernels = kernels
        self.graph_functions = list(functions)
        self._functions = {f.sym_name.data: KernelGraphFunction(f, kernels) for f in functions}

    def __getitem__(self, name: str):
        if name in self._functions:
            return self._functions[name]
        return self.kernels[name]

    def __contains__(self, name: object) -> bool:
        return name in self._functions or name in self.kernels


def _is_graph(function: func.FuncOp) -> bool:
    return function.sym_visibility is None and all(
        isinstance(op, (arith.ConstantOp, func.CallOp, func.ReturnOp)) for op in function.body.block.ops
    )


def compile_as_kernels(module: ModuleOp, pipeline: str | None = None, jobs: int | None = None) -> KernelGraph | NativeModule:
    """`module` (lowered with its RLX ops outlined into private kernels,
    `api.lower_to_linalg(..., outline=True)`) as libraries whose public functions are the
    kernels, and the functions that only call kernels run as graphs over them. A public
    function with other ops in its body is compiled as it is, beside the kernels.

    `jobs` libraries are built at once (default: the CPUs this process may use)."""
    graphs = [op for op in module.body.block.ops if isinstance(op, func.FuncOp) and _is_graph(op)]
    if not graphs:
        return compile_module(module, pipeline)
    library = module.clone()
    for op in list(library.body.block.ops):
        if isinstance(op, func.FuncOp):
            if _is_graph(op):
                op.detach()
                op.erase()
            elif op.sym_visibility is not None and op.sym_visibility.data == "private" and op.body.blocks:
                op.sym_visibility = None  # a kernel: called from Python
    parts = _partition(library, jobs or _usable_cpus())
    with ThreadPoolExecutor(len(parts)) as pool:
        built = list(pool.map(lambda part: compile_module(part, pipeline), parts))
    return KernelGraph(graphs, Libraries(built))


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _partition(library: ModuleOp, parts: int) -> list[ModuleOp]:
    """`library`'s functions in at most `parts` modules of about equal printed size (the
    tools' time grows with it), largest first into the smallest part. Deterministic, so an
    unchanged module maps to the same cached libraries. A module with anything but
    functions, or with calls between them, stays whole."""
    functions = list(library.body.block.ops)
    if parts <= 1 or len(functions) <= 1 or not all(
        isinstance(f, func.FuncOp) and not any(isinstance(op, func.CallOp) for op in f.walk()) for f in functions
    ):
        return [library]
    sized = sorted(((len(str(f)), f.sym_name.data, f) for f in functions), key=lambda t: (-t[0], t[1]))
    bins: list[tuple[int, list[func.FuncOp]]] = [(0, []) for _ in range(min(parts, len(functions)))]
    for size, _, function in sized:
        i = min(range(len(bins)), key=lambda b: bins[b][0])
        bins[i] = (bins[i][0] + size, [*bins[i][1], function])
    modules = []
    for _, members in bins:
        for function in members:
            function.detach()
        modules.append(ModuleOp(sorted(members, key=lambda f: f.sym_name.data)))
    return modules


class Libraries:
    """Several compiled libraries looked up as one, by function name."""

    def __init__(self, libraries: Sequence[NativeModule]):
        self.modules = list(libraries)
        self._by_name = {name: library for library in libraries for name in library}

    def __getitem__(self, name: str):
        return self._by_name[name][name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)
