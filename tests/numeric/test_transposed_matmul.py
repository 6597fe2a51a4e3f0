"""The transposed products the backward needs, Aᵀ·B and A·Bᵀ, against torch.matmul.

Each is `rlx.permute` [1, 0] feeding `rlx.matmul`, as the VJPs and the importer emit them,
compiled by the default pipeline: the 2-D transpose is blocked by the matmul schedule
(`schedules/matmul.mlir`) and the product tiled; sizes of 1, 3, 17 and 255 leave partial
blocks and tiles everywhere. A schedule that made mlir-opt fail would fall back silently,
so the fallback warning is an error here.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from oracle import assert_matches
from rlx_mlir.backend.compile import PipelineFallbackWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.matmul import MatmulCase  # noqa: E402  (the case and its source are the benchmark's)

# (M, K, N): odd sizes on every axis (1, 3, 17, 255: transposes below one block, or split
# into partial blocks that stay scalar), and one shape whose transposes are whole vector
# blocks per thread for 8 and 16 lanes.
SHAPES = ((1, 17, 3), (17, 255, 1), (255, 3, 17), (64, 32, 48))
CASES = [MatmulCase(*s, v, "f64") for s in SHAPES for v in ("tn", "nt")] + [
    MatmulCase(64, 32, 48, v, "f32") for v in ("tn", "nt")
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.name}-{case.dtype}")
def test_transposed_product_matches_pytorch(case, compile_rlx):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(case.dtype.replace("f", "float")) for shape in case.stored)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PipelineFallbackWarning)
        fn = compile_rlx(case.source())["f"]
    assert_matches(fn(a, b), case.reference, (a, b))
