"""`rlx.max_pool2d_gather` (a max pool's tangent: z read at each window's first maximum of x),
lowered and run natively, against z read at PyTorch's own indices
(`F.max_pool2d(x, ..., return_indices=True)`), bit for bit.

Both forms: windows that tile the input (`MaxPool2dGatherFirstMaxTiled`, the tiled
gradient's argmax, also with rows and columns no window reaches, and a 3x2 window) and
windows that do not (`MaxPoolGatherToLinalg`'s scanned argmax); f32 and f64, a dynamic
batch called with two batch sizes; on random x with ties (the first maximum wins), NaN
(the last NaN wins) and all -inf windows (the first cell).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_exact, tensor_type


@dataclass(frozen=True)
class Gather:
    shape: tuple[int, int, int, int]
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int] = (0, 0)
    dtype: str = "float32"
    dynamic: bool = False

    def __str__(self) -> str:
        dims = "x".join(map(str, self.shape))
        k, s, p = ("x".join(map(str, v)) for v in (self.kernel, self.stride, self.padding))
        return f"gather_{dims}_k{k}_s{s}_p{p}_{self.dtype}" + ("_dyn" if self.dynamic else "")

    def out_shape(self, batch: int) -> tuple[int, ...]:
        return tuple(F.max_pool2d(torch.zeros(batch, *self.shape[1:]), self.kernel, self.stride, self.padding).shape)

    def function(self) -> str:
        t = tensor_type(self.shape, self.dtype, self.dynamic)
        r = tensor_type(self.out_shape(self.shape[0]), self.dtype, self.dynamic)
        props = f"kernel_size {list(self.kernel)} stride {list(self.stride)} padding {list(self.padding)}"
        return (f"func.func @{self}(%x: {t}, %z: {t}) -> {r} {{\n"
                f"  %g = rlx.max_pool2d_gather %x, %z {props} : ({t}, {t}) -> {r}\n  return %g : {r}\n}}\n")

    def inputs(self, batch: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(batch)
        shape = (batch, *self.shape[1:])
        x = rng.standard_normal(shape).astype(self.dtype)
        if kind == "ties":
            x = np.round(x).astype(self.dtype)  # few values: many tied maxima
        elif kind == "specials":
            x.flat[::7] = np.nan
            x.flat[1::5] = -np.inf
            x[:, :, : self.kernel[0], : self.kernel[1]] = -np.inf  # an all -inf window
        return x, rng.standard_normal(shape).astype(self.dtype)

    def check(self, function, batch: int, kind: str) -> None:
        x, z = self.inputs(batch, kind)
        _, indices = F.max_pool2d(torch.from_numpy(x), self.kernel, self.stride, self.padding, return_indices=True)
        want = torch.from_numpy(z).flatten(2).gather(2, indices.flatten(2)).view(indices.shape)
        assert_exact(function(x, z), want, dtype=np.dtype(self.dtype))


CASES = [
    Gather((2, 3, 8, 8), (2, 2), (2, 2)),
    Gather((2, 2, 7, 9), (2, 2), (2, 2), dtype="float64", dynamic=True),  # a row and a column no window reaches
    Gather((1, 2, 9, 8), (3, 2), (3, 2)),
    Gather((2, 3, 9, 9), (3, 3), (2, 2), (1, 1), dynamic=True),  # not tiling: the scanned argmax
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    return compile_rlx("".join(c.function() for c in CASES))


@pytest.mark.parametrize("kind", ["random", "ties", "specials"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_max_pool_gather_reads_z_at_pytorchs_indices(case, kind, module):
    for batch in (case.shape[0], case.shape[0] + 2) if case.dynamic else (case.shape[0],):
        with np.errstate(invalid="ignore"):
            case.check(module[str(case)], batch, kind)
