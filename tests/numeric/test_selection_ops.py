"""The selection ops (where, masked_fill, clamp and its gradient, tril, triu), lowered and run
natively, against PyTorch 2.13 (CPU).

Every op only selects: each result element is an input element, a property converted to
the element type, or 0. So every case is exact, bit for bit (NaN where NaN), against
PyTorch in the same dtype, floats (f32, f64), i64 and bool. clamp's gradient is compared
with `torch.autograd.grad` of `torch.clamp`, at the bounds themselves, at NaN and with
min > max.

Bools cross the function boundary as i8 and are compiled with fusion (`tests/bool_masks.py`
says why: MLIR 22 cannot load or store an i1 memref).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch

from bool_masks import compile_fused, tensor, to_i1, to_i8
from oracle import assert_exact

NUMPY = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i1": np.int8}
TORCH = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64, "i1": torch.bool}


@dataclass(frozen=True)
class Case:
    """`%y = rlx.<op> <operands><attrs>`; each operand a (shape, element) with `?` batch if dynamic."""

    op: str
    operands: tuple[tuple[tuple[int, ...], str], ...]
    result: tuple[tuple[int, ...], str]
    attrs: str = ""
    dynamic: tuple[bool, ...] = ()
    tag: str = ""
    generic: str = ""
    """Properties in the generic form (`<{value = ...}>`), for values the custom form cannot
    spell (NaN, infinities)."""
    oracle: object = field(default=None, compare=False, hash=False)

    def __str__(self) -> str:
        shapes = "_".join(("x".join(map(str, s)) or "0d") + e for s, e in self.operands)
        attrs = re.sub(r"\W+", "_", (self.attrs or self.generic).replace("-", "neg")).strip("_")
        dyn = "_dyn" if any(self.dynamic) else ""
        return f"{self.op}_{shapes}{'_' + attrs if attrs else ''}{'_' + self.tag if self.tag else ''}{dyn}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    def is_dynamic(self, i: int) -> bool:
        return bool(self.dynamic) and self.dynamic[i]

    def function(self) -> str:
        body, params, args, types = "", [], [], []
        for i, (shape, element) in enumerate(self.operands):
            dyn = self.is_dynamic(i)
            outer = "i8" if element == "i1" else element
            params.append(f"%a{i}: {tensor(shape, outer, dyn)}")
            name = f"a{i}"
            if element == "i1":
                text, name = to_i1(name, shape, dyn)
                body += text
            args.append(f"%{name}")
            types.append(tensor(shape, element, dyn))
        shape, element = self.result
        dyn = any(self.dynamic)
        result = tensor(shape, element, dyn)
        call = f'"rlx.{self.op}"({", ".join(args)}) <{{{self.generic}}}>' if self.generic else f"rlx.{self.op} {', '.join(args)}{self.attrs}"
        body += f"  %y = {call} : ({', '.join(types)}) -> {result}\n"
        out = "y"
        if element == "i1":
            text, out = to_i8("y", shape, dyn)
            body += text
        returned = tensor(shape, "i8" if element == "i1" else element, dyn)
        return f"func.func @{self.symbol}({', '.join(params)}) -> {returned} {{\n{body}  return %{out} : {returned}\n}}\n"

    def batches(self) -> list[int | None]:
        return [None] if not any(self.dynamic) else [self.operands[self.dynamic.index(True)][0][0], 5]

    def inputs(self, batch, rng) -> list[np.ndarray]:
        arrays = []
        for i, (shape, element) in enumerate(self.operands):
            shape = (batch, *shape[1:]) if batch is not None and self.is_dynamic(i) else shape
            arrays.append(_random(rng, shape, element))
        return arrays


SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 6.0, -2.0]
"""Float values every float input starts with: NaN, infinities, zeros and clamp's bounds."""


def _random(rng, shape, element) -> np.ndarray:
    if element == "i1":
        return rng.integers(0, 2, size=shape).astype(np.int8)
    if element == "i64":
        return rng.integers(-8, 8, size=shape).astype(np.int64)
    x = np.asarray(rng.standard_normal(shape) * 4).astype(NUMPY[element])
    flat = x.reshape(-1)
    n = min(flat.size, len(SPECIALS))
    flat[:n] = np.array(SPECIALS[:n], NUMPY[element])
    return x


def _torch(array: np.ndarray, element: str) -> torch.Tensor:
    tensor = torch.from_numpy(np.ascontiguousarray(array))
    return tensor.to(torch.bool) if element == "i1" else tensor


def _numpy(tensor: torch.Tensor, element: str) -> np.ndarray:
    return tensor.to(torch.int8).numpy() if element == "i1" else tensor.numpy()


def _clamp_grad(low, high):
    def grad(dy, x):
        x = x.detach().requires_grad_()
        return torch.autograd.grad(torch.clamp(x, low, high), x, dy)[0]

    return grad


def _literal(value: float) -> str:
    """A float as MLIR's float literal spells it (`1.0e-40`, not Python's `1e-40`)."""
    text = repr(float(value))
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


def _bounds(low, high) -> str:
    return (f" min {_literal(low)}" if low is not None else "") + (f" max {_literal(high)}" if high is not None else "")


FLOATS = ("f32", "f64")
WHERE_SHAPES = [  # condition, input, other, result, dynamic
    ((2, 3), (2, 3), (2, 3), (2, 3), ()),
    ((4, 1), (3,), (), (4, 3), ()),          # a Python scalar other, both expand
    ((), (2, 3), (2, 1), (2, 3), ()),
    ((3, 4), (3, 4), (4,), (3, 4), (True, True, False)),
]
CASES = [
    Case("where", ((c, "i1"), (a, e), (o, e)), (r, e), dynamic=d, oracle=torch.where)
    for e in (*FLOATS, "i64", "i1") for c, a, o, r, d in WHERE_SHAPES
]
MASKED_FILL = [  # input, mask, value, dynamic
    ((2, 4, 4), (4, 4), -1.0e9, ()),
    ((3, 4), (3, 4), 2.5, ()),
    ((3, 4), (1, 4), 1.0e-40, (True, False)),  # subnormal in f32
    ((3, 4), (), -0.0, ()),
]
CASES += [
    Case("masked_fill", ((x, e), (m, "i1")), (x, e), f" value {_literal(v)}", dynamic=d,
         oracle=lambda x, m, v=v: x.masked_fill(m, v))
    for e in FLOATS for x, m, v, d in MASKED_FILL
]
# The attention mask's -inf and a NaN fill, in the generic form.
CASES += [
    Case("masked_fill", (((2, 3, 3), e), ((3, 3), "i1")), ((2, 3, 3), e), generic=f"value = {bits} : f64", tag=name,
         oracle=lambda x, m, v=v: x.masked_fill(m, v))
    for e in FLOATS for name, bits, v in (("neg_inf", "0xFFF0000000000000", -np.inf), ("nan", "0x7FF8000000000000", np.nan))
]
CASES += [
    Case("masked_fill", (((3, 4), e), ((3, 1), "i1")), ((3, 4), e), f" value {_literal(v)}", oracle=lambda x, m, v=v: x.masked_fill(m, v))
    for e, v in (("i64", -7.0), ("i1", 1.0), ("i1", 0.0))
]
CLAMP_BOUNDS = [(-1.0, 2.0), (0.0, None), (None, 6.0), (2.0, -1.0), (-1.0, -1.0)]
CASES += [
    Case("clamp", ((s, e),), (s, e), _bounds(lo, hi), dynamic=d, oracle=lambda x, lo=lo, hi=hi: torch.clamp(x, lo, hi))
    for e in FLOATS for lo, hi in CLAMP_BOUNDS for s, d in (((4, 8), ()), ((3, 8), (True,)))
]
CASES += [
    # PyTorch's int bounds (a float bound would promote the result to float)
    Case("clamp", (((4, 8), "i64"),), ((4, 8), "i64"), _bounds(lo, hi), oracle=lambda x, lo=lo, hi=hi: torch.clamp(
        x, None if lo is None else int(lo), None if hi is None else int(hi)))
    for lo, hi in ((-3.0, 2.0), (None, 0.0), (4.0, -4.0))
]
CASES += [
    Case("clamp_backward", ((s, e), (s, e)), (s, e), _bounds(lo, hi), dynamic=d, oracle=_clamp_grad(lo, hi))
    for e in FLOATS for lo, hi in CLAMP_BOUNDS for s, d in (((4, 8), ()), ((3, 8), (True, True)))
]
TRIANGLE = [((4, 5), 0, ()), ((4, 5), 2, ()), ((4, 5), -1, ()), ((4, 5), -7, ()), ((4, 5), 9, ()),
            ((2, 3, 4, 5), 1, ()), ((3, 3, 4), -2, (True,))]
CASES += [
    Case(op, ((s, e),), (s, e), f" diagonal {k}" if k else "", dynamic=d,
         oracle=lambda x, op=op, k=k: getattr(torch, op)(x, k))
    for op in ("tril", "triu") for e in (*FLOATS, "i64", "i1") for s, k, d in TRIANGLE
]

_MODULE: dict[str, object] = {}


def _module(compile_rlx):
    if "all" not in _MODULE:
        _MODULE["all"] = compile_fused("".join(c.function() for c in CASES))
    return _MODULE["all"]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_selection_matches_pytorch_exactly(case, compile_rlx):
    module = _module(compile_rlx)
    rng = np.random.default_rng(0)
    for batch in case.batches():
        inputs = case.inputs(batch, rng)
        got = module[case.symbol](*inputs)
        want = case.oracle(*(_torch(x, e) for x, (_, e) in zip(inputs, case.operands)))
        assert_exact(got, _numpy(want, case.result[1]))


def test_clamp_gradient_is_inclusive_at_both_bounds(compile_rlx):
    """x exactly at min and at max passes the gradient (ATen's `min <= x <= max`)."""
    case = next(c for c in CASES if c.op == "clamp_backward" and c.attrs == " min -1.0 max 2.0" and not c.dynamic
                and c.operands[0][1] == "f64")
    x = np.array([[-1.0, 2.0, -1.0000001, 2.0000001, np.nan, 0.5, -np.inf, np.inf]] * 4)
    dy = np.arange(32, dtype=np.float64).reshape(4, 8) + 1
    got = _module(compile_rlx)[case.symbol](dy, x)
    assert_exact(got, _clamp_grad(-1.0, 2.0)(torch.from_numpy(dy), torch.from_numpy(x)).numpy())
    assert (got[0, :2] != 0).all() and (got[0, 2:5] == 0).all()
