"""Products large enough for the packed-tile schedule, against torch.matmul.

`schedules/matmul.mlir` packs a static f32 or f64 product of M, K >= 64 and N >= 16 into
register tiles (8 x N0 accumulators, N0 two vectors of the element type) and unpacks the
result. Sizes that are no multiple of the tiles are padded inside the packing and must come
out exact; a dynamic M keeps the unpacked schedule. The transposed products (Aᵀ·B, A·Bᵀ:
`rlx.permute` feeding `rlx.matmul`) fold their transpose into the operand's pack. A
schedule that made mlir-opt fail would fall back silently, so the fallback warning is an
error here.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

from oracle import assert_matches
from rlx_mlir.backend.compile import PipelineFallbackWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.matmul import MatmulCase  # noqa: E402  (the case and its source are the benchmark's)


@dataclass(frozen=True)
class Product:
    m: int
    k: int
    n: int
    dtype: str = "f32"
    dynamic_m: bool = False

    def __str__(self) -> str:
        return f"{'?' if self.dynamic_m else ''}{self.m}x{self.k}x{self.n}_{self.dtype}"

    def source(self) -> str:
        rows = "?" if self.dynamic_m else str(self.m)
        a, b, y = (f"tensor<{r}x{c}x{self.dtype}>" for r, c in ((rows, self.k), (self.k, self.n), (rows, self.n)))
        return (
            f"func.func @f(%a: {a}, %b: {b}) -> {y} {{\n"
            f"  %y = rlx.matmul %a, %b : ({a}, {b}) -> {y}\n  return %y : {y}\n}}\n"
        )


CASES = [
    Product(256, 128, 256),  # whole tiles
    Product(257, 131, 259),  # partial tiles in M, N, padded inside the packs
    Product(300, 128, 256, dynamic_m=True),
    Product(64, 64, 16),  # the smallest packed product
    Product(65, 67, 17),  # partial tiles everywhere, at the thresholds
    Product(256, 128, 256, "f64"),
    Product(257, 131, 259, "f64"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_packed_product_matches_pytorch(case, compile_rlx):
    rng = np.random.default_rng(0)
    dtype = {"f32": np.float32, "f64": np.float64}[case.dtype]
    a, b = (rng.standard_normal(shape).astype(dtype) for shape in ((case.m, case.k), (case.k, case.n)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PipelineFallbackWarning)
        fn = compile_rlx(case.source())["f"]
    assert_matches(fn(a, b), torch.matmul, (a, b))


TRANSPOSED = [
    MatmulCase(m, k, n, v) for (m, k, n) in ((256, 128, 256), (257, 131, 259), (65, 67, 17)) for v in ("tn", "nt")
]
"""Whole tiles, and partial tiles in every dimension, with the transpose absorbed by the pack."""


@pytest.mark.parametrize("case", TRANSPOSED, ids=lambda case: case.name)
def test_packed_transposed_product_matches_pytorch(case, compile_rlx):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(np.float32) for shape in case.stored)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PipelineFallbackWarning)
        fn = compile_rlx(case.source())["f"]
    assert_matches(fn(a, b), case.reference, (a, b))
