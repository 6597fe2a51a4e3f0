"""index and index_put (PyTorch's advanced indexing `x[i, j]`), compiled through
`rlx_mlir.compile` and run natively, against PyTorch.

Oracles: `x[i, j]` (a copy: compared bit for bit), `torch.index_put(accumulate=True)` in
float64 (a sum of the input and value terms with coefficient 1: `oracle.assert_matches`)
and `torch.index_put` without accumulate (a copy). Cases: one to three index tensors,
broadcast together (a [2, 1] with a [6]), values broadcast to the indexed shape, repeated
positions, negative indices (which wrap), a dynamic leading dim of the input and of the
indices. The same accumulate run twice gives the same bits (its sums run in a fixed order).

Out-of-range indices (outside [-size, size), which PyTorch rejects) have the dialect's
documented result: index reads 0, index_put drops the write. Repeated positions without
accumulate, which PyTorch leaves undefined, keep the last write in row-major order of the
indices. For both, the oracle is PyTorch on what that definition says: the in-range
positions put one at a time, in that order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch

from numeric.test_indexing_ops import DTYPES, Named, index_type
from oracle import assert_exact, assert_matches, tensor_type


@dataclass(frozen=True)
class Case(Named):
    """One index or index_put of `input` at index tensors of `indices`' shapes (values: the indexed shape unless given)."""

    op: str
    input: tuple[int, ...]
    indices: tuple[tuple[int, ...], ...]
    values: tuple[int, ...] | None = None
    accumulate: bool = False
    dynamic: bool = False
    """The input's, the indices' and the values' (where it meets B's) leading dims are one dynamic batch."""
    out_of_range: bool = False
    repeats: bool = True
    dtype: str = "f32"

    def __str__(self) -> str:
        shape = lambda s: "x".join(map(str, s)) or "0d"  # noqa: E731
        at = "_".join(shape(s) for s in self.indices)
        values = f"_v{shape(self.values)}" if self.values is not None else ""
        return (
            f"{self.op}{'_acc' if self.accumulate else ''}_{shape(self.input)}_at_{at}{values}{'_dyn' if self.dynamic else ''}"
            f"{'_out_of_range' if self.out_of_range else ''}{'' if self.repeats else '_distinct'}_{self.dtype}"
        )

    @property
    def batch(self) -> tuple[int, ...]:
        return tuple(torch.broadcast_shapes(*self.indices))

    def indexed(self, batch) -> tuple[int, ...]:
        return (*batch, *self.input[len(self.indices):])

    def dynamic_values(self) -> bool:
        return self.dynamic and len(self.values or self.indexed(self.batch)) == len(self.indexed(self.batch))

    def function(self) -> str:
        x = tensor_type(self.input, self.np_dtype, self.dynamic)
        ts = [index_type(shape, self.dynamic) for shape in self.indices]
        params = ", ".join(f"%t{n}: {t}" for n, t in enumerate(ts))
        names = ", ".join(f"%t{n}" for n in range(len(ts)))
        if self.op == "index":
            y = tensor_type(self.indexed(self.batch), self.np_dtype, self.dynamic)
            return (
                f"func.func @{self.symbol}(%x: {x}, {params}) -> {y} {{\n"
                f"  %y = rlx.index %x[{names}] : ({x}, {', '.join(ts)}) -> {y}\n"
                f"  return %y : {y}\n}}\n"
            )
        v = tensor_type(self.values or self.indexed(self.batch), self.np_dtype, self.dynamic_values())
        return (
            f"func.func @{self.symbol}(%x: {x}, {params}, %v: {v}) -> {x} {{\n"
            f"  %y = rlx.index_put %x[{names}], %v accumulate {str(self.accumulate).lower()} : "
            f"({x}, {', '.join(ts)}, {v}) -> {x}\n"
            f"  return %y : {x}\n}}\n"
        )

    def shapes(self, grow: int):
        """input, indices and values with the dynamic leading dims grown by `grow`."""
        lead = lambda s: (s[0] + grow, *s[1:]) if self.dynamic and s else s  # noqa: E731
        indices = [lead(s) for s in self.indices]
        batch = tuple(torch.broadcast_shapes(*indices))
        values = self.values or self.indexed(self.batch)
        return lead(self.input), indices, lead(values) if self.dynamic_values() else values, batch

    def make_indices(self, shapes, sizes, rng) -> list[np.ndarray]:
        """Indices in [-size, size) (negative ones wrap), repeating unless `repeats` is off
        (then distinct positions, one index tensor); with `out_of_range`, also -size - 1,
        size and a huge one."""
        out = []
        for shape, size in zip(shapes, sizes):
            if not self.repeats:
                t = rng.permutation(size)[: int(np.prod(shape))].reshape(shape) - rng.integers(0, 2, size=shape) * size
            else:
                t = rng.integers(-size, size, size=shape, dtype=np.int64)
            t = np.asarray(t, np.int64)
            if self.out_of_range and t.size >= 4:
                t.reshape(-1)[1:4] = [-size - 1, size, 1 << 40]
            out.append(t)
        return out

    def check(self, module) -> None:
        for grow in ([0, 2] if self.dynamic else [0]):
            x_shape, t_shapes, v_shape, batch = self.shapes(grow)
            rng = np.random.default_rng(sum(x_shape) + grow)
            x = rng.standard_normal(x_shape).astype(self.np_dtype)
            ts = self.make_indices(t_shapes, x_shape, rng)
            inside = np.broadcast_to(np.all(np.broadcast_arrays(*[(t >= -s) & (t < s) for t, s in zip(ts, x_shape)]), axis=0), batch)
            safe = tuple(torch.from_numpy(np.where((t >= -s) & (t < s), t, 0)) for t, s in zip(ts, x_shape))
            rest = (1,) * (len(x_shape) - len(ts))
            mask = torch.from_numpy(inside.copy()).reshape(*batch, *rest)
            if self.op == "index":
                got = module[self.symbol](x, *ts)
                assert_exact(got, torch.from_numpy(x)[safe].where(mask, 0.0), dtype=self.np_dtype)
                continue
            v = rng.standard_normal(v_shape).astype(self.np_dtype)
            got = module[self.symbol](x, *ts, v)
            if self.accumulate:
                def index_put(x64, v64):
                    return x64.index_put(safe, v64.expand(*self.indexed(batch)) * mask, accumulate=True)

                assert_matches(got, index_put, [x, v], label=str(self))
                np.testing.assert_array_equal(module[self.symbol](x, *ts, v), got)
                continue
            assert_exact(got, self.put_in_order(x, safe, inside, v, batch), dtype=self.np_dtype)

    def put_in_order(self, x, safe, inside, v, batch) -> torch.Tensor:
        """The dialect's rule where PyTorch says nothing (repeats, out of range), in PyTorch's
        words: `index_put` of one in-range position at a time, in row-major order of B."""
        y = torch.from_numpy(x.copy())
        values = torch.from_numpy(v).expand(*self.indexed(batch))
        where = [s.expand(batch) for s in safe]
        for b in np.ndindex(*batch):
            if inside[b]:
                y[tuple(w[b] for w in where)] = values[b]
        return y


CASES = [
    Case(dtype=dtype, **config)
    for dtype in DTYPES
    for config in [
        dict(op="index", input=(5, 3), indices=((7,),)),
        dict(op="index", input=(4, 5, 3), indices=((6,), (2, 1))),
        dict(op="index", input=(3, 4, 2), indices=((2, 3), (2, 3), (2, 3))),
        dict(op="index", input=(6,), indices=((4,),), out_of_range=True),
        dict(op="index", input=(5, 4), indices=((5,),), dynamic=True),
        dict(op="index", input=(4, 5, 2), indices=((4,), (4,)), out_of_range=True),
        dict(op="index_put", input=(5, 3), indices=((9,),), accumulate=True),
        dict(op="index_put", input=(4, 5, 3), indices=((6,), (2, 1)), values=(3,), accumulate=True),
        dict(op="index_put", input=(4, 5), indices=((7,), (7,)), values=(), accumulate=True, out_of_range=True),
        dict(op="index_put", input=(6, 4), indices=((6,),), accumulate=True, dynamic=True),
        dict(op="index_put", input=(6, 3), indices=((4,),), repeats=False),
        dict(op="index_put", input=(4, 5, 3), indices=((6,), (2, 1)), values=(1, 3)),
        dict(op="index_put", input=(5, 4), indices=((9,), (9,)), out_of_range=True),
        dict(op="index_put", input=(5, 4), indices=((5,),), values=(4,), dynamic=True),
    ]
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    """Every case's function in one module, compiled once."""
    return compile_rlx("\n".join(case.function() for case in CASES))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_index_and_index_put_match_pytorch(case, module):
    case.check(module)
