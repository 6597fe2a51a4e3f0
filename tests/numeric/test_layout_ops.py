"""The layout ops, lowered by both passes and run natively, against PyTorch's ATen ops.

Layout ops only move data, so the bound is exact equality, bit for bit: every element of
our result is the element of PyTorch's at the same place, NaN payloads, infinities and the
sign of zero included (the float inputs carry NaN, +-inf and -0.0; the i64 inputs the
extremes of i64). The oracles are the ATen ops the importer maps to each RLX op
(`aten.view`, `aten.permute`, `aten.expand`, `aten.slice.Tensor`, `aten.slice_backward`,
`aten.cat`, `aten.split_with_sizes`), applied to the same inputs.

Every configuration is one function of ONE module per element type (f32, f64, i64),
compiled once per session; each test's id names the op, the shapes and the type. A
configuration with a dynamic leading dim (`?`) runs with sizes 0, 1 and 3 of it.
"""

from __future__ import annotations

import itertools
import re
import subprocess
from dataclasses import dataclass, replace

import numpy as np
import pytest
import torch

from oracle import assert_exact

DTYPES = {"f32": np.float32, "f64": np.float64, "i64": np.int64}
DYNAMIC = -1
"""A dynamic leading dim (`?`) in a configuration's shapes."""


def _type(shape, dtype: str) -> str:
    dims = ["?" if d == DYNAMIC else str(d) for d in shape]
    return f"tensor<{''.join(d + 'x' for d in dims)}{dtype}>"


def _label(shape) -> str:
    return "x".join("dyn" if d == DYNAMIC else str(d) for d in shape) or "0d"


def _concrete(shape, n: int) -> tuple[int, ...]:
    return tuple(n if d == DYNAMIC else d for d in shape)


@dataclass(frozen=True, kw_only=True)
class Case:
    """One configuration: an RLX op in a function, its inputs' shapes and its ATen oracle."""

    dtype: str = "f32"

    # -- what each op defines ----------------------------------------------------------
    def label(self) -> str: ...
    def input_shapes(self) -> list[tuple[int, ...]]: ...
    def result_shapes(self) -> list[tuple[int, ...]]: ...
    def op_text(self, args: list[str], types: list[str], results: list[str]) -> str: ...
    def oracle(self, *inputs: torch.Tensor, n: int) -> list[torch.Tensor]: ...

    # -- shared ------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{self.label()}_{self.dtype}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    def dynamic(self) -> bool:
        return any(DYNAMIC in shape for shape in (*self.input_shapes(), *self.result_shapes()))

    def function(self) -> str:
        types = [_type(s, self.dtype) for s in self.input_shapes()]
        results = [_type(s, self.dtype) for s in self.result_shapes()]
        args = [f"%a{i}" for i in range(len(types))]
        params = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
        names = [f"%r{i}" for i in range(len(results))]
        lhs = names[0] if len(names) == 1 else f"%r:{len(names)}"
        returned = [names[0]] if len(names) == 1 else [f"%r#{i}" for i in range(len(names))]
        return (
            f"func.func @{self.symbol}({params}) -> ({', '.join(results)}) {{\n"
            f"  {lhs} = {self.op_text(args, types, results)}\n"
            f"  return {', '.join(returned)} : {', '.join(results)}\n}}\n"
        )

    def leading_sizes(self) -> list[int]:
        """The sizes a dynamic leading dim runs with (none to choose for a static case)."""
        return [0, 1, 3] if self.dynamic() else [0]

    def check(self, module) -> None:
        for n in self.leading_sizes():
            arrays = [special_values(_concrete(s, n), self.dtype, seed) for seed, s in enumerate(self.input_shapes())]
            got = module[self.symbol](*arrays)
            got = list(got) if isinstance(got, (tuple, list)) else [got]
            want = [w.contiguous() for w in self.oracle(*(torch.from_numpy(a) for a in arrays), n=n)]
            assert len(got) == len(want)
            for g, w in zip(got, want):
                assert_exact(g, w, dtype=DTYPES[self.dtype])
                assert g.tobytes() == w.numpy().tobytes(), "not bit for bit (a NaN payload or the sign of a zero)"


def special_values(shape, dtype: str, seed: int) -> np.ndarray:
    """Random data whose every element is distinct where it can be, with the values a copy
    must not disturb: NaN, +-inf, -0.0 (floats), the extremes of i64 (integers)."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    if dtype == "i64":
        flat = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size, dtype=np.int64, endpoint=True)
        specials = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1], dtype=np.int64)
    else:
        flat = rng.standard_normal(size).astype(DTYPES[dtype])
        specials = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=DTYPES[dtype])
    if size >= 2 * len(specials):
        flat[rng.choice(size, len(specials), replace=False)] = specials
    return flat.reshape(shape)


@dataclass(frozen=True)
class OneInput(Case):
    """An op of one input, of shape `shape`."""

    shape: tuple[int, ...]

    def input_shapes(self):
        return [self.shape]


@dataclass(frozen=True)
class Reshape(OneInput):
    """[view, _unsafe_view, squeeze, unsqueeze, flatten]"""

    target: tuple[int, ...]

    def label(self):
        return f"reshape_{_label(self.shape)}_to_{_label(self.target)}"

    def result_shapes(self):
        return [self.target]

    def op_text(self, args, types, results):
        return f"rlx.reshape {args[0]} : ({types[0]}) -> {results[0]}"

    def oracle(self, x, n):
        return [torch.ops.aten.view(x, list(_concrete(self.target, n)))]


@dataclass(frozen=True)
class Permute(OneInput):
    """[permute, t, transpose]"""

    dims: tuple[int, ...]

    def label(self):
        return f"permute_{_label(self.shape)}_dims{''.join(map(str, self.dims)) or '_none'}"

    def result_shapes(self):
        return [tuple(self.shape[d] for d in self.dims)]

    def op_text(self, args, types, results):
        return f"rlx.permute {args[0]} dims [{', '.join(map(str, self.dims))}] : ({types[0]}) -> {results[0]}"

    def oracle(self, x, n):
        return [torch.ops.aten.permute(x, list(self.dims))]


@dataclass(frozen=True)
class Expand(OneInput):
    """[expand]"""

    target: tuple[int, ...]

    def label(self):
        return f"expand_{_label(self.shape)}_to_{_label(self.target)}"

    def result_shapes(self):
        return [self.target]

    def op_text(self, args, types, results):
        return f"rlx.expand {args[0]} : ({types[0]}) -> {results[0]}"

    def oracle(self, x, n):
        return [torch.ops.aten.expand(x, list(_concrete(self.target, n)))]


def _sliced(shape, dim, start, end, step):
    return tuple(-(-(end - start) // step) if axis == dim else size for axis, size in enumerate(shape))


@dataclass(frozen=True)
class SliceGeometry(Case):
    """`shape` (the sliced tensor's) and `geometry` = (dim, start, end, step), normalized:
    0 <= start <= end <= size, step >= 1."""

    shape: tuple[int, ...]
    geometry: tuple[int, int, int, int]

    def geometry_label(self) -> str:
        dim, start, end, step = self.geometry
        return f"{_label(self.shape)}_dim{dim}_{start}to{end}by{step}"

    def attrs(self) -> str:
        dim, start, end, step = self.geometry
        return f"dim {dim} start {start} end {end}" + (f" step {step}" if step != 1 else "")

    def sliced(self) -> tuple[int, ...]:
        return _sliced(self.shape, *self.geometry)


@dataclass(frozen=True)
class Slice(SliceGeometry):
    """[slice.Tensor]"""

    def label(self):
        return f"slice_{self.geometry_label()}"

    def input_shapes(self):
        return [self.shape]

    def result_shapes(self):
        return [self.sliced()]

    def op_text(self, args, types, results):
        return f"rlx.slice {args[0]} {self.attrs()} : ({types[0]}) -> {results[0]}"

    def oracle(self, x, n):
        return [torch.ops.aten.slice.Tensor(x, *self.geometry)]


@dataclass(frozen=True)
class SliceBackward(SliceGeometry):
    """[slice_backward]: dy has the slice's shape, dx the forward input's (`shape`)."""

    def label(self):
        return f"slice_backward_{self.geometry_label()}"

    def input_shapes(self):
        return [self.sliced()]

    def result_shapes(self):
        return [self.shape]

    def op_text(self, args, types, results):
        return f"rlx.slice_backward {args[0]} {self.attrs()} : ({types[0]}) -> {results[0]}"

    def oracle(self, dy, n):
        return [torch.ops.aten.slice_backward(dy, list(_concrete(self.shape, n)), *self.geometry)]


@dataclass(frozen=True)
class Concat(Case):
    """[cat]"""

    shapes: tuple[tuple[int, ...], ...]
    dim: int

    def label(self):
        return f"concat{len(self.shapes)}_{'_'.join(map(_label, self.shapes))}_dim{self.dim}"

    def input_shapes(self):
        return list(self.shapes)

    def result_shapes(self):
        shape = list(self.shapes[0])
        shape[self.dim] = sum(s[self.dim] for s in self.shapes)
        return [tuple(shape)]

    def op_text(self, args, types, results):
        return f"rlx.concat {', '.join(args)} dim {self.dim} : ({', '.join(types)}) -> {results[0]}"

    def oracle(self, *inputs, n):
        return [torch.ops.aten.cat(list(inputs), self.dim)]


@dataclass(frozen=True)
class Split(OneInput):
    """[split_with_sizes]"""

    dim: int
    sizes: tuple[int, ...]

    def label(self):
        return f"split_{_label(self.shape)}_dim{self.dim}_sizes{'_'.join(map(str, self.sizes))}"

    def result_shapes(self):
        return [tuple(size if axis == self.dim else d for axis, d in enumerate(self.shape)) for size in self.sizes]

    def op_text(self, args, types, results):
        return (
            f"rlx.split {args[0]} dim {self.dim} sizes [{', '.join(map(str, self.sizes))}] "
            f": ({types[0]}) -> ({', '.join(results)})"
        )

    def oracle(self, x, n):
        return list(torch.ops.aten.split_with_sizes(x, list(self.sizes), self.dim))


Q = DYNAMIC

GEOMETRIES = [
    # reshape: groupings, regroupings through one group ([2, 3, 4] -> [3, 8]), unit dims, 0-d, empty
    *(Reshape(shape=s, target=t) for s, t in [
        ((2, 3, 4), (6, 4)), ((6, 4), (2, 3, 4)), ((2, 3, 4), (24,)), ((24,), (2, 3, 4)),
        ((2, 3, 4), (3, 8)), ((2, 3, 4), (4, 3, 2)), ((2, 3, 5), (3, 2, 5)), ((4, 6), (2, 12)),
        ((2, 2, 6), (4, 3, 2)), ((2, 1, 3), (2, 3)), ((2, 3), (2, 1, 3)), ((2, 3), (2, 3, 1)),
        ((1, 2, 3), (6,)), ((6, 1), (1, 6)), ((), (1,)), ((1,), ()), ((), (1, 1, 1)), ((1, 1), ()),
        ((5,), (5,)), ((0, 3), (3, 0)), ((2, 0), (0, 5)),
        ((Q, 3, 4), (Q, 12)), ((Q, 12), (Q, 3, 4)), ((Q, 2, 3), (Q, 3, 2)), ((Q,), (Q, 1)), ((Q, 1), (Q,)),
    ]),
    # permute: every kind of cycle, identity, 0-d, a dynamic leading dim kept first
    *(Permute(shape=s, dims=d) for s, d in [
        ((3, 4), (1, 0)), ((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 2, 0)),
        ((2, 3, 4, 5), (3, 1, 0, 2)), ((2, 3), (0, 1)), ((), ()), ((2, 0, 3), (2, 1, 0)),
        ((Q, 3, 4), (0, 2, 1)),
    ]),
    # rank-4 permutes with whole 8- and 16-lane blocks and partial ones (17): every
    # permutation, so each kind of block of the transpose schedule (and each that has none)
    # runs; NCHW <-> NHWC as ConvNeXt's step has them (8x8 planes of 192 channels hung
    # mlir-opt under a block read across the wrong dimensions), and with a dynamic batch.
    *(Permute(shape=(2, 17, 16, 24), dims=d) for d in itertools.permutations(range(4))),
    *(Permute(shape=s, dims=d) for s, d in [
        ((2, 8, 8, 192), (0, 3, 1, 2)), ((2, 192, 8, 8), (0, 2, 3, 1)), ((2, 16, 16, 96), (0, 3, 1, 2)),
        ((Q, 16, 16, 24), (0, 3, 1, 2)), ((Q, 24, 16, 16), (0, 2, 3, 1)),
    ]),
    # expand: new leading dims, stretched size-1 dims, kept size-1 dims, 0-d, to size 0
    *(Expand(shape=s, target=t) for s, t in [
        ((3, 1), (2, 3, 4)), ((), (2, 3)), ((1,), (4,)), ((3,), (2, 3)), ((1, 3, 1), (2, 2, 3, 5)),
        ((1, 1), (1, 3)), ((2, 1), (2, 1)), ((1, 3), (5, 1, 3)), ((1,), (0,)), ((Q, 1, 3), (Q, 4, 3)),
    ]),
    # slice: steps > 1, a step past the end, empty slices (inside and at the end), every dim
    *(Slice(shape=s, geometry=g) for s, g in [
        ((2, 7), (1, 1, 6, 2)), ((2, 7), (1, 0, 7, 3)), ((7,), (0, 0, 7, 1)), ((5, 4), (0, 1, 4, 1)),
        ((2, 7), (1, 3, 3, 1)), ((2, 7), (1, 7, 7, 1)), ((2, 7), (1, 6, 7, 5)), ((3, 4, 5), (2, 0, 5, 4)),
        ((3, 8), (1, 2, 8, 10)), ((3, 4, 5), (0, 1, 3, 1)), ((Q, 7), (1, 1, 6, 2)),
    ]),
    *(SliceBackward(shape=s, geometry=g) for s, g in [
        ((2, 7), (1, 1, 6, 2)), ((2, 7), (1, 0, 7, 3)), ((7,), (0, 0, 7, 1)), ((5, 4), (0, 1, 4, 1)),
        ((2, 7), (1, 3, 3, 1)), ((3, 4, 5), (2, 0, 5, 4)), ((3, 8), (1, 2, 8, 10)), ((Q, 7), (1, 1, 6, 2)),
    ]),
    # concat of 1..4 inputs, an empty input, along every position of dim
    *(Concat(shapes=i, dim=d) for i, d in [
        (((2, 3),), 0), (((2, 1), (2, 3)), 1), (((3,), (4,)), 0), (((1, 3), (2, 3), (0, 3)), 0),
        (((2, 1, 2), (2, 2, 2), (2, 3, 2), (2, 1, 2)), 1), (((2, 2, 1), (2, 2, 3), (2, 2, 2)), 2),
        (((Q, 2), (Q, 3)), 1),
    ]),
    # split into unequal sizes, one piece, size-0 pieces
    *(Split(shape=s, dim=d, sizes=z) for s, d, z in [
        ((4, 5), 1, (2, 3)), ((6,), 0, (1, 2, 3)), ((4, 5), 0, (0, 4)), ((2, 7, 3), 1, (3, 0, 4)),
        ((3, 4), 1, (4,)), ((2, 3, 6), 2, (1, 1, 4)), ((Q, 5), 1, (1, 4)),
    ]),
]

MATRIX = [replace(case, dtype=dtype) for dtype in DTYPES for case in GEOMETRIES]

_compiled: dict[str, object] = {}


@pytest.fixture
def module_of(compile_rlx):
    """Every configuration of one element type, compiled once per session as one module."""

    def get(dtype: str):
        if dtype not in _compiled:
            _compiled[dtype] = compile_rlx("\n".join(c.function() for c in MATRIX if c.dtype == dtype))
        return _compiled[dtype]

    return get


def test_matrix_ids_are_unique():
    ids = [str(case) for case in MATRIX]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]


@pytest.mark.parametrize("case", MATRIX, ids=str)
def test_layout_op_matches_pytorch_exactly(case, module_of):
    case.check(module_of(case.dtype))


# --------------------------------------------------------------------------------------
# The lowered IR: upstream ops only, accepted by mlir-opt 22, the same whatever the sizes
# --------------------------------------------------------------------------------------

LOWERED = {"builtin", "func", "linalg", "tensor", "arith", "math"}


def _lowered(text: str):
    from rlx_mlir.api import lower_to_linalg

    return lower_to_linalg(text, "<layout>")


def test_lowered_ir_is_upstream_and_mlir_opt_accepts_it():
    from rlx_mlir.backend.toolchain import ToolchainError, find_tool

    module = _lowered("\n".join(c.function() for c in MATRIX if c.dtype in ("f32", "i64")))
    assert {op.name.split(".")[0] for op in module.walk()} <= LOWERED
    try:
        mlir_opt = str(find_tool("mlir-opt").path)
    except ToolchainError as error:
        pytest.skip(f"no mlir-opt: {error}")
    done = subprocess.run([mlir_opt, "--verify-each", "-"], input=str(module), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


SIZE_CASES = [
    # (small, the same configuration with large sizes)
    (Reshape(shape=(2, 3, 4), target=(3, 8)), Reshape(shape=(64, 96, 128), target=(96, 8192))),
    (Permute(shape=(2, 3, 4), dims=(2, 0, 1)), Permute(shape=(64, 96, 128), dims=(2, 0, 1))),
    (Expand(shape=(3, 1), target=(2, 3, 4)), Expand(shape=(300, 1), target=(200, 300, 400))),
    (Slice(shape=(2, 7), geometry=(1, 1, 6, 2)), Slice(shape=(200, 700), geometry=(1, 100, 600, 2))),
    (SliceBackward(shape=(2, 7), geometry=(1, 1, 6, 2)), SliceBackward(shape=(200, 700), geometry=(1, 100, 600, 2))),
    (Concat(shapes=((2, 1), (2, 3), (2, 2)), dim=1), Concat(shapes=((200, 100), (200, 300), (200, 200)), dim=1)),
    (Split(shape=(4, 5), dim=1, sizes=(2, 3)), Split(shape=(400, 500), dim=1, sizes=(200, 300))),
]


@pytest.mark.parametrize(("small", "large"), SIZE_CASES, ids=lambda c: type(c).__name__)
def test_ir_size_does_not_depend_on_tensor_sizes(small, large):
    assert [op.name for op in _lowered(small.function()).walk()] == [op.name for op in _lowered(large.function()).walk()]
