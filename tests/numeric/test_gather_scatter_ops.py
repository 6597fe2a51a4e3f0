"""gather, index_select and scatter_add, compiled through `rlx_mlir.compile` and run
natively, against PyTorch.

Oracles: `torch.gather` and `torch.index_select` (copies: compared bit for bit) and
`torch.scatter_add` in float64 (a sum of the input and src terms with coefficient 1, so
`oracle.assert_matches` bounds it by the same sum over absolute values), along the first,
a middle and the last dim, with an index smaller than the input (and than src), repeated
indices, and a dynamic batch. The same scatter_add run twice gives the same bits (its sums
run in a fixed order).

Out-of-range indices (-1, the dim's size, a huge one), which PyTorch rejects, have the
dialect's documented result: gather and index_select read 0, scatter_add drops the term.
Their oracle is PyTorch on what that definition says: the read at the index clamped to 0,
masked to 0, and scatter_add of the in-range terms only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch

from numeric.test_indexing_ops import DTYPES, Named, index_type
from oracle import assert_exact, assert_matches, tensor_type

VALUE = 1.5
"""scatter_value's value."""


@dataclass(frozen=True)
class Case(Named):
    """One gather, index_select or scatter_add of `input` at an `index` along `dim` (src: the index's shape unless given)."""

    op: str
    input: tuple[int, ...]
    index: tuple[int, ...]
    dim: int
    src: tuple[int, ...] | None = None
    dynamic: bool = False
    out_of_range: bool = False
    repeats: bool = False
    dtype: str = "f32"

    def __str__(self) -> str:
        shape = lambda s: "x".join(map(str, s))  # noqa: E731
        src = f"_src{shape(self.src)}" if self.src else ""
        return (
            f"{self.op}_{shape(self.input)}_at{shape(self.index)}{src}_dim{self.dim}{'_dyn' if self.dynamic else ''}"
            f"{'_out_of_range' if self.out_of_range else ''}{'_repeats' if self.repeats else ''}_{self.dtype}"
        )

    def function(self) -> str:
        x = tensor_type(self.input, self.np_dtype, self.dynamic)
        t = index_type(self.index, self.dynamic)
        if self.op in ("gather", "index_select"):
            y = tensor_type(self.selected_shape(), self.np_dtype, self.dynamic)
            return (
                f"func.func @{self.symbol}(%x: {x}, %t: {t}) -> {y} {{\n"
                f"  %y = rlx.{self.op} %x, %t dim {self.dim} : ({x}, {t}) -> {y}\n"
                f"  return %y : {y}\n}}\n"
            )
        if self.op == "scatter_value":
            return (
                f"func.func @{self.symbol}(%x: {x}, %t: {t}) -> {x} {{\n"
                f"  %y = rlx.scatter_value %x, %t dim {self.dim} value {VALUE} : ({x}, {t}) -> {x}\n"
                f"  return %y : {x}\n}}\n"
            )
        s = tensor_type(self.src or self.index, self.np_dtype, self.dynamic)
        return (
            f"func.func @{self.symbol}(%x: {x}, %t: {t}, %s: {s}) -> {x} {{\n"
            f"  %y = rlx.{self.op} %x, %t, %s dim {self.dim} : ({x}, {t}, {s}) -> {x}\n"
            f"  return %y : {x}\n}}\n"
        )

    def selected_shape(self) -> tuple[int, ...]:
        """gather's result: the index's shape; index_select's: the input's, the index's length in dim."""
        if self.op == "gather":
            return self.index
        return tuple(self.index[0] if axis == self.dim else size for axis, size in enumerate(self.input))

    def masked_scatter(self, x: np.ndarray, t: np.ndarray, inside: np.ndarray, s: np.ndarray | None) -> torch.Tensor:
        """The dialect's rule where PyTorch says nothing (repeats, out of range), in PyTorch's
        own words: the in-range positions scattered one at a time in ascending order along
        `dim` (each a scatter of a distinct position), so the last write wins."""
        y = torch.from_numpy(x.copy())
        for m in range(t.shape[self.dim]):
            at = [slice(None)] * t.ndim
            at[self.dim] = slice(m, m + 1)
            step, keep = torch.from_numpy(t[tuple(at)]), torch.from_numpy(inside[tuple(at)])
            value = VALUE if s is None else torch.from_numpy(s[tuple(slice(0, n) for n in t.shape)][tuple(at)])
            kept = y.scatter(self.dim, step.where(keep, 0), value)
            y = torch.where(self.written(step, keep, y.shape), kept, y)
        return y

    def written(self, step: torch.Tensor, keep: torch.Tensor, shape) -> torch.Tensor:
        """Where one step's in-range positions write (scatter of True into False)."""
        return torch.zeros(shape, dtype=torch.bool).scatter(self.dim, step.where(keep, 0), keep) if keep.any() else torch.zeros(shape, dtype=torch.bool)

    def shapes(self, batch: int) -> tuple[tuple[int, ...], ...]:
        """input, index and src at leading size `batch` (a dynamic batch is every value's)."""
        at = lambda s: (batch, *s[1:]) if self.dynamic else s  # noqa: E731
        return at(self.input), at(self.index), at(self.src or self.index)

    def indices(self, shape, size: int) -> np.ndarray:
        """Positions in [0, size), repeating wherever the index outnumbers them (for scatter,
        distinct along `dim` unless `repeats`: PyTorch does not say which repeat wins); with
        `out_of_range`, also -1, size and a huge one."""
        rng = np.random.default_rng(sum(shape))
        if self.op == "scatter" and not self.repeats:
            t = np.moveaxis(rng.permuted(np.broadcast_to(np.arange(size), (*np.delete(shape, self.dim), size)).copy(), axis=-1), -1, self.dim)
            t = t[tuple(slice(0, n) for n in shape)].copy()
        else:
            t = rng.integers(0, size, size=shape, dtype=np.int64)
        if self.out_of_range:
            t.reshape(-1)[1:4] = [-1, size, 1 << 40]
        return t

    def check(self, module) -> None:
        for batch in ([self.input[0], self.input[0] + 2] if self.dynamic else [self.input[0]]):
            x_shape, t_shape, s_shape = self.shapes(batch)
            rng = np.random.default_rng(batch)
            x = rng.standard_normal(x_shape).astype(self.np_dtype)
            t = self.indices(t_shape, x_shape[self.dim])
            inside = (t >= 0) & (t < x_shape[self.dim])
            safe = torch.from_numpy(np.where(inside, t, 0))
            if self.op == "gather":
                got = module[self.symbol](x, t)
                want = torch.gather(torch.from_numpy(x), self.dim, safe).where(torch.from_numpy(inside), 0.0)
                assert_exact(got, want, dtype=self.np_dtype)
                continue
            if self.op == "index_select":
                got = module[self.symbol](x, t)
                along = [len(t) if axis == self.dim else 1 for axis in range(x.ndim)]
                want = torch.index_select(torch.from_numpy(x), self.dim, safe)
                assert_exact(got, want.where(torch.from_numpy(inside).reshape(along), 0.0), dtype=self.np_dtype)
                continue
            covered = tuple(slice(0, n) for n in t_shape)
            mask = torch.from_numpy(inside)
            if self.op == "scatter_value":
                got = module[self.symbol](x, t)
                want = torch.from_numpy(x).scatter(self.dim, safe, VALUE) if inside.all() else None
                assert_exact(got, want if want is not None else self.masked_scatter(x, t, inside, None), dtype=self.np_dtype)
                continue
            s = rng.standard_normal(s_shape).astype(self.np_dtype)
            got = module[self.symbol](x, t, s)
            if self.op == "scatter":
                want = torch.from_numpy(x).scatter(self.dim, safe, torch.from_numpy(s)) if inside.all() and not self.repeats else None
                assert_exact(got, want if want is not None else self.masked_scatter(x, t, inside, s), dtype=self.np_dtype)
                continue

            def scatter_add(x64, s64):
                return x64.scatter_add(self.dim, safe, s64[covered] * mask)

            assert_matches(got, scatter_add, [x, s], label=str(self))
            np.testing.assert_array_equal(module[self.symbol](x, t, s), got)


CASES = [
    Case(dtype=dtype, **config)
    for dtype in DTYPES
    for config in [
        dict(op="gather", input=(4, 5), index=(3, 5), dim=0),
        dict(op="gather", input=(2, 5, 3), index=(2, 4, 2), dim=1),
        dict(op="gather", input=(3, 6), index=(2, 9), dim=1),
        dict(op="gather", input=(3, 5), index=(3, 5), dim=1, dynamic=True),
        dict(op="gather", input=(3, 5), index=(3, 4), dim=0, dynamic=True),
        dict(op="gather", input=(4, 5), index=(4, 5), dim=1, out_of_range=True),
        dict(op="index_select", input=(4, 3), index=(6,), dim=0),
        dict(op="index_select", input=(2, 5, 3), index=(4,), dim=1),
        dict(op="index_select", input=(2, 3, 5), index=(7,), dim=2),
        dict(op="index_select", input=(6,), index=(3,), dim=0),
        dict(op="index_select", input=(4, 3), index=(4,), dim=0, dynamic=True),
        dict(op="index_select", input=(3, 5), index=(5,), dim=1, out_of_range=True),
        dict(op="scatter", input=(4, 5), index=(3, 5), dim=0),
        dict(op="scatter", input=(2, 5, 3), index=(2, 4, 2), src=(2, 4, 3), dim=1),
        dict(op="scatter", input=(3, 6), index=(2, 4), src=(3, 5), dim=1),
        dict(op="scatter", input=(3, 6), index=(3, 4), dim=1, dynamic=True),
        dict(op="scatter", input=(4, 5), index=(9, 5), dim=0, repeats=True),
        dict(op="scatter", input=(5, 4), index=(5, 4), dim=0, out_of_range=True),
        dict(op="scatter_value", input=(2, 5, 3), index=(2, 7, 2), dim=1),
        dict(op="scatter_value", input=(3, 4), index=(3, 6), dim=1, dynamic=True),
        dict(op="scatter_value", input=(4, 5), index=(6, 5), dim=0, out_of_range=True),
        dict(op="scatter_add", input=(4, 5), index=(9, 5), dim=0),
        dict(op="scatter_add", input=(2, 5, 3), index=(2, 7, 2), src=(2, 7, 3), dim=1),
        dict(op="scatter_add", input=(3, 4), index=(2, 9), src=(3, 9), dim=1),
        dict(op="scatter_add", input=(3, 4), index=(3, 6), dim=1, dynamic=True),
        dict(op="scatter_add", input=(4, 5), index=(6, 5), dim=0, out_of_range=True),
    ]
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    """Every case's function in one module, compiled once."""
    return compile_rlx("\n".join(case.function() for case in CASES))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_gather_index_select_scatter_add_match_pytorch(case, module):
    case.check(module)
