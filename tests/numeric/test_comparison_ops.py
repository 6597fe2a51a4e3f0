"""The comparison family, lowered and run, against PyTorch's bool results.

Every result is i1. The functions are run by IREE (llvm-cpu), the portable path; the
native backend stores booleans as bytes (`rlx_mlir.backend.boolean_storage`, checked in
`tests/backend/test_boolean_storage.py` and by the native test below). Each test function widens its result to i8
with `arith.extui` (and narrows an i1 operand from i8 with `arith.trunci`) in a plain
`linalg.generic` around the one RLX op under test, the form any backend passes across a
function boundary. Every configuration is one function of one module per operand element
type (compiled once per session); its test id names the op, the shapes and the dtype. A
`?` batch runs with the traced size, 5 and 0 (an empty extent at run time).

Error bound: exact. A comparison or a logical op rounds nothing, so ours is PyTorch's bool
for every input, NaN, +-inf and -0.0 included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from iree_runtime import IreeModule, require_iree
from oracle import assert_exact
from rlx_mlir.api import lower_to_linalg

NUMPY = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32, "i1": np.bool_}
FLOATS = ("f32", "f64")

COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge}
LOGICAL = {"logical_and": torch.logical_and, "logical_or": torch.logical_or, "logical_xor": torch.logical_xor}
BINARY = {**COMPARE, **LOGICAL}
REDUCE = {"any": torch.any, "all": torch.all}


def _label(shape) -> str:
    return "x".join(map(str, shape)) or "0d"


def _type(shape, element: str, dynamic: bool = False) -> str:
    dims = ["?" if dynamic and i == 0 else str(d) for i, d in enumerate(shape)]
    return f"tensor<{''.join(d + 'x' for d in dims)}{element}>"


def _map_each(src: str, dst: str, shape, dynamic: bool, element_in: str, element_out: str, cast: str) -> str:
    """`%dst = cast(%src)` element by element: one all-parallel linalg.generic (test plumbing)."""
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    identity = f"affine_map<({dims}) -> ({dims})>"
    source, result = _type(shape, element_in, dynamic), _type(shape, element_out, dynamic)
    iterators = ", ".join(['"parallel"'] * rank)
    lines = ""
    if dynamic:
        lines += f"  %{dst}_zero = arith.constant 0 : index\n  %{dst}_n = tensor.dim %{src}, %{dst}_zero : {source}\n"
    lines += f"  %{dst}_e = tensor.empty({f'%{dst}_n' if dynamic else ''}) : {result}\n"
    return lines + (
        f"  %{dst} = linalg.generic {{indexing_maps = [{identity}, {identity}], "
        f"iterator_types = [{iterators}]}} "
        f"ins(%{src} : {source}) outs(%{dst}_e : {result}) {{\n"
        f"  ^bb0(%v: {element_in}, %o: {element_out}):\n"
        f"    %w = arith.{cast} %v : {element_in} to {element_out}\n"
        f"    linalg.yield %w : {element_out}\n"
        f"  }} -> {result}\n"
    )


@dataclass(frozen=True)
class Case:
    """One comparison-family op in a function, its operands' shapes and element type."""

    op: str
    shapes: tuple[tuple[int, ...], ...]
    element: str = "f32"
    dims: tuple[int, ...] | None = None
    """any/all only: the reduced dims (empty: every dim)."""
    keepdim: bool = False
    dynamic: tuple[bool, ...] = ()
    """Which operands have a `?` leading dim."""
    tag: str = ""

    def __str__(self) -> str:
        dims = "" if self.dims is None else "_dims" + ("_".join(map(str, self.dims)) or "_all")
        keep = "_keepdim" if self.keepdim else ""
        dyn = "_dyn" if any(self.dynamic) else ""
        tag = f"_{self.tag}" if self.tag else ""
        return f"{self.op}_{'_'.join(map(_label, self.shapes))}{dims}{keep}{tag}{dyn}_{self.element}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    def oracle(self, *tensors: torch.Tensor) -> torch.Tensor:
        if self.dims is None:
            return (BINARY.get(self.op) or torch.logical_not)(*tensors)
        (x,) = tensors
        # RLX's empty dims reduce every dim: ATen's dim=None (torch.any(x)), not its [] (below).
        dims = self.dims or tuple(range(x.dim()))
        return REDUCE[self.op](x, dim=dims, keepdim=self.keepdim) if dims else REDUCE[self.op](x)

    def result_shape(self) -> tuple[int, ...]:
        return tuple(self.oracle(*(torch.zeros(s, dtype=torch.bool) for s in self.shapes)).shape)

    def is_dynamic(self, index: int) -> bool:
        return bool(self.dynamic) and self.dynamic[index]

    def result_is_dynamic(self) -> bool:
        result = self.result_shape()
        if self.dims is not None:
            return any(self.dynamic) and bool(result) and 0 not in (self.dims or (0,))
        return any(self.is_dynamic(i) and len(s) == len(result) for i, s in enumerate(self.shapes))

    def function(self) -> str:
        """`@symbol(i8 or the element type ...) -> i8`: the op between the widenings."""
        boundary = "i8" if self.element == "i1" else self.element
        args, body, operands = [], "", []
        for i, shape in enumerate(self.shapes):
            args.append(f"%a{i}: {_type(shape, boundary, self.is_dynamic(i))}")
            if self.element == "i1":
                body += _map_each(f"a{i}", f"b{i}", shape, self.is_dynamic(i), "i8", "i1", "trunci")
                operands.append(f"%b{i}")
            else:
                operands.append(f"%a{i}")
        types = ", ".join(_type(s, self.element, self.is_dynamic(i)) for i, s in enumerate(self.shapes))
        result, dynamic = self.result_shape(), self.result_is_dynamic()
        props = "" if self.dims is None else f" dims [{', '.join(map(str, self.dims))}]" + (" keepdim true" if self.keepdim else "")
        body += f"  %y = rlx.{self.op} {', '.join(operands)}{props} : ({types}) -> {_type(result, 'i1', dynamic)}\n"
        body += _map_each("y", "z", result, dynamic, "i1", "i8", "extui")
        return (
            f"func.func @{self.symbol}({', '.join(args)}) -> {_type(result, 'i8', dynamic)} {{\n"
            f"{body}  return %z : {_type(result, 'i8', dynamic)}\n}}\n"
        )

    def batches(self) -> list[int | None]:
        return [None] if not any(self.dynamic) else [self.shapes[self.dynamic.index(True)][0], 5, 0]

    def input_shapes(self, batch: int | None) -> list[tuple[int, ...]]:
        return [(batch, *s[1:]) if batch is not None and self.is_dynamic(i) else s for i, s in enumerate(self.shapes)]

    def inputs(self, batch: int | None) -> list[np.ndarray]:
        rng = np.random.default_rng(0)
        dtype = NUMPY[self.element]
        if self.tag == "specials":  # every pair of the special values, lhs and rhs
            values = (FLOAT_SPECIALS if self.element in FLOATS else np.array(INT_SPECIALS[self.element])).astype(dtype)
            return list(np.array(np.meshgrid(values, values)).reshape(2, -1))[: len(self.shapes)]
        pool = FLOAT_POOL if self.element in FLOATS else np.arange(-3, 4) if self.element != "i1" else np.array([0, 1])
        return [rng.choice(pool, size=shape).astype(dtype) for shape in self.input_shapes(batch)]

    def check(self, module) -> None:
        for batch in self.batches():
            inputs = self.inputs(batch)
            boundary = [x.astype(np.int8) if self.element == "i1" else x for x in inputs]
            got = module[self.symbol](*boundary)
            want = self.oracle(*(torch.from_numpy(x) for x in inputs)).numpy().astype(np.int8)
            assert_exact(got, want, dtype=np.int8)


# NaN, +-inf, +-0 and finite values (ties included): every pair, in one [64] call.
FLOAT_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1.5])
INT_SPECIALS = {e: [np.iinfo(NUMPY[e]).min, np.iinfo(NUMPY[e]).max, -1, 0, 1, 2, -2, 0] for e in ("i64", "i32")}
# Random floats from a small pool, so that ties, zeros of both signs and NaNs are frequent.
FLOAT_POOL = np.array([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf, -np.inf])

BROADCASTS = [
    ((2, 3), (2, 3)),
    ((2, 3), ()),             # a Python scalar, as the importer passes it
    ((4, 1, 3), (2, 1)),      # both expand, rhs lacks the leading dim (rank-changing)
    ((1,), (2, 3)),           # a scalar-shaped [1]
]
DYNAMIC_BROADCASTS = [((3, 4), (1, 4), (True, False)), ((3, 2, 2), (3, 2, 2), (True, True))]

BINARY_CASES = [
    *(Case(op, shapes, "f32") for op in COMPARE for shapes in BROADCASTS),
    *(Case(op, shapes, "f32") for op in LOGICAL for shapes in BROADCASTS[2:]),
    *(Case(op, ((64,), (64,)), "f32", tag="specials") for op in BINARY),
    *(Case(op, ((64,), (64,)), "f64", tag="specials") for op in COMPARE),
    *(Case(op, ((4, 1, 3), (2, 1)), "f64") for op in ("ne", "lt")),
    *(Case(op, (a, b), "f32", dynamic=dyn) for a, b, dyn in DYNAMIC_BROADCASTS for op in (COMPARE if a == (3, 4) else ("eq", "ge"))),
    *(Case(op, BROADCASTS[2], "i64") for op in COMPARE),
    *(Case(op, BROADCASTS[1], "i64") for op in LOGICAL),
    *(Case(op, BROADCASTS[1], "i32") for op in COMPARE),
    *(Case(op, BROADCASTS[2], "i1") for op in BINARY),
    *(Case(op, ((64,), (64,)), "i64", tag="specials") for op in COMPARE),
    *(Case(op, ((64,), (64,)), "i32", tag="specials") for op in ("lt", "ge")),
    Case("logical_and", ((3, 4), (1, 4)), "i64", dynamic=(True, False)),
]
NOT_CASES = [
    *(Case("logical_not", ((64,),), element, tag="specials") for element in ("f32", "f64", "i64")),
    *(Case("logical_not", (shape,), element) for element in ("f32", "i32", "i1") for shape in [(2, 3), ()]),
    Case("logical_not", ((3, 5),), "f64", dynamic=(True,)),
]
REDUCE_CASES = [
    Case(op, (shape,), element, dims=dims, keepdim=keepdim, dynamic=(True,) if dynamic else ())
    for op in REDUCE
    for element in ("f32", "i1")
    for shape, dims, keepdim, dynamic in [
        ((4, 3), (1,), False, False),
        ((3, 4, 2), (0, 2), True, False),       # several dims, keepdim
        ((3, 4, 2), (), False, False),          # every dim, to 0-d
        ((3, 4, 2), (), True, False),           # every dim, to [1, 1, 1]
        ((4, 0, 3), (1,), False, False),        # an empty extent: any false, all true
        ((), (), False, False),                 # a 0-d input
    ]
] + [
    Case(op, ((5, 3),), element, dims=dims, keepdim=keepdim, dynamic=(True,))
    for op in REDUCE
    for element in ("f32", "i1")
    for dims, keepdim in [((1,), True), ((0,), False), ((0, 1), False)]   # batch 0 at run time: empty
] + [
    Case(op, (shape,), element, dims=dims)
    for op in REDUCE
    for element, shape, dims in [("f64", (3, 4, 2), (1, 2)), ("i64", (4, 3), (1,)), ("i64", (4, 0, 3), (1,))]
]
ALL_CASES = [*BINARY_CASES, *NOT_CASES, *REDUCE_CASES]


_MODULES: dict[str, IreeModule] = {}


def module_for(case: Case) -> IreeModule:
    """The cases of `case`'s element type, lowered by `lower_to_linalg` and compiled by IREE once."""
    require_iree()
    if case.element not in _MODULES:
        text = "".join(c.function() for c in ALL_CASES if c.element == case.element)
        _MODULES[case.element] = IreeModule.compile(lower_to_linalg(text))
    return _MODULES[case.element]


@pytest.mark.parametrize("case", BINARY_CASES, ids=str)
def test_comparison_and_logical_ops_match_pytorch(case):
    case.check(module_for(case))


@pytest.mark.parametrize("case", NOT_CASES, ids=str)
def test_logical_not_matches_pytorch(case):
    case.check(module_for(case))


@pytest.mark.parametrize("case", REDUCE_CASES, ids=str)
def test_any_all_match_pytorch(case):
    case.check(module_for(case))


def test_aten_reads_none_as_every_dim_and_an_empty_list_as_none():
    """Why `rlx.any`'s empty dims is ATen's dim=None: ATen 2.13's any.dims/all.dims reduce
    every dim for None, but NO dim for [] (an elementwise bool), which the importer
    therefore writes as `rlx.ne %x, 0` rather than as an empty dims."""
    x = torch.tensor([[True, False], [True, True]])
    assert torch.ops.aten.any.dims(x, None).item() is True
    assert torch.ops.aten.all.dims(x, None).item() is False
    assert torch.equal(torch.ops.aten.all.dims(x, []), x)


def test_native_backend_runs_a_comparison(compile_rlx):
    case = Case("lt", ((4,), (4,)))
    lhs, rhs = np.array([1, 2, 3, np.nan], np.float32), np.full(4, 2, np.float32)
    got = compile_rlx(case.function(), "plain")[case.symbol](lhs, rhs)
    assert_exact(got, torch.lt(torch.from_numpy(lhs), torch.from_numpy(rhs)).numpy().astype(np.int8), dtype=np.int8)
