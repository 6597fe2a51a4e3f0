"""The embedding and its gradient, compiled through `rlx_mlir.compile` and run natively, against PyTorch.

Oracles: `F.embedding` (the forward, a copy: compared bit for bit) and its autograd
gradient in float64 (`aten.embedding_dense_backward` on CPU), with `padding_idx` and
`scale_grad_by_freq`, repeated indices, 0-d, 1-D and 2-D indices and a dynamic leading
dimension. The gradient is a sum of products with non-negative coefficients (1 or
1/count), so `oracle.assert_matches` bounds it by the same sum over |grad_output|.

Out-of-range indices, where PyTorch raises `IndexError`, have the dialect's documented
result: the forward reads a zero row, the backward drops the contribution. Their oracle
is PyTorch on what that definition says: `F.embedding` of the clamped index, masked to 0,
and the gradient of the in-range positions only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_exact, assert_matches, tensor_type

DTYPES = {"f32": np.float32, "f64": np.float64}
ROWS, DIM = 7, 3


def index_type(shape, dynamic: bool) -> str:
    dims = ["?" if dynamic and i == 0 else str(d) for i, d in enumerate(shape)]
    return f"tensor<{''.join(d + 'x' for d in dims)}i64>"


class Named:
    """A case's function symbol (its id, made an identifier) and NumPy dtype."""

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]


@dataclass(frozen=True)
class Case(Named):
    """One embedding (or gradient) of a [ROWS, DIM] table at `indices` of a fixed pattern."""

    backward: bool = False
    shape: tuple[int, ...] = (2, 3)
    padding_idx: int = -1
    scale: bool = False
    dynamic: bool = False
    out_of_range: bool = False
    dtype: str = "f32"

    def __str__(self) -> str:
        dims = "x".join(map(str, self.shape)) or "0d"
        return (
            f"{'embedding_backward' if self.backward else 'embedding'}_{dims}{'dyn' if self.dynamic else ''}"
            f"{f'_pad{self.padding_idx}' if self.padding_idx >= 0 else ''}{'_freq' if self.scale else ''}"
            f"{'_out_of_range' if self.out_of_range else ''}_{self.dtype}"
        )

    def properties(self) -> str:
        padding = f" padding_idx {self.padding_idx}" if self.padding_idx >= 0 else ""
        return padding + (" scale_grad_by_freq true" if self.scale else "")

    def function(self) -> str:
        t = index_type(self.shape, self.dynamic)
        table = tensor_type((ROWS, DIM), self.np_dtype)
        gathered = tensor_type((*self.shape, DIM), self.np_dtype, self.dynamic)
        if self.backward:
            return (
                f"func.func @{self.symbol}(%dy: {gathered}, %t: {t}) -> {table} {{\n"
                f"  %dw = rlx.embedding_backward %dy, %t{self.properties()} : ({gathered}, {t}) -> {table}\n"
                f"  return %dw : {table}\n}}\n"
            )
        return (
            f"func.func @{self.symbol}(%w: {table}, %t: {t}) -> {gathered} {{\n"
            f"  %y = rlx.embedding %w, %t{self.properties()} : ({table}, {t}) -> {gathered}\n"
            f"  return %y : {gathered}\n}}\n"
        )

    def indices(self, shape) -> np.ndarray:
        """Repeated rows (each row about twice), the padding row among them; with
        `out_of_range`, also -1, ROWS and a large index."""
        rng = np.random.default_rng(sum(shape) + 3)
        t = rng.integers(0, ROWS, size=shape, dtype=np.int64)
        flat = t.reshape(-1)
        if flat.size >= 2:
            flat[:2] = flat[-1]  # a row named three times
        if self.padding_idx >= 0 and flat.size >= 3:
            flat[2] = self.padding_idx
        if self.out_of_range and flat.size >= 6:
            flat[3:6] = [-1, ROWS, 1 << 40]
        return t

    def batch_sizes(self) -> list[int]:
        return [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]] if self.shape else [None]

    def check(self, module) -> None:
        for batch in self.batch_sizes():
            shape = (batch, *self.shape[1:]) if batch is not None else ()
            t = self.indices(shape)
            self.check_at(module, t)

    def check_at(self, module, t: np.ndarray) -> None:
        rng = np.random.default_rng(t.size)
        inside = np.asarray((t >= 0) & (t < ROWS))
        if self.backward:
            dy = rng.standard_normal((*t.shape, DIM)).astype(self.np_dtype)
            got = module[self.symbol](dy, t)
            assert_matches(got, lambda dy64: self.torch_gradient(dy64, t, inside), [dy], label=str(self))
            # One fixed order of additions: the same inputs give the same bits.
            np.testing.assert_array_equal(module[self.symbol](dy, t), got)
            return
        w = rng.standard_normal((ROWS, DIM)).astype(self.np_dtype)
        got = module[self.symbol](w, t)
        safe = torch.from_numpy(np.where(inside, t, 0))
        want = F.embedding(safe, torch.from_numpy(w), padding_idx=self.padding_idx if self.padding_idx >= 0 else None)
        want = torch.where(torch.from_numpy(inside)[..., None], want, torch.zeros(()))
        assert_exact(got, want, dtype=self.np_dtype)

    def torch_gradient(self, dy: torch.Tensor, t: np.ndarray, inside: np.ndarray) -> torch.Tensor:
        """The weight's gradient of `F.embedding` (float64 autograd), over the in-range positions."""
        weight = torch.zeros(ROWS, DIM, dtype=torch.float64, requires_grad=True)
        kept = torch.from_numpy(inside)
        y = F.embedding(
            torch.from_numpy(t)[kept], weight, padding_idx=self.padding_idx if self.padding_idx >= 0 else None,
            scale_grad_by_freq=self.scale,
        )
        y.backward(dy[kept])
        return weight.grad


CASES = [
    Case(backward=backward, dtype=dtype, **config)
    for dtype in DTYPES
    for backward in (False, True)
    for config in [
        dict(shape=(6,)),
        dict(shape=(2, 3)),
        dict(shape=()),
        dict(shape=(2, 3), dynamic=True),
        dict(shape=(2, 4), padding_idx=2),
        dict(shape=(8,), scale=True),
        dict(shape=(2, 4), padding_idx=0, scale=True, dynamic=True),
        dict(shape=(2, 4), out_of_range=True),
        dict(shape=(2, 4), padding_idx=1, scale=True, out_of_range=True),
    ]
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    """Every case's function in one module, compiled once."""
    return compile_rlx("\n".join(case.function() for case in CASES))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_embedding_matches_pytorch(case, module):
    case.check(module)
