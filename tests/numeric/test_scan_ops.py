"""The scan ops, lowered to their loop and run natively, against PyTorch 2.13 (CPU).

Oracle, in float64 on our inputs upcast: for the linear scan the recurrence as a PyTorch
loop over the steps (`scan_reference`), for cumsum ATen's `torch.cumsum` (reversed:
flipped, summed, flipped back). Error bound (`oracle.assert_matches`, |got - want| <= k (eps + eps64) A,
k = 16): h[t] = sum_{s <= t} (a[s+1] ... a[t]) x[s] is a sum of products with coefficient
1, so A is the same scan of |a| and |x| (cumsum: of |x|); each step rounds one product
and one sum. The
coefficients are drawn from [-1, 1] (a stable recurrence, as a state-space model's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch

from oracle import assert_matches, tensor_type
from scan_reference import linear_scan

DTYPES = {"f32": np.float32, "f64": np.float64}


@dataclass(frozen=True)
class Case:
    shape: tuple[int, ...]
    dim: int
    reverse: bool = False
    dtype: str = "f32"
    dynamic: bool = False
    """A dynamic batch (`?` on dim 0, never the scanned dim): run with batch sizes shape[0] and shape[0] + 2."""
    op: str = "linear_scan"
    """`linear_scan` (operands a, x) or `cumsum` (operand x)."""

    def __str__(self) -> str:
        shape = "x".join(("?" if self.dynamic and i == 0 else "") + str(d) for i, d in enumerate(self.shape))
        return f"{self.op}-{shape}-dim{self.dim}{'-reverse' if self.reverse else ''}-{self.dtype}"

    @property
    def symbol(self) -> str:
        return str(self).replace("?", "dyn").replace("-", "_")

    def text(self) -> str:
        ty = tensor_type(self.shape, DTYPES[self.dtype], dynamic_batch=self.dynamic)
        reverse = " reverse true" if self.reverse else ""
        names = ["%a", "%x"] if self.op == "linear_scan" else ["%x"]
        params = ", ".join(f"{name}: {ty}" for name in names)
        return (
            f"func.func @{self.symbol}({params}) -> {ty} {{\n"
            f"  %h = rlx.{self.op} {', '.join(names)} dim {self.dim}{reverse} : ({', '.join([ty] * len(names))}) -> {ty}\n"
            f"  return %h : {ty}\n}}\n"
        )

    def batches(self) -> list[int]:
        return [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]]

    def inputs(self, rng, n: int) -> list[np.ndarray]:
        shape = (n, *self.shape[1:])
        dtype = DTYPES[self.dtype]
        x = rng.standard_normal(shape).astype(dtype)
        return [rng.uniform(-1.0, 1.0, shape).astype(dtype), x] if self.op == "linear_scan" else [x]

    def oracle(self, *inputs: torch.Tensor) -> torch.Tensor:
        if self.op == "linear_scan":
            return linear_scan(*inputs, self.dim, self.reverse)
        (x,) = inputs
        if self.reverse:
            return torch.cumsum(x.flip(self.dim), self.dim).flip(self.dim)
        return torch.cumsum(x, self.dim)

    def check(self, function) -> None:
        """`function` (this case's compiled `@symbol`) against the PyTorch loop, at each batch size."""
        for seed, n in enumerate(self.batches()):
            inputs = self.inputs(np.random.default_rng(seed), n)
            got = function(*inputs)
            assert got.shape == inputs[-1].shape and got.dtype == inputs[-1].dtype
            assert_matches(got, self.oracle, inputs, label=str(self))


CASES = [
    *(Case((3, 5, 4), dim, reverse, dtype) for dim in range(3) for reverse in (False, True) for dtype in DTYPES),
    Case((7,), 0),
    Case((7,), 0, reverse=True, dtype="f64"),
    Case((2, 1, 3), 1),  # T = 1: h = x
    Case((1, 4), 0, reverse=True, dtype="f64"),  # T = 1 on the leading dim
    Case((2, 6, 3), 1, dynamic=True),
    Case((2, 3, 6), 2, reverse=True, dynamic=True, dtype="f64"),
    Case((2, 300), 1),  # a long scan: the loop, not an unrolling
    *(Case((3, 5, 4), dim, reverse, dtype, op="cumsum") for dim in range(3) for reverse in (False, True) for dtype in DTYPES),
    Case((1, 3), 0, op="cumsum"),  # T = 1
    Case((2, 9), 1, reverse=True, dynamic=True, op="cumsum"),
]


@pytest.fixture(scope="module")
def scan_module(compile_rlx):
    """Every case as one function of one module, compiled once."""
    return compile_rlx("".join(case.text() for case in CASES))


def test_case_ids_are_unique():
    assert len({str(c) for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_scan_op_matches_pytorch(case, scan_module):
    case.check(scan_module[case.symbol])
