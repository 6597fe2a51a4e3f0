"""The scan ops, lowered to their loop and run natively, against PyTorch 2.13 (CPU).

Oracle: the recurrence as a PyTorch loop over the steps (`scan_reference`), in float64 on
our inputs upcast. Error bound (`oracle.assert_matches`, |got - want| <= k (eps + eps64) A,
k = 16): h[t] = sum_{s <= t} (a[s+1] ... a[t]) x[s] is a sum of products with coefficient
1, so A is the same scan of |a| and |x|; each step rounds one product and one sum. The
coefficients are drawn from [-1, 1] (a stable recurrence, as a state-space model's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

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

    def __str__(self) -> str:
        shape = "x".join(("?" if self.dynamic and i == 0 else "") + str(d) for i, d in enumerate(self.shape))
        return f"{shape}-dim{self.dim}{'-reverse' if self.reverse else ''}-{self.dtype}"

    @property
    def symbol(self) -> str:
        return "linear_scan_" + str(self).replace("?", "dyn").replace("-", "_")

    def text(self) -> str:
        ty = tensor_type(self.shape, DTYPES[self.dtype], dynamic_batch=self.dynamic)
        reverse = " reverse true" if self.reverse else ""
        return (
            f"func.func @{self.symbol}(%a: {ty}, %x: {ty}) -> {ty} {{\n"
            f"  %h = rlx.linear_scan %a, %x dim {self.dim}{reverse} : ({ty}, {ty}) -> {ty}\n"
            f"  return %h : {ty}\n}}\n"
        )

    def batches(self) -> list[int]:
        return [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]]

    def inputs(self, rng, n: int) -> list[np.ndarray]:
        shape = (n, *self.shape[1:])
        dtype = DTYPES[self.dtype]
        return [rng.uniform(-1.0, 1.0, shape).astype(dtype), rng.standard_normal(shape).astype(dtype)]

    def check(self, function) -> None:
        """`function` (this case's compiled `@symbol`) against the PyTorch loop, at each batch size."""
        for seed, n in enumerate(self.batches()):
            inputs = self.inputs(np.random.default_rng(seed), n)
            got = function(*inputs)
            assert got.shape == inputs[1].shape and got.dtype == inputs[1].dtype
            assert_matches(got, lambda a, x: linear_scan(a, x, self.dim, self.reverse), inputs, label=str(self))


CASES = [
    *(Case((3, 5, 4), dim, reverse, dtype) for dim in range(3) for reverse in (False, True) for dtype in DTYPES),
    Case((7,), 0),
    Case((7,), 0, reverse=True, dtype="f64"),
    Case((2, 1, 3), 1),  # T = 1: h = x
    Case((1, 4), 0, reverse=True, dtype="f64"),  # T = 1 on the leading dim
    Case((2, 6, 3), 1, dynamic=True),
    Case((2, 3, 6), 2, reverse=True, dynamic=True, dtype="f64"),
    Case((2, 300), 1),  # a long scan: the loop, not an unrolling
]


@pytest.fixture(scope="module")
def scan_module(compile_rlx):
    """Every case as one function of one module, compiled once."""
    return compile_rlx("".join(case.text() for case in CASES))


def test_case_ids_are_unique():
    assert len({str(c) for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_linear_scan_matches_a_pytorch_loop(case, scan_module):
    case.check(scan_module[case.symbol])
