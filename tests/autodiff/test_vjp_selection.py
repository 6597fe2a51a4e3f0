"""The autodiff pass on the selection ops, first and second order, against PyTorch's
autograd (float64 oracle) in f64 and f32.

Every gradient here is the cotangent passed or zeroed by a mask (where, masked_fill,
clamp, clamp_backward, tril, triu), summed over broadcast dims where an operand was
broadcast (where): a sum of products with coefficients 0 and 1, so tests/oracle.py's
bound applies with A = the same gradient of |inputs|; clamp's input only selects (it is
passed unchanged to A). A mask comes in as i8 (`tests/bool_masks.py`) and is a constant of
PyTorch's function. clamp's inputs include values exactly at its bounds, where PyTorch's
gradient passes (both ends inclusive), and a case with min > max, where it is zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from bool_masks import compile_fused, tensor, to_i1
from vjp_harness import check, differentiated

A = (3, 4)
MASK = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]], np.int8)


def fused(source: str, order: int):
    module, name = differentiated(source, order)
    return compile_fused(module)[name]


@dataclass(frozen=True)
class Case:
    """`%y = <op>` on f's float arguments %a0, %a1, ... (after the mask %m, if `mask`)."""

    name: str
    op: str
    shapes: tuple[tuple[int, ...], ...]
    out: tuple[int, ...]
    fn: object
    mask: tuple[int, ...] | None = None
    selects: tuple[int, ...] = ()

    def source(self, element: str) -> str:
        params = [f"%a{i}: {tensor(s, element)}" for i, s in enumerate(self.shapes)]
        body, types = "", {f"a{i}": tensor(s, element) for i, s in enumerate(self.shapes)}
        if self.mask is not None:
            params.insert(0, f"%m: {tensor(self.mask, 'i8')}")
            body, mask = to_i1("m", self.mask)
            types[mask] = tensor(self.mask, "i1")
        types = [types[name] for name in re.findall(r"%(\w+)", self.op)]
        result = tensor(self.out, element)
        return (
            f"func.func @f({', '.join(params)}) -> {result} {{\n{body}"
            f"  %y = {self.op} : ({', '.join(types)}) -> {result}\n  return %y : {result}\n}}\n"
        )

    def leading(self) -> tuple[np.ndarray, ...]:
        return () if self.mask is None else (MASK[: self.mask[0], : self.mask[1]] if len(self.mask) == 2 else MASK[0],)

    def torch_fn(self):
        if self.mask is None:
            return self.fn
        mask = torch.from_numpy(self.leading()[0].astype(bool))
        return lambda *a: self.fn(mask, *a)


def _clamp_at_bounds(x: torch.Tensor, lo, hi) -> torch.Tensor:
    return torch.clamp(x, lo, hi)


CASES = [
    Case("where", "rlx.where %m_i1, %a0, %a1", (A, A), A, torch.where, mask=A),
    Case("where_broadcast", "rlx.where %m_i1, %a0, %a1", ((4,), (3, 1)), A, torch.where, mask=A),
    Case("masked_fill", "rlx.masked_fill %a0, %m_i1 value -3.0", (A,), A, lambda m, x: x.masked_fill(m, -3.0), mask=A),
    Case("masked_fill_broadcast", "rlx.masked_fill %a0, %m_i1 value 0.0", ((2, 3, 4),), (2, 3, 4),
         lambda m, x: x.masked_fill(m, 0.0), mask=(4,)),
    Case("clamp", "rlx.clamp %a0 min -0.5 max 0.5", (A,), A, lambda x: torch.clamp(x, -0.5, 0.5), selects=(0,)),
    Case("clamp_min", "rlx.clamp %a0 min 0.0", (A,), A, lambda x: torch.clamp(x, min=0.0), selects=(0,)),
    Case("clamp_min_above_max", "rlx.clamp %a0 min 1.0 max -1.0", (A,), A, lambda x: torch.clamp(x, 1.0, -1.0), selects=(0,)),
    Case("clamp_backward", "rlx.clamp_backward %a0, %a1 min -0.5 max 0.5", (A, A), A,
         lambda dy, x: torch.autograd.grad(torch.clamp(x, -0.5, 0.5), x, dy, create_graph=True)[0]
         if x.requires_grad else torch.where((x >= -0.5) & (x <= 0.5), dy, 0.0), selects=(1,)),
    Case("tril", "rlx.tril %a0 diagonal -1", ((2, 3, 4),), (2, 3, 4), lambda x: torch.tril(x, -1)),
    Case("triu", "rlx.triu %a0 diagonal 1", ((2, 3, 4),), (2, 3, 4), lambda x: torch.triu(x, 1)),
]
PARAMS = [
    pytest.param(case, order, element, id=f"{case.name}-order{order}-{element}")
    for case in CASES for order, element in ((1, "f32"), (1, "f64"), (2, "f64"))
]
DTYPES = {"f32": np.float32, "f64": np.float64}


@pytest.mark.parametrize("case, order, element", PARAMS)
def test_vjp_matches_pytorch(case, order, element):
    check(case.source(element), case.torch_fn(), case.shapes, DTYPES[element], order, selects=case.selects,
          label=case.name, leading=case.leading(), compiled=fused)


def test_clamp_gradient_passes_exactly_at_the_bounds():
    """x at min and at max gets the cotangent (ATen's `min <= x <= max`), just outside gets 0."""
    case = next(c for c in CASES if c.name == "clamp")
    x = np.array([[-0.5, 0.5, -0.5000001, 0.5000001]] * 3)
    y_bar = np.full(A, 2.0)
    (got,) = (fused(case.source("f64"), 1)(x, y_bar),)
    xt = torch.from_numpy(x).requires_grad_()
    want = torch.autograd.grad(torch.clamp(xt, -0.5, 0.5), xt, torch.from_numpy(y_bar))[0].numpy()
    np.testing.assert_array_equal(got, want)
    assert (got[:, :2] == 2.0).all() and (got[:, 2:] == 0.0).all()
