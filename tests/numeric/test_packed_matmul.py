"""Products large enough for the packed-tile schedule, against torch.matmul.

`schedules/matmul.mlir` packs a static f32 or f64 product of M, K >= 64 and N >= 16 into
register tiles (8 x N0 accumulators, N0 two vectors of the element type) and unpacks the
result. Sizes that are no multiple of the tiles are padded inside the packing and must come
out exact; a dynamic M is packed too (its packs pad the rows to whole panels). The transposed products (Aᵀ·B, A·Bᵀ:
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
    Product(130, 65, 48),  # a one-deep last K tile of the packs (65 = 4 x 16 + 1)
    Product(255, 255, 255),  # one short of whole tiles in every dimension
    Product(255, 255, 255, "f64"),
    Product(256, 128, 256, "f64"),
    Product(257, 131, 259, "f64"),
    # Several column blocks per thread (schedules' @fuse_into_column_blocks) and a
    # narrower last one, whatever the thread count.
    Product(96, 80, 1000),
    Product(96, 80, 1000, "f64"),
    Product(100, 80, 1000, dynamic_m=True),
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


@dataclass(frozen=True)
class DynamicProduct:
    """A product whose rows (M: batch x tokens) are dynamic, compiled once and run at
    several sizes. ``variant`` as benchmarks.matmul's: A·B, Aᵀ·B with A stored K x M, A·Bᵀ
    with B stored N x K."""

    k: int
    n: int
    variant: str = "nn"
    dtype: str = "f32"

    def __str__(self) -> str:
        return f"{self.variant}_mdyn_{self.k}x{self.n}_{self.dtype}"

    def case(self, m: int | str) -> MatmulCase:
        return MatmulCase(m, self.k, self.n, self.variant, self.dtype)  # type: ignore[arg-type]  ("?": dynamic)


DYNAMIC = [
    DynamicProduct(384, 1536),  # a transformer's projection over batch x tokens: packed
    DynamicProduct(131, 259, "nt"),  # an input gradient, B transposed into its pack
    DynamicProduct(131, 259, "nn", "f64"),
    DynamicProduct(65, 48, "nt"),  # a one-deep last K tile, B transposed into its pack
    DynamicProduct(32, 64),  # below the packing threshold (K < 64): 8-row tiles, rows peeled
    DynamicProduct(48, 100, "nt"),  # and columns peeled (50 per thread: 32 + 18)
]
SIZES = (1, 7, 8, 9, 197, 300)
"""Fewer rows than one tile, one tile exactly, one more, and some with remainders."""


@pytest.mark.parametrize("case", DYNAMIC, ids=str)
def test_dynamic_product_matches_pytorch_at_every_size(case, compile_rlx):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PipelineFallbackWarning)
        fn = compile_rlx(case.case("?").source())["f"]
    rng = np.random.default_rng(0)
    dtype = {"f32": np.float32, "f64": np.float64}[case.dtype]
    for size in SIZES:
        sized = case.case(size)
        a, b = (rng.standard_normal(shape).astype(dtype) for shape in sized.stored)
        assert_matches(fn(a, b), sized.reference, (a, b))
