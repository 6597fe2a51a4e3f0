"""`rlx.avg_pool{2,3}d_backward` with PyTorch's whole divisor semantics, against PyTorch autograd.

The cases cover ceil_mode (where it changes the output size and where it does not),
divisor_override, per-side padding and count_include_pad both ways, in 2-D and 3-D,
f32 and f64, with a dynamic batch run at two sizes. Every configuration is one function of
ONE module, compiled once.

The oracle is `torch.autograd.grad` of F.avg_pool2d/3d where PyTorch can state the pool
(symmetric padding). PyTorch's pools have no per-side padding, so for those cases the
oracle composes the pool from PyTorch ops with the same semantics (`composed_avg_pool`):
the window sums over x zero-padded per side, divided by a divisor that is itself a pool of
a ones tensor. `test_composed_oracle_is_pytorchs_pool` checks that composition against
F.avg_pool on symmetric cases, so the per-side oracle stands on PyTorch's own definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.geometry import Window
from oracle import assert_matches, tensor_type

AVG_POOL = {2: F.avg_pool2d, 3: F.avg_pool3d}


def _list(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def composed_avg_pool(x: torch.Tensor, window: Window, include_pad: bool, override: int) -> torch.Tensor:
    """PyTorch's avg pool with per-side padding, from PyTorch ops.

    Window o covers padded cells `[o*S, o*S + K)`. x is zero-padded by `low` before and, after
    each axis, by `high` plus however far ceil mode lets the last window run past the padded
    input (`reach_high - high`), so every window lies inside the padded tensor; the window
    sums are then a plain pool (padding 0, divisor 1), cut to the op's output size. The
    divisor pools a ones tensor the same way: ones over the padded input `[-low, n + high)`
    (count_include_pad: the window clipped there, PyTorch's `pool_size`) or over the input
    only (the cells inside the input), or is `divisor_override`.
    """
    rank = window.rank
    spatial = tuple(x.shape[2:])
    out = window.output_size(spatial)
    overhang = [max(0, r - h) for r, h in zip(window.reach_high(spatial), window.high)]

    def pad(t: torch.Tensor, low, high) -> torch.Tensor:
        sides = []
        for axis in reversed(range(rank)):  # F.pad lists the last axis first
            sides += [low[axis], high[axis]]
        return F.pad(t, sides)

    def window_sums(t: torch.Tensor) -> torch.Tensor:
        pooled = AVG_POOL[rank](t, window.kernel, window.stride, 0, divisor_override=1)
        return pooled[(slice(None), slice(None), *(slice(0, o) for o in out))]

    high = [h + e for h, e in zip(window.high, overhang)]
    sums = window_sums(pad(x, window.low, high))
    if override:
        return sums / override
    ones = torch.ones((1, 1, *spatial), dtype=x.dtype)
    if include_pad:
        padded = (n + lo + hi for n, lo, hi in zip(spatial, window.low, window.high))
        padded_ones = torch.ones((1, 1, *padded), dtype=x.dtype)
        counts = window_sums(pad(padded_ones, (0,) * rank, overhang))
    else:
        counts = window_sums(pad(ones, window.low, high))
    return sums / counts


@dataclass(frozen=True)
class AvgCase:
    spatial: tuple[int, ...]
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]  # r values (symmetric) or 2r (low then high)
    ceil_mode: bool = False
    include_pad: bool = True
    override: int = 0
    n: int = 2
    c: int = 3
    dtype: type = np.float32
    dynamic: bool = False

    @property
    def rank(self) -> int:
        return len(self.spatial)

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, self.padding, ceil_mode=self.ceil_mode)

    @property
    def out(self) -> tuple[int, ...]:
        return self.window.output_size(self.spatial)

    def __str__(self) -> str:
        x = "x".join
        parts = [
            f"{self.rank}d", f"in{x(map(str, self.spatial))}", f"k{x(map(str, self.kernel))}",
            f"s{x(map(str, self.stride))}", f"p{x(map(str, self.padding))}",
            "ceil" if self.ceil_mode else "floor", "incl" if self.include_pad else "excl",
        ]
        if self.override:
            parts.append(f"div{self.override}")
        parts.append(f"n{self.n}{'dyn' if self.dynamic else ''}")
        parts.append(np.dtype(self.dtype).name)
        return "-".join(parts)

    @property
    def symbol(self) -> str:
        return "avg_" + re.sub(r"\W", "_", str(self))

    def function(self) -> str:
        dy = tensor_type((self.n, self.c, *self.out), self.dtype, self.dynamic)
        dx = tensor_type((self.n, self.c, *self.spatial), self.dtype, self.dynamic)
        attrs = f"kernel_size {_list(self.kernel)} stride {_list(self.stride)} padding {_list(self.padding)}"
        attrs += f" ceil_mode {str(self.ceil_mode).lower()} count_include_pad {str(self.include_pad).lower()}"
        if self.override:
            attrs += f" divisor_override {self.override}"
        return (
            f"func.func @{self.symbol}(%dy: {dy}) -> {dx} {{\n"
            f"  %dx = rlx.avg_pool{self.rank}d_backward %dy {attrs} : ({dy}) -> {dx}\n"
            f"  return %dx : {dx}\n}}\n"
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        window = self.window
        if window.is_symmetric:
            return AVG_POOL[self.rank](
                x, self.kernel, self.stride, window.low, ceil_mode=self.ceil_mode,
                count_include_pad=self.include_pad, divisor_override=self.override or None,
            )
        return composed_avg_pool(x, window, self.include_pad, self.override)

    def oracle(self, n: int):
        def avg_pool_backward(dy: torch.Tensor) -> torch.Tensor:
            x = torch.zeros((n, self.c, *self.spatial), dtype=dy.dtype, requires_grad=True)
            return torch.autograd.grad(self.forward(x), x, dy)[0]
        return avg_pool_backward

    def check(self, module) -> None:
        for n in ([self.n, self.n + 2] if self.dynamic else [self.n]):
            dy = np.random.default_rng(n).standard_normal((n, self.c, *self.out)).astype(self.dtype)
            got = module[self.symbol](dy)
            assert_matches(got, self.oracle(n), [dy], label=f"avg_pool{self.rank}d_backward")


F64 = np.float64
CASES = [
    # ceil mode adds a window that overhangs the padded input: 6 + 2 - 3 -> 3 (floor) / 4 (ceil).
    *(AvgCase((6, 6), (3, 3), (2, 2), (1, 1), ceil_mode=True, include_pad=incl) for incl in (True, False)),
    # ceil mode that changes nothing (7 + 2 - 3 = 6 is even): the 2-D fast path takes it.
    AvgCase((7, 7), (3, 3), (2, 2), (1, 1), ceil_mode=True, include_pad=False),
    # stride > kernel: ceil mode adds a last window half past the input (10: 3 -> 4 windows).
    AvgCase((10, 9), (2, 2), (3, 3), (0, 0), ceil_mode=True, include_pad=True),
    # ceil mode's last window would start past the input: dropped (9: stays 3 windows).
    AvgCase((9, 9), (2, 2), (3, 3), (1, 1), ceil_mode=True, include_pad=False, dtype=F64),
    # divisor_override on each 2-D path: overlapping windows, tiling windows, ceil mode.
    AvgCase((7, 6), (3, 3), (2, 2), (1, 1), override=5),
    AvgCase((8, 8), (2, 2), (2, 2), (0, 0), override=3),
    AvgCase((6, 7), (3, 2), (2, 2), (1, 1), ceil_mode=True, include_pad=False, override=2),
    # per-side padding [low_h, low_w, high_h, high_w], both divisors.
    *(AvgCase((7, 6), (3, 2), (2, 1), (1, 0, 0, 1), include_pad=incl) for incl in (True, False)),
    AvgCase((8, 7), (4, 3), (3, 2), (2, 0, 1, 1), ceil_mode=True, include_pad=True),
    AvgCase((8, 7), (4, 3), (3, 2), (0, 1, 2, 0), ceil_mode=True, include_pad=False, dtype=F64, dynamic=True),
    AvgCase((5, 6), (3, 3), (1, 2), (0, 1, 1, 1), override=4, dynamic=True, n=1),
    # kernel = input, ceil mode and padding.
    AvgCase((5, 4), (5, 4), (1, 1), (2, 1), ceil_mode=True, include_pad=False),
    # 3-D: the rank-generic gather.
    AvgCase((5, 6, 7), (3, 3, 3), (2, 2, 2), (1, 1, 1), ceil_mode=True, include_pad=True, c=2),
    AvgCase((5, 6, 7), (3, 2, 3), (2, 1, 2), (1, 0, 1), ceil_mode=True, include_pad=False, c=2, dtype=F64),
    AvgCase((4, 6, 6), (2, 2, 2), (2, 2, 2), (0, 0, 0), c=2),  # tiling windows
    AvgCase((4, 5, 6), (2, 3, 3), (2, 2, 3), (1, 1, 0, 0, 0, 1), include_pad=True, c=2, dynamic=True),
    AvgCase((4, 5, 6), (2, 3, 3), (1, 2, 2), (0, 1, 1, 1, 0, 1), ceil_mode=True, include_pad=False, c=2, n=1),
    AvgCase((5, 5, 4), (3, 3, 2), (2, 2, 2), (1, 1, 1), override=7, c=2, dtype=F64, dynamic=True),
]

_compiled: dict[str, object] = {}


@pytest.fixture
def module(compile_rlx):
    if "m" not in _compiled:
        _compiled["m"] = compile_rlx("\n".join(case.function() for case in CASES))
    return _compiled["m"]


def test_case_ids_are_unique():
    ids = [str(c) for c in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_avg_pool_backward_matches_pytorch(case, module):
    case.check(module)


SYMMETRIC = [c for c in CASES if c.window.is_symmetric]


@pytest.mark.parametrize("case", SYMMETRIC, ids=str)
def test_composed_oracle_is_pytorchs_pool(case):
    """The per-side oracle's composition is F.avg_pool itself wherever PyTorch can state the pool."""
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((1, 2, *case.spatial)))
    np.testing.assert_allclose(
        composed_avg_pool(x, case.window, case.include_pad, case.override).numpy(),
        case.forward(x).numpy(), rtol=1e-12, atol=1e-12,
    )


def _decomposed_op_names(text: str) -> list[str]:
    from rlx_mlir.ir import make_context, parse_module, verify_module
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    ctx = make_context()
    module = parse_module(ctx, text, "<ir-size>")
    DecomposeBackwardPass().apply(ctx, module)
    verify_module(module)
    # Constants aside: a size that happens to equal another constant of a body shares its op.
    return [op.name for op in module.walk() if op.name != "arith.constant"]


@pytest.mark.parametrize(
    "small, large",
    [
        (AvgCase((6, 6), (3, 3), (2, 2), (1, 0, 1, 1), ceil_mode=True),
         AvgCase((60, 66), (3, 3), (2, 2), (1, 0, 1, 1), ceil_mode=True)),
        (AvgCase((5, 6, 7), (3, 3, 3), (2, 2, 2), (1, 1, 1), ceil_mode=True, include_pad=False),
         AvgCase((25, 26, 27), (3, 3, 3), (2, 2, 2), (1, 1, 1), ceil_mode=True, include_pad=False)),
    ],
    ids=["2d-per-side-ceil", "3d-ceil-excl"],
)
def test_ir_size_does_not_depend_on_tensor_sizes(small, large):
    small_ops, large_ops = _decomposed_op_names(small.function()), _decomposed_op_names(large.function())
    assert not any(name.startswith("rlx.") for name in small_ops)
    assert small_ops == large_ops
