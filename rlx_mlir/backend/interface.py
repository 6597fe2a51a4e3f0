"""The calling interface between a linalg-on-tensors module and NumPy.

:func:`prepare` turns the input (MLIR text or an xDSL module) into the exact text that is
lowered, plus one :class:`FunctionSignature` per public function.

Every public function ``f`` whose arguments and results are ranked tensors gets an entry
wrapper ``__rlx_entry_f`` that only calls ``f``. The wrapper carries what the native
calling convention needs, and the user's IR is left byte-for-byte untouched:

- ``llvm.emit_c_interface``, so the exported ``_mlir_ciface___rlx_entry_f`` takes memref
  descriptors by pointer and returns results through its first argument;
- ``bufferization.writable = false`` on every argument. One-shot bufferization otherwise
  assumes function arguments are writable and happily updates a caller's input array in
  place. Module bufferization analyses across the call, so it copies an argument in the
  wrapper exactly when ``f`` would write to it.

Why a wrapper instead of annotating ``f``: annotating means re-printing the module, and
re-printing through xDSL is lossy (xDSL 0.75 misreads hex float literals in dense
constants such as ``0xFF800000``, i.e. -inf, the usual max-pool init). Only function
headers are parsed here; bodies pass through as ``mlir-opt`` printed them.

Compiled code does not check that dynamic sizes agree: given two arguments whose leading
sizes the IR assumes equal, it reads out of bounds. An argument attribute states such a
tie: ``{rlx_mlir.batch_group = K : i64}`` on several arguments of one function says that
their dimension 0 is one size, and the runtime refuses a call where it is not.
``rlx_mlir.compile`` sets it on the arguments whose dynamic batch meets in an RLX op.
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
)
from xdsl.dialects.func import Func
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer

from rlx_mlir.backend import toolchain

ENTRY_PREFIX = "__rlx_entry_"
# Argument attribute: arguments of one function with the same value share their dimension 0.
BATCH_GROUP_ATTR = "rlx_mlir.batch_group"

# A top-level func.func in mlir-opt's generic output: two-space indent, header on one line.
_FUNC_LINE = re.compile(r'^  "func\.func"\(\) <\{')
# The line closing the top-level builtin.module region in generic output.
_MODULE_END = re.compile(r"^\}\)")


@dataclass(frozen=True)
class TensorSpec:
    """One ranked tensor argument or result: static dims are ints, dynamic dims None."""

    shape: tuple[int | None, ...]
    dtype: np.dtype
    mlir_type: str

    def to_json(self) -> dict[str, Any]:
        return {"shape": list(self.shape), "dtype": self.dtype.str, "mlir_type": self.mlir_type}

    @staticmethod
    def from_json(data: dict[str, Any]) -> TensorSpec:
        return TensorSpec(tuple(data["shape"]), np.dtype(data["dtype"]), data["mlir_type"])


@dataclass(frozen=True)
class FunctionSignature:
    """A public function as seen from NumPy.

    ``unsupported`` is None for callable functions, else the reason the function cannot
    be called through the NumPy runtime (it is still compiled, just not wrapped).
    ``tied`` lists groups of argument indices whose dimension 0 must agree (see
    ``BATCH_GROUP_ATTR``).
    """

    name: str
    inputs: tuple[TensorSpec, ...]
    results: tuple[TensorSpec, ...]
    unsupported: str | None = None
    tied: tuple[tuple[int, ...], ...] = ()

    @property
    def c_symbol(self) -> str:
        """The exported C-interface symbol of the entry wrapper."""
        return f"_mlir_ciface_{ENTRY_PREFIX}{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "inputs": [t.to_json() for t in self.inputs],
            "results": [t.to_json() for t in self.results],
            "unsupported": self.unsupported,
            "tied": [list(group) for group in self.tied],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> FunctionSignature:
        return FunctionSignature(
            data["name"],
            tuple(TensorSpec.from_json(t) for t in data["inputs"]),
            tuple(TensorSpec.from_json(t) for t in data["results"]),
            data["unsupported"],
            tuple(tuple(group) for group in data.get("tied", ())),
        )


@dataclass(frozen=True)
class PreparedModule:
    """The text to lower (generic form, entry wrappers appended) and its signatures."""

    text: str
    signatures: dict[str, FunctionSignature]


def module_text(module: str | Operation) -> str:
    """MLIR text of ``module``; xDSL modules are printed in generic form.

    Generic form because xDSL's custom syntax for some linalg ops is not what mlir-opt
    parses.
    """
    if isinstance(module, str):
        return module
    if isinstance(module, Operation):
        stream = io.StringIO()
        Printer(stream=stream, print_generic_format=True).print_op(module)
        return stream.getvalue()
    raise TypeError(
        f"expected MLIR text or an xDSL module, got {type(module).__name__}"
    )


def prepare(module: str | Operation) -> PreparedModule:
    """Verify ``module`` with mlir-opt, read its public signatures, append entry wrappers."""
    mlir_opt = toolchain.find_tool("mlir-opt")
    # Locations are kept so that errors in later stages point at lines of the input.
    generic = toolchain.run(
        "parse input",
        [str(mlir_opt.path), "--mlir-print-op-generic", "--mlir-print-debuginfo", "-"],
        input=module_text(module),
    )
    lines = generic.splitlines(keepends=True)
    signatures: dict[str, FunctionSignature] = {}
    symbols: set[str] = set()
    for line in lines:
        if _FUNC_LINE.match(line):
            signature, symbol = _read_function(line)
            symbols.add(symbol)
            if signature is not None:
                signatures[signature.name] = signature

    wrappers = []
    for signature in signatures.values():
        if signature.unsupported is None:
            if ENTRY_PREFIX + signature.name in symbols:
                raise ValueError(
                    f"function name {ENTRY_PREFIX + signature.name!r} is reserved for the"
                    f" native entry point of {signature.name!r}"
                )
            wrappers.append(_entry_wrapper(signature))

    end = next(i for i in reversed(range(len(lines))) if _MODULE_END.match(lines[i]))
    text = "".join(lines[:end] + wrappers + lines[end:])
    return PreparedModule(text, signatures)


@functools.cache
def _header_context() -> Context:
    """Only builtin and func are needed to read function headers."""
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    return ctx


def _read_function(line: str) -> tuple[FunctionSignature | None, str]:
    """(signature if public else None, symbol name) of a generic func.func header line."""
    start = line.index("<{")
    props = Parser(_header_context(), line[start:]).parse_optional_properties_dict()
    name = _string(props["sym_name"])
    visibility = props.get("sym_visibility")
    if visibility is not None and _string(visibility) != "public":
        return None, name
    function_type = props["function_type"]
    assert isinstance(function_type, FunctionType)
    specs = {
        kind: [_tensor_spec(t) for t in types.data]
        for kind, types in (("argument", function_type.inputs), ("result", function_type.outputs))
    }
    problems = [
        f"{kind} {i}: {spec}"
        for kind, kind_specs in specs.items()
        for i, spec in enumerate(kind_specs)
        if isinstance(spec, str)
    ]
    if problems:
        return FunctionSignature(name, (), (), "; ".join(problems)), name
    inputs = tuple(s for s in specs["argument"] if isinstance(s, TensorSpec))
    results = tuple(s for s in specs["result"] if isinstance(s, TensorSpec))
    return FunctionSignature(name, inputs, results, None, _tied_arguments(props.get("arg_attrs"))), name


def _tied_arguments(arg_attrs: Attribute | None) -> tuple[tuple[int, ...], ...]:
    """Groups of argument indices that carry the same ``BATCH_GROUP_ATTR`` value."""
    groups: dict[int, list[int]] = {}
    for index, attrs in enumerate(arg_attrs.data if isinstance(arg_attrs, ArrayAttr) else ()):
        value = attrs.data.get(BATCH_GROUP_ATTR) if isinstance(attrs, DictionaryAttr) else None
        if isinstance(value, IntegerAttr):
            groups.setdefault(value.value.data, []).append(index)
    return tuple(tuple(group) for group in groups.values() if len(group) > 1)


def _string(attr: Attribute) -> str:
    assert isinstance(attr, StringAttr)
    return attr.data


def _print(attr: Attribute) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


def _tensor_spec(type_: Attribute) -> TensorSpec | str:
    """The spec of a ranked tensor type, or why the type cannot cross to NumPy."""
    text = _print(type_)
    if not isinstance(type_, TensorType):
        return f"{text} is not a ranked tensor"
    dtype = _numpy_dtype(type_.element_type)
    if dtype is None:
        return f"{text} has an element type with no NumPy equivalent"
    shape = tuple(None if d < 0 else d for d in type_.get_shape())
    return TensorSpec(shape, dtype, text)


def _numpy_dtype(element: Attribute) -> np.dtype | None:
    if isinstance(element, Float16Type):
        return np.dtype(np.float16)
    if isinstance(element, Float32Type):
        return np.dtype(np.float32)
    if isinstance(element, Float64Type):
        return np.dtype(np.float64)
    if isinstance(element, IndexType):
        return np.dtype(np.int64)
    if isinstance(element, IntegerType):
        # No i1: MLIR 22's memref-to-llvm asserts on stores to i1 memrefs, so boolean
        # tensors must be carried as i8 (NumPy bool arrays view as uint8 for free).
        width = element.width.data
        if width in (8, 16, 32, 64):
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return np.dtype(f"{'u' if unsigned else 'i'}{width // 8}")
    return None


def _entry_wrapper(signature: FunctionSignature) -> str:
    """Custom-syntax entry wrapper for ``signature`` (see the module docstring)."""
    args = ", ".join(f"%a{i}" for i in range(len(signature.inputs)))
    params = ", ".join(
        f"%a{i}: {t.mlir_type} {{bufferization.writable = false}}"
        for i, t in enumerate(signature.inputs)
    )
    in_types = ", ".join(t.mlir_type for t in signature.inputs)
    out_types = ", ".join(t.mlir_type for t in signature.results)
    n = len(signature.results)
    results = ", ".join(f"%r#{i}" for i in range(n))
    call = f"func.call {_symbol(signature.name)}({args}) : ({in_types}) -> ({out_types})"
    return (
        f"  func.func {_symbol(ENTRY_PREFIX + signature.name)}({params}) -> ({out_types})"
        " attributes {llvm.emit_c_interface} {\n"
        + (f"    %r:{n} = {call}\n" if n else f"    {call}\n")
        + (f"    func.return {results} : {out_types}\n" if n else "    func.return\n")
        + "  }\n"
    )


def _symbol(name: str) -> str:
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'@"{escaped}"'


def signatures_from_json(data: list[dict[str, Any]]) -> dict[str, FunctionSignature]:
    """Inverse of ``[s.to_json() for s in signatures.values()]``."""
    return {s.name: s for s in map(FunctionSignature.from_json, data)}

