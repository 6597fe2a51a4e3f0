"""Call compiled functions on NumPy arrays.

The exported entry points follow MLIR's C interface: ``_mlir_ciface_<name>(results*,
arg0*, arg1*, ...)`` where every argument is a pointer to a memref descriptor

    struct { T *allocated; T *aligned; int64_t offset; int64_t sizes[rank];
             int64_t strides[rank]; }   /* strides in elements */

and ``results`` points to one descriptor (one result) or a struct of descriptors (several).

Inputs are passed without copying when they are C-contiguous, aligned and of the exact
dtype; otherwise a contiguous copy is passed (functions are bufferized with the identity
layout, so the callee assumes contiguous buffers). Inputs are never written to (see
:mod:`rlx_mlir.backend.interface`).

Results are malloc'ed by the callee. They are handed to NumPy without copying and freed
with libc ``free`` when the last array viewing them is garbage collected. Two cases are
copied instead and never freed: a result aliasing an input buffer, and a result pointing
at a global constant (MLIR marks those with the allocated pointer ``0xdeadbeef``). The
deallocation pipeline makes both unreachable in practice; the checks keep a future
pipeline change from turning into a double free.

Each call builds its own descriptors, so one function may be called from several threads.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rlx_mlir.backend.interface import FunctionSignature, TensorSpec
from rlx_mlir.errors import UserTypeError, UserValueError

# MLIR's memref.get_global lowering stores this as the allocated pointer of constants.
_GLOBAL_MARKER = 0xDEADBEEF

_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None


@functools.cache
def descriptor_type(rank: int) -> type[ctypes.Structure]:
    """The ctypes struct of a ranked memref descriptor."""
    fields: list[tuple[str, Any]] = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
    ]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRefDescriptor{rank}D", (ctypes.Structure,), {"_fields_": fields})


class _Allocation:
    """A callee-allocated buffer; freed when the last array using it is collected."""

    def __init__(self, address: int) -> None:
        weakref.finalize(self, _free, address)


class _ArrayView:
    """Exposes memory to NumPy via ``__array_interface__`` and keeps its owner alive."""

    def __init__(
        self, owner: _Allocation | None, address: int, shape: tuple[int, ...],
        strides: tuple[int, ...], dtype: np.dtype,
    ) -> None:
        self.owner = owner
        self.__array_interface__ = {
            "version": 3,
            "data": (address, False),
            "shape": shape,
            "strides": strides,
            "typestr": dtype.str,
        }


class NativeFunction:
    """One compiled function; call it with NumPy arrays (or array-likes)."""

    def __init__(self, library: ctypes.CDLL, signature: FunctionSignature) -> None:
        self.signature = signature
        self._library = library  # keeps the code mapped as long as this object lives
        try:
            self._entry = getattr(library, signature.c_symbol)
        except AttributeError:
            raise ValueError(
                f"{signature.name}: symbol {signature.c_symbol} not found in {library._name}"
            ) from None
        self._entry.restype = None
        results = signature.results
        if len(results) == 1:
            self._result_type: type[ctypes.Structure] | None = descriptor_type(len(results[0].shape))
        elif results:
            self._result_type = type(
                "Results",
                (ctypes.Structure,),
                {"_fields_": [(f"r{i}", descriptor_type(len(r.shape))) for i, r in enumerate(results)]},
            )
        else:
            self._result_type = None
        n_pointers = len(signature.inputs) + (self._result_type is not None)
        self._entry.argtypes = [ctypes.c_void_p] * n_pointers

    @property
    def entry(self) -> ctypes._CFuncPtr:
        """The C-interface entry point, for native callers (`backend.graph_driver`)."""
        return self._entry

    def __repr__(self) -> str:
        ins = ", ".join(t.mlir_type for t in self.signature.inputs)
        outs = ", ".join(t.mlir_type for t in self.signature.results)
        return f"<NativeFunction {self.signature.name}({ins}) -> ({outs})>"

    def __call__(self, *args: Any) -> np.ndarray | tuple[np.ndarray, ...] | None:
        sig = self.signature
        if len(args) != len(sig.inputs):
            expected = ", ".join(t.mlir_type for t in sig.inputs)
            raise UserTypeError(
                f"{sig.name}() takes {len(sig.inputs)} argument(s) ({expected}),"
                f" got {len(args)}"
            )
        arrays = [self._check(i, a, spec) for i, (a, spec) in enumerate(zip(args, sig.inputs))]
        self._check_tied(arrays)
        descriptors = [input_descriptor(a) for a in arrays]
        pointers = [ctypes.addressof(d) for d in descriptors]
        if self._result_type is None:
            self._entry(*pointers)
            return None
        results = self._result_type()
        self._entry(ctypes.addressof(results), *pointers)
        if len(sig.results) == 1:
            out_descriptors = [results]
        else:
            out_descriptors = [getattr(results, f"r{i}") for i in range(len(sig.results))]
        outputs = take_results(out_descriptors, sig.results, {a.ctypes.data for a in arrays})
        return outputs[0] if len(outputs) == 1 else outputs

    def _check_tied(self, arrays: list[np.ndarray]) -> None:
        """Arguments tied by ``FunctionSignature.tied`` must agree in dimension 0.

        The compiled code assumes they do and would read out of bounds otherwise.
        """
        sig = self.signature
        for group in sig.tied:
            sizes = [arrays[i].shape[0] if arrays[i].ndim else None for i in group]
            if len(set(sizes)) > 1:
                indices = ", ".join(map(str, group))
                found = ", ".join(
                    f"argument {i} ({sig.inputs[i].mlir_type}) with {size}" for i, size in zip(group, sizes)
                )
                raise UserValueError(
                    f"{sig.name}(): arguments {indices} must have the same batch size (dimension 0);"
                    f" got {found}"
                )

    def _check(self, index: int, value: Any, spec: TensorSpec) -> np.ndarray:
        """``value`` as a C-contiguous aligned array matching ``spec``, or a clear error."""
        where = f"{self.signature.name}(): argument {index} ({spec.mlir_type})"
        if isinstance(value, np.ndarray):
            if value.dtype != spec.dtype:
                raise UserTypeError(f"{where} expects dtype {spec.dtype}, got {value.dtype}")
            array = value
        else:
            try:
                array = np.asarray(value, dtype=spec.dtype)
            except (ValueError, TypeError) as error:
                raise UserTypeError(f"{where} expects an array of {spec.dtype}: {error}") from None
        if array.ndim != len(spec.shape):
            raise UserValueError(
                f"{where} expects rank {len(spec.shape)}, got shape {array.shape}"
            )
        if any(want is not None and want != got for want, got in zip(spec.shape, array.shape)):
            expected = tuple("?" if d is None else d for d in spec.shape)
            raise UserValueError(f"{where} expects shape {expected}, got {array.shape}")
        return np.require(array, requirements=("C_CONTIGUOUS", "ALIGNED"))


def input_descriptor(array: np.ndarray) -> ctypes.Structure:
    """The descriptor of a C-contiguous aligned ``array`` (it must outlive the descriptor)."""
    descriptor = descriptor_type(array.ndim)()
    descriptor.allocated = descriptor.aligned = array.ctypes.data
    descriptor.offset = 0
    if array.ndim:
        descriptor.sizes[:] = array.shape
        # Identity-layout strides in elements (NumPy's strides are arbitrary on empty dims).
        descriptor.strides[:] = [math.prod(array.shape[k + 1:]) for k in range(array.ndim)]
    return descriptor


def take_results(
    descriptors: Sequence[ctypes.Structure], specs: Sequence[TensorSpec], inputs: set[int]
) -> tuple[np.ndarray, ...]:
    """Result descriptors as arrays, each buffer freed with its last array; a result
    whose buffer is one of ``inputs`` (the callee's input buffers) or a global is copied."""
    owners: dict[int, _Allocation] = {}
    return tuple(_take_result(d, spec, inputs, owners) for d, spec in zip(descriptors, specs))


def _take_result(
    descriptor: ctypes.Structure,
    spec: TensorSpec,
    inputs: set[int],
    owners: dict[int, _Allocation],
) -> np.ndarray:
    """Wrap one result descriptor as an array; see the module docstring for ownership."""
    rank = len(spec.shape)
    shape = tuple(descriptor.sizes[:rank]) if rank else ()
    strides = tuple(s * spec.dtype.itemsize for s in descriptor.strides[:rank]) if rank else ()
    allocated = descriptor.allocated or 0
    owned = allocated not in inputs and allocated != _GLOBAL_MARKER
    if math.prod(shape) == 0:
        if owned and allocated and allocated not in owners:
            owners[allocated] = _Allocation(allocated)
        return np.zeros(shape, spec.dtype)
    address = (descriptor.aligned or 0) + descriptor.offset * spec.dtype.itemsize
    if not owned:
        return np.array(_ArrayView(None, address, shape, strides, spec.dtype), copy=True)
    owner = owners.get(allocated)
    if owner is None:
        owner = owners[allocated] = _Allocation(allocated)
    return np.asarray(_ArrayView(owner, address, shape, strides, spec.dtype))


class NativeModule(Mapping[str, NativeFunction]):
    """A loaded library: ``module["f"](*arrays)``. Keeps the library loaded while alive."""

    def __init__(self, path: Path, signatures: Mapping[str, FunctionSignature], key: str | None = None) -> None:
        self.path = Path(path)
        self.signatures = dict(signatures)
        self.key = key
        """The compile cache's key for this library (None: loaded from elsewhere)."""
        self._library = ctypes.CDLL(str(self.path), mode=os.RTLD_LOCAL)
        self._functions = {
            name: NativeFunction(self._library, sig)
            for name, sig in self.signatures.items()
            if sig.unsupported is None
        }

    def __getitem__(self, name: str) -> NativeFunction:
        function = self._functions.get(name)
        if function is not None:
            return function
        signature = self.signatures.get(name)
        if signature is not None:
            raise UserTypeError(f"{name} cannot be called from NumPy: {signature.unsupported}")
        known = ", ".join(sorted(self._functions)) or "none"
        raise KeyError(f"no public function {name!r} in {self.path.name}; callable: {known}")

    def __contains__(self, name: object) -> bool:
        return name in self._functions

    def __iter__(self) -> Iterator[str]:
        return iter(self._functions)

    def __len__(self) -> int:
        return len(self._functions)

    def __repr__(self) -> str:
        return f"<NativeModule {self.path} functions={sorted(self._functions)}>"


def load(
    library_path: str | Path, signatures: Mapping[str, FunctionSignature], key: str | None = None
) -> NativeModule:
    """Load a library built by :mod:`rlx_mlir.backend.compile` with its signatures (and the
    cache key it was stored under, if it came from the cache)."""
    return NativeModule(Path(library_path), signatures, key)
