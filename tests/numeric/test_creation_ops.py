"""`rlx.cast` lowered and run natively, against PyTorch 2.13's `Tensor.to(dtype)` (CPU).

Every conversion is exact against PyTorch, bit for bit: float <-> float rounds to nearest
even once (the inputs include values halfway between two f32s, f32 overflow to inf,
subnormals, NaN and -0.0), float -> integer truncates toward zero (inputs within the
integer's range and not NaN: outside it PyTorch's result is undefined behaviour),
integer -> float rounds (integers beyond 2**24 in f32), integer -> integer wraps, anything
-> bool is `!= 0` (NaN and -0.0 included), bool -> a number is 0 or 1. A dynamic batch
runs with two sizes. Bools cross the boundary as i8 (`tests/bool_masks.py`).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bool_masks import compile_fused
from numeric.test_selection_ops import NUMPY, TORCH, Case, _numpy, _torch
from oracle import assert_exact

NUMPY = {**NUMPY, "f16": np.float16, "i32": np.int32, "i8": np.int8}
TORCH = {**TORCH, "f16": torch.float16, "i32": torch.int32, "i8": torch.int8}

PAIRS = [
    ("f32", "f64"), ("f64", "f32"), ("f32", "f16"), ("f16", "f32"), ("f32", "i64"), ("f64", "i32"),
    ("f32", "i8"), ("i64", "f32"), ("i64", "f64"), ("i32", "f16"), ("i64", "i32"), ("i32", "i64"),
    ("i64", "i8"), ("f32", "i1"), ("f64", "i1"), ("i64", "i1"), ("i1", "f32"), ("i1", "i64"), ("i1", "f64"),
]
CASES = [
    Case("cast", ((shape, src),), (shape, dst), dynamic=dyn, tag=f"to_{dst}", oracle=lambda x, dst=dst: x.to(TORCH[dst]))
    for src, dst in PAIRS for shape, dyn in (((4, 16), ()), ((3, 16), (True,)))
]

_MODULE: dict[str, object] = {}


def _inputs(src: str, dst: str, shape, rng) -> np.ndarray:
    """Values that stress the conversion, all with a defined result in PyTorch."""
    if src == "i1":
        return rng.integers(0, 2, size=shape).astype(np.int8)
    if src.startswith("i"):
        info = np.iinfo(NUMPY[src])
        x = rng.integers(info.min, info.max, size=shape, dtype=NUMPY[src], endpoint=True)
        x.reshape(-1)[:4] = [0, 1, -1, info.max]
        return x
    dtype = NUMPY[src]
    if dst.startswith("i") and dst != "i1":  # within the target's range, not NaN
        info = np.iinfo(NUMPY[dst])
        x = rng.uniform(max(info.min, -1e6), min(info.max, 1e6), size=shape)
        x.reshape(-1)[:6] = [0.5, -0.5, 1.99, -1.99, -0.0, info.max // 2]
        return x.astype(dtype)
    with np.errstate(over="ignore"):
        x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, size=shape)).astype(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, 3.5e38, 1.0 + 2.0**-24, 1.0 + 3 * 2.0**-24,
                             70000.0, 6e-8, 1e-300]).astype(dtype)
    x.reshape(-1)[: specials.size] = specials
    return x


@pytest.mark.parametrize("case", CASES, ids=str)
def test_cast_matches_pytorch_exactly(case):
    if "all" not in _MODULE:
        _MODULE["all"] = compile_fused("".join(c.function() for c in CASES))
    (shape, src), (_, dst) = case.operands[0], case.result
    rng = np.random.default_rng(0)
    for batch in case.batches():
        x = _inputs(src, dst, (batch or shape[0], *shape[1:]), rng)
        got = _MODULE["all"][case.symbol](x)
        with np.errstate(all="ignore"):
            want = case.oracle(_torch(x, src))
        assert_exact(got, _numpy(want, dst))
