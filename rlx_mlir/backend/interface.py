"""The calling interface between a linalg-on-tensors module and NumPy.

:func:`prepare` turns the input (MLIR text or an xDSL module) into the exact text that is
lowered, plus one :class:`FunctionSignature` per public function.

The C interface is upstream's: every public function ``f`` whose arguments and results are
ranked tensors gets the ``llvm.emit_c_interface`` attribute, and ``func-to-llvm`` then
exports ``_mlir_ciface_f``, which takes memref descriptors by pointer and returns results
through its first argument. The module-wide ``--llvm-request-c-wrappers`` pass is not used:
it also marks external declarations, whose calls it then redirects to an undefined
``_mlir_ciface_`` symbol.

What upstream lacks is added to the same function headers:

- ``bufferization.writable = false`` on every argument of ``f``. One-shot bufferization
  otherwise assumes function arguments are writable and updates a caller's input array in
  place; it has no option to treat arguments as read-only. With the attribute it copies an
  argument exactly when ``f`` writes to it.
- ``{rlx_mlir.batch_group = K : i64}`` argument attributes, read back into
  :attr:`FunctionSignature.tied`. Compiled code does not check that dynamic sizes agree:
  given two arguments whose leading sizes the IR assumes equal, it reads out of bounds.
  Arguments of one function with the same ``K`` share their dimension 0, and the runtime
  refuses a call where they do not. ``rlx_mlir.compile`` sets it on the arguments whose
  dynamic batch meets in an RLX op.
- A clear error for a function named ``_mlir_ciface_f`` next to ``f`` (upstream reports a
  symbol redefinition deep in the lowering).

Only the function headers are parsed (by xDSL's parser) and edited, see
:mod:`rlx_mlir.backend.headers`. Bodies reach mlir-opt
byte for byte as mlir-opt printed them: re-printing through xDSL is lossy (xDSL 0.75
misreads hex float literals in dense constants such as ``0xFF800000``, i.e. -inf, the usual
max-pool init).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    i1,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

from rlx_mlir.backend import headers, toolchain
from rlx_mlir.backend.boolean_storage import BOOLEAN_ATTR
from rlx_mlir.errors import UserValueError

# func-to-llvm's prefix for the C interface of a function marked with _EMIT_C_INTERFACE.
C_INTERFACE_PREFIX = "_mlir_ciface_"
_EMIT_C_INTERFACE = "llvm.emit_c_interface"
_WRITABLE = "bufferization.writable"
# Argument attribute: arguments of one function with the same value share their dimension 0.
BATCH_GROUP_ATTR = "rlx_mlir.batch_group"


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
        """The exported C-interface symbol (upstream's ``llvm.emit_c_interface`` wrapper)."""
        return C_INTERFACE_PREFIX + self.name

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
    """The text to lower (generic form, headers annotated) and its signatures."""

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
    """Verify ``module`` with mlir-opt, read its public signatures, annotate their headers."""
    mlir_opt = toolchain.find_tool("mlir-opt")
    # Locations are kept so that errors in later stages point at lines of the input. Local
    # scope prints attributes and types inline, so that a header is readable on its own.
    generic = toolchain.run(
        "parse input",
        [
            str(mlir_opt.path),
            "--mlir-print-op-generic",
            "--mlir-print-debuginfo",
            "--mlir-print-local-scope",
            "-",
        ],
        input=module_text(module),
    )
    functions = headers.read_functions(generic)
    symbols = {header.name for header in functions}
    signatures: dict[str, FunctionSignature] = {}
    edits: list[headers.Edit] = []
    for header in functions:
        signature = _read_function(header.properties)
        if signature is None:
            continue
        signatures[signature.name] = signature
        if signature.unsupported is None:
            if signature.c_symbol in symbols:
                raise UserValueError(
                    f"function name {signature.c_symbol!r} is reserved for the C interface"
                    f" of {signature.name!r}"
                )
            edits += _annotations(header)
    return PreparedModule(headers.apply(generic, edits), signatures)


def _annotations(header: headers.FunctionHeader) -> list[headers.Edit]:
    """The C interface and read-only arguments of a callable function (module docstring)."""
    function_type = header.properties["function_type"]
    assert isinstance(function_type, FunctionType)
    old = header.properties.get("arg_attrs")
    old_dicts = old.data if isinstance(old, ArrayAttr) else [None] * len(function_type.inputs)
    arg_attrs = ArrayAttr(
        [
            DictionaryAttr(
                {**(d.data if isinstance(d, DictionaryAttr) else {}), _WRITABLE: BoolAttr(False, i1)}
            )
            for d in old_dicts
        ]
    )
    edits = [header.set_property("arg_attrs", arg_attrs)] if arg_attrs.data else []
    c_interface = header.add_attribute(_EMIT_C_INTERFACE)
    return edits + ([c_interface] if c_interface is not None else [])


def _read_function(props: dict[str, Attribute]) -> FunctionSignature | None:
    """The signature of a func.func with properties ``props``; None if it is not public."""
    name = _string(props["sym_name"])
    visibility = props.get("sym_visibility")
    if visibility is not None and _string(visibility) != "public":
        return None
    function_type = props["function_type"]
    assert isinstance(function_type, FunctionType)
    specs = {
        kind: [_tensor_spec(t, boolean) for t, boolean in zip(types.data, _booleans(props.get(attrs), len(types.data)))]
        for kind, types, attrs in (("argument", function_type.inputs, "arg_attrs"),
                                   ("result", function_type.outputs, "res_attrs"))
    }
    problems = [
        f"{kind} {i}: {spec}"
        for kind, kind_specs in specs.items()
        for i, spec in enumerate(kind_specs)
        if isinstance(spec, str)
    ]
    if problems:
        return FunctionSignature(name, (), (), "; ".join(problems))
    inputs = tuple(s for s in specs["argument"] if isinstance(s, TensorSpec))
    results = tuple(s for s in specs["result"] if isinstance(s, TensorSpec))
    return FunctionSignature(name, inputs, results, None, _tied_arguments(props.get("arg_attrs")))


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


def _booleans(attrs: Attribute | None, count: int) -> list[bool]:
    """Which arguments (or results) are boolean tensors stored as bytes (`boolean_storage`)."""
    if not isinstance(attrs, ArrayAttr):
        return [False] * count
    return [isinstance(d, DictionaryAttr) and BOOLEAN_ATTR in d.data for d in attrs.data]


def _tensor_spec(type_: Attribute, boolean: bool = False) -> TensorSpec | str:
    """The spec of a ranked tensor type, or why the type cannot cross to NumPy. A boolean
    tensor stored as bytes crosses as a NumPy bool array (the same 0/1 bytes)."""
    text = headers.print_attribute(type_)
    if not isinstance(type_, TensorType):
        return f"{text} is not a ranked tensor"
    if boolean:
        return TensorSpec(tuple(None if d < 0 else d for d in type_.get_shape()), np.dtype(np.bool_),
                          text.replace("xi8>", "xi1>").replace("<i8>", "<i1>"))
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


def signatures_from_json(data: list[dict[str, Any]]) -> dict[str, FunctionSignature]:
    """Inverse of ``[s.to_json() for s in signatures.values()]``."""
    return {s.name: s for s in map(FunctionSignature.from_json, data)}

