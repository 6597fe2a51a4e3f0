"""`rlx.adaptive_{avg,max}_pool{2,3}d_backward` against `torch.autograd.grad` of
F.adaptive_avg_pool2d/3d and F.adaptive_max_pool2d/3d.

Sizes that do not divide (windows of two lengths, overlapping), outputs larger than the
input (a cell in several windows), sizes that divide (the pool form), global pools, f32
and f64, and a dynamic batch run at two sizes. The max-pool inputs stress PyTorch's rule
(the first maximum of a window in row-major order takes dy; a NaN is the max, the last
NaN of a window wins): integer-valued inputs full of ties, a constant input, and NaNs.
The max gradient moves dy without arithmetic except sums in PyTorch's order, so it must
match bit for bit; the average is checked within the error model. Every configuration is
one function of one module per op, compiled once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_exact, assert_matches, tensor_type

ADAPTIVE = {
    ("avg", 2): F.adaptive_avg_pool2d,
    ("avg", 3): F.adaptive_avg_pool3d,
    ("max", 2): F.adaptive_max_pool2d,
    ("max", 3): F.adaptive_max_pool3d,
}
MAX_INPUTS = ("random", "ties", "constant", "nan")


@dataclass(frozen=True)
class AdaptiveCase:
    kind: str  # "avg" or "max"
    spatial: tuple[int, ...]
    out: tuple[int, ...]
    n: int = 2
    c: int = 3
    dtype: type = np.float32
    dynamic: bool = False

    @property
    def rank(self) -> int:
        return len(self.spatial)

    def __str__(self) -> str:
        x = "x".join
        return (
            f"{self.kind}{self.rank}d-in{x(map(str, self.spatial))}-out{x(map(str, self.out))}"
            f"-n{self.n}{'dyn' if self.dynamic else ''}-{np.dtype(self.dtype).name}"
        )

    @property
    def symbol(self) -> str:
        return "adaptive_" + re.sub(r"\W", "_", str(self))

    def function(self) -> str:
        dy = tensor_type((self.n, self.c, *self.out), self.dtype, self.dynamic)
        dx = tensor_type((self.n, self.c, *self.spatial), self.dtype, self.dynamic)
        op = f"rlx.adaptive_{self.kind}_pool{self.rank}d_backward"
        if self.kind == "avg":
            return (
                f"func.func @{self.symbol}(%dy: {dy}) -> {dx} {{\n"
                f"  %dx = {op} %dy : ({dy}) -> {dx}\n  return %dx : {dx}\n}}\n"
            )
        return (
            f"func.func @{self.symbol}(%x: {dx}, %dy: {dy}) -> {dx} {{\n"
            f"  %dx = {op} %x, %dy : ({dx}, {dy}) -> {dx}\n  return %dx : {dx}\n}}\n"
        )

    def batches(self) -> list[int]:
        return [self.n, self.n + 2] if self.dynamic else [self.n]

    def x(self, n: int, kind: str) -> np.ndarray:
        shape = (n, self.c, *self.spatial)
        rng = np.random.default_rng(n)
        if kind == "random":
            return rng.standard_normal(shape).astype(self.dtype)
        if kind == "constant":
            return np.full(shape, 1.5, self.dtype)
        x = rng.integers(-2, 3, shape).astype(self.dtype)  # ties in every window
        if kind == "nan":
            flat = x.reshape(n * self.c, -1)
            flat[0, 0] = flat[0, 1] = np.nan  # two NaNs in one window: the last one wins
            flat[-1, flat.shape[1] // 2] = np.nan
        return x

    def dy(self, n: int) -> np.ndarray:
        return np.random.default_rng(n + 100).standard_normal((n, self.c, *self.out)).astype(self.dtype)

    def oracle_max(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        x = x.clone().requires_grad_()
        return torch.autograd.grad(ADAPTIVE[("max", self.rank)](x, self.out), x, dy)[0]

    def oracle_avg(self, n: int):
        def adaptive_avg_pool_backward(dy: torch.Tensor) -> torch.Tensor:
            x = torch.zeros((n, self.c, *self.spatial), dtype=dy.dtype, requires_grad=True)
            return torch.autograd.grad(ADAPTIVE[("avg", self.rank)](x, self.out), x, dy)[0]
        return adaptive_avg_pool_backward

    def check(self, module, kind: str = "random") -> None:
        for n in self.batches():
            dy = self.dy(n)
            if self.kind == "avg":
                assert_matches(module[self.symbol](dy), self.oracle_avg(n), [dy], label=str(self))
            else:
                x = self.x(n, kind)
                want = self.oracle_max(torch.from_numpy(x), torch.from_numpy(dy))
                assert_exact(module[self.symbol](x, dy), want, dtype=self.dtype)


F64 = np.float64


def shapes(kind: str) -> list[AdaptiveCase]:
    return [
        AdaptiveCase(kind, (7, 5), (3, 2)),  # windows that do not divide, some overlapping
        AdaptiveCase(kind, (3, 4), (5, 7)),  # output > input: cells in several windows
        AdaptiveCase(kind, (8, 6), (4, 3)),  # sizes divide: the pool form
        AdaptiveCase(kind, (8, 4), (4, 2), n=1),  # the pool form, windows 2 wide
        AdaptiveCase(kind, (5, 5), (1, 1)),  # global
        AdaptiveCase(kind, (9, 10), (4, 10), dtype=F64, dynamic=True),  # one axis divides, one does not
        AdaptiveCase(kind, (6, 6), (3, 3), dtype=F64, dynamic=True, n=1),  # divides, dynamic batch
        AdaptiveCase(kind, (7, 5, 4), (3, 2, 4), c=2),
        AdaptiveCase(kind, (3, 2, 5), (4, 3, 2), c=2, dtype=F64),
        AdaptiveCase(kind, (4, 6, 2), (2, 3, 1), c=2, dynamic=True),  # divides
        AdaptiveCase(kind, (4, 3, 5), (1, 1, 1), c=2, dtype=F64, n=1),  # global
    ]


MATRICES = {"avg": shapes("avg"), "max": shapes("max")}
_compiled: dict[str, object] = {}


@pytest.fixture
def module_of(compile_rlx):
    def get(kind: str):
        if kind not in _compiled:
            _compiled[kind] = compile_rlx("\n".join(case.function() for case in MATRICES[kind]))
        return _compiled[kind]
    return get


def test_case_ids_are_unique():
    ids = [str(c) for matrix in MATRICES.values() for c in matrix]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", MATRICES["avg"], ids=str)
def test_adaptive_avg_pool_backward_matches_pytorch(case, module_of):
    case.check(module_of("avg"))


@pytest.mark.parametrize("inputs", MAX_INPUTS)
@pytest.mark.parametrize("case", MATRICES["max"], ids=str)
def test_adaptive_max_pool_backward_matches_pytorch(case, inputs, module_of):
    case.check(module_of("max"), inputs)


def _decomposed_op_names(text: str) -> list[str]:
    from rlx_mlir.ir import make_context, parse_module, verify_module
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    ctx = make_context()
    module = parse_module(ctx, text, "<ir-size>")
    DecomposeBackwardPass().apply(ctx, module)
    verify_module(module)
    # Constants aside: a size that happens to equal another constant of a body shares its op.
    return [op.name for op in module.walk() if op.name != "arith.constant"]


@pytest.mark.parametrize("kind", ["avg", "max"])
@pytest.mark.parametrize(
    "small, large",
    [(((7, 5), (3, 2)), ((71, 53), (30, 20))), (((7, 5, 4), (3, 2, 3)), ((37, 25, 24), (13, 12, 7)))],
    ids=["2d", "3d"],
)
def test_ir_size_does_not_depend_on_tensor_sizes(kind, small, large):
    """Non-dividing windows at any size: the same ops (the loops' extents are in the types)."""
    small_ops = _decomposed_op_names(AdaptiveCase(kind, *small).function())
    large_ops = _decomposed_op_names(AdaptiveCase(kind, *large).function())
    assert not any(name.startswith("rlx.") for name in small_ops)
    assert small_ops == large_ops


def test_windows_of_a_cell_are_the_windows_that_contain_it():
    """`adaptive_windows_of_cell` against its definition, over every small size pair."""
    from rlx_mlir.geometry import adaptive_window, adaptive_windows_of_cell, adaptive_windows_per_cell

    for size in range(1, 13):
        for out in range(1, 13):
            counts = []
            for cell in range(size):
                first, end = adaptive_windows_of_cell(cell, size, out)
                windows = [adaptive_window(o, size, out) for o in range(out)]
                containing = [o for o, (start, stop) in enumerate(windows) if start <= cell < stop]
                assert list(range(first, end)) == containing, (size, out, cell)
                counts.append(end - first)
            assert adaptive_windows_per_cell(size, out) == max(counts)
