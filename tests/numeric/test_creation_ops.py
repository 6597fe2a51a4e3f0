"""The creation ops lowered and run natively, against PyTorch 2.13 (CPU): `rlx.cast` against
`Tensor.to(dtype)`, `rlx.arange` against `torch.arange` (its length and values, exact),
`rlx.full` against `torch.full` (static, 0-d, integer, bool and a dynamic batch).

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

from bool_masks import compile_fused, tensor, to_i8
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


# -- arange and full ------------------------------------------------------------------------

ARANGE = [  # start, end, step, element
    (0.0, 1.0, 0.1, "f32"), (0.0, 1.0, 0.1, "f64"), (1.0, 2.5, 0.5, "f32"), (-1.0, 1.0, 0.3, "f64"),
    (0.0, 0.3, 0.1, "f64"), (10.0, 0.0, -3.0, "i64"), (0.0, 5.0, 1.0, "i32"), (-7.0, 8.0, 4.0, "i64"),
    (3.0, 3.0, 1.0, "f32"),
]


def _arange_length(start, end, step, element) -> int:
    """PyTorch's own length (the oracle), not ours."""
    return torch.arange(start, end, step, dtype=TORCH[element]).numel() if element.startswith("f") else \
        torch.arange(int(start), int(end), int(step), dtype=TORCH[element]).numel()


def _literal(value: float) -> str:
    text = repr(float(value))
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


def _arange_function(index: int, start, end, step, element) -> str:
    result = f"tensor<{_arange_length(start, end, step, element)}x{element}>"
    return (
        f"func.func @arange{index}() -> {result} {{\n"
        f"  %y = rlx.arange start {_literal(start)} end {_literal(end)} step {_literal(step)} : {result}\n"
        f"  return %y : {result}\n}}\n"
    )


FULL = [  # shape, value, element, dynamic
    ((2, 3), 2.5, "f32", False), ((), -1.0e9, "f64", False), ((3, 4), 7.0, "i64", False),
    ((3, 4), 0.1, "f32", True), ((2, 2), 1.0, "i1", False),
]


def _full_function(index: int, shape, value, element, dynamic) -> str:
    result = tensor(shape, element, dynamic)
    params = f"%x: {tensor(shape, 'f32', True)}" if dynamic else ""
    sizes = "(%n)" if dynamic else ""
    size_types = "index" if dynamic else ""
    body = "  %c0 = arith.constant 0 : index\n  %n = tensor.dim %x, %c0 : " + tensor(shape, "f32", True) + "\n" if dynamic else ""
    body += f"  %y = rlx.full{sizes} value {_literal(value)} : ({size_types}) -> {result}\n"
    out, returned = "y", result
    if element == "i1":
        text, out = to_i8("y", shape, dynamic)
        body += text
        returned = tensor(shape, "i8", dynamic)
    return f"func.func @full{index}({params}) -> {returned} {{\n{body}  return %{out} : {returned}\n}}\n"


_CREATED: dict[str, object] = {}


def _created():
    if "all" not in _CREATED:
        text = "".join(_arange_function(i, *c) for i, c in enumerate(ARANGE))
        text += "".join(_full_function(i, *c) for i, c in enumerate(FULL))
        _CREATED["all"] = compile_fused(text)
    return _CREATED["all"]


@pytest.mark.parametrize("index", range(len(ARANGE)), ids=[f"arange_{s}_{e}_{t}_{el}" for s, e, t, el in ARANGE])
def test_arange_matches_pytorch(index):
    """The length is PyTorch's ceil((end - start) / step) in double (arange(0, 1, 0.1) has 10
    elements; (0.3 - 0) / 0.1 is 2.9999999999999996, so arange(0, 0.3, 0.1) has 3), and the
    values are start + step * i formed in double and rounded once, bit for bit."""
    check_arange(index, _created()[f"arange{index}"])


def check_arange(index: int, function) -> None:
    start, end, step, element = ARANGE[index]
    got = function()
    if element.startswith("f"):
        want = torch.arange(start, end, step, dtype=TORCH[element])
    else:
        want = torch.arange(int(start), int(end), int(step), dtype=TORCH[element])
    assert_exact(got, want.numpy())


@pytest.mark.parametrize("index", range(len(FULL)), ids=[f"full_{'x'.join(map(str, s)) or '0d'}_{el}{'_dyn' if d else ''}"
                                                         for s, _, el, d in FULL])
def test_full_matches_pytorch(index):
    check_full(index, _created()[f"full{index}"])


def check_full(index: int, function) -> None:
    shape, value, element, dynamic = FULL[index]
    for batch in ([shape[0], 5] if dynamic else [None]):
        sizes = (batch, *shape[1:]) if dynamic else shape
        got = function(np.zeros(sizes, np.float32)) if dynamic else function()
        fill = bool(value) if element == "i1" else int(value) if element.startswith("i") else value
        want = torch.full(sizes, fill, dtype=TORCH[element])
        assert_exact(got, _numpy(want, element))
