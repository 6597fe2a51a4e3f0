"""The transposed products the backward needs, Aᵀ·B and A·Bᵀ, against torch.matmul.

Each is `rlx.permute` [1, 0] feeding `rlx.matmul`, as the VJPs and the importer emit them,
compiled by the default pipeline: the 2-D transpose is blocked by the matmul schedule
(`schedules/matmul.mlir`) and the product tiled; sizes of 1, 3, 17 and 255 leave partial
blocks and tiles everywhere. A schedule that made mlir-opt fail would fall back silently,
so the fallback warning is an error here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from oracle import assert_matches
from rlx_mlir.backend.compile import PipelineFallbackWarning


@dataclass(frozen=True)
class TransposedProduct:
    m: int
    k: int
    n: int
    variant: str  # "tn": Aᵀ·B, A stored K x M; "nt": A·Bᵀ, B stored N x K
    dtype: str

    def __str__(self) -> str:
        return f"{self.variant}_{self.m}x{self.k}x{self.n}_{self.dtype}"

    @property
    def stored(self) -> tuple[tuple[int, int], tuple[int, int]]:
        a = (self.k, self.m) if self.variant == "tn" else (self.m, self.k)
        b = (self.n, self.k) if self.variant == "nt" else (self.k, self.n)
        return a, b

    def source(self) -> str:
        def ty(shape):
            return f"tensor<{shape[0]}x{shape[1]}x{self.dtype}>"

        (sa, sb), mk, kn, y = self.stored, (self.m, self.k), (self.k, self.n), ty((self.m, self.n))
        if self.variant == "tn":
            permute, operands = f"%t = rlx.permute %a dims [1, 0] : ({ty(sa)}) -> {ty(mk)}", "%t, %b"
        else:
            permute, operands = f"%t = rlx.permute %b dims [1, 0] : ({ty(sb)}) -> {ty(kn)}", "%a, %t"
        return (
            f"func.func @f(%a: {ty(sa)}, %b: {ty(sb)}) -> {y} {{\n  {permute}\n"
            f"  %y = rlx.matmul {operands} : ({ty(mk)}, {ty(kn)}) -> {y}\n  return %y : {y}\n}}\n"
        )

    def reference(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a.t() if self.variant == "tn" else a, b.t() if self.variant == "nt" else b)


# (M, K, N): odd sizes on every axis (1, 3, 17, 255: transposes below one block, or split
# into partial blocks that stay scalar), and one shape whose transposes are whole vector
# blocks per thread for 8 and 16 lanes.
SHAPES = ((1, 17, 3), (17, 255, 1), (255, 3, 17), (64, 32, 48))
CASES = [TransposedProduct(*s, v, "f64") for s in SHAPES for v in ("tn", "nt")] + [
    TransposedProduct(64, 32, 48, v, "f32") for v in ("tn", "nt")
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_transposed_product_matches_pytorch(case, compile_rlx):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(case.dtype.replace("f", "float")) for shape in case.stored)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PipelineFallbackWarning)
        fn = compile_rlx(case.source())["f"]
    assert_matches(fn(a, b), case.reference, (a, b))
