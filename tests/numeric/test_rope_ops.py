"""`rlx.rope` and `rlx.rope_backward`, lowered and run natively, against PyTorch (CPU).

Oracle: the formula as the model code writes it, in float64 on our inputs upcast:
`x * cos + rotate_half(x) * sin` (HF Llama, GPT-NeoX) and
`x * cos + rotate_every_two(x) * sin` (GPT-J, Meta's original Llama), with tables as those
implementations build them (each angle twice: `cat(freqs, freqs)` or
`repeat_interleave(freqs, 2)`), or random tables (the op is the formula for any table);
the gradient is `torch.autograd.grad` of that formula in x.

Error bound (`oracle.assert_within_bound`, k = 16): each result is a sum of two products,
so A is the same sum on absolute values with the rotation's sign dropped:
A = |x| |cos| + |partner(x)| |sin| (forward) and |dy| |cos| + |partner(dy sin)| (backward).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from oracle import assert_within_bound, tensor_type

DTYPES = {"f32": np.float32, "f64": np.float64}


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """HF Llama's `rotate_half`."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    """GPT-J's `rotate_every_two`."""
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


ROTATE = {"rotate_half": rotate_half, "interleaved": rotate_every_two}


def partner(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Each element's pair partner, unsigned: |rot(x)| for the error bound."""
    return ROTATE[layout](x).abs()


def reference_rope(x, cos, sin, layout: str):
    return x * cos + ROTATE[layout](x) * sin


def rope_tables(positions: int, dim: int, layout: str, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin [T, D] as the model code builds them from inv_freq = base^(-2i/D)."""
    inv_freq = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    freqs = np.outer(np.arange(positions, dtype=np.float64), inv_freq)
    angles = np.concatenate([freqs, freqs], -1) if layout == "rotate_half" else np.repeat(freqs, 2, -1)
    return np.cos(angles), np.sin(angles)


@dataclass(frozen=True)
class Case:
    shape: tuple[int, ...]
    table: tuple[int, ...]
    layout: str = "rotate_half"
    backward: bool = False
    dtype: str = "f32"
    dynamic: bool = False
    random_tables: bool = False

    def __str__(self) -> str:
        dims = "x".join(map(str, self.shape))
        return (
            f"rope{'_backward' if self.backward else ''}_{self.layout}_{dims}{'dyn' if self.dynamic else ''}"
            f"_table{'x'.join(map(str, self.table))}{'_random' if self.random_tables else ''}_{self.dtype}"
        )

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]

    def function(self) -> str:
        x = tensor_type(self.shape, self.np_dtype, self.dynamic)
        t = tensor_type(self.table, self.np_dtype)
        op = "rlx.rope_backward" if self.backward else "rlx.rope"
        layout = "" if self.layout == "rotate_half" else f' layout "{self.layout}"'
        return (
            f"func.func @{self.symbol}(%x: {x}, %cos: {t}, %sin: {t}) -> {x} {{\n"
            f"  %y = {op} %x, %cos, %sin{layout} : ({x}, {t}, {t}) -> {x}\n"
            f"  return %y : {x}\n}}\n"
        )

    def inputs(self, batch: int) -> list[np.ndarray]:
        rng = np.random.default_rng(sum(self.shape) + batch)
        x = rng.standard_normal((batch, *self.shape[1:]))
        if self.random_tables:
            cos, sin = rng.standard_normal(self.table), rng.standard_normal(self.table)
        else:
            cos, sin = rope_tables(self.table[-2], self.table[-1], self.layout)
            cos, sin = cos.reshape(self.table), sin.reshape(self.table)
        return [a.astype(self.np_dtype) for a in (x, cos, sin)]

    def want(self, x, cos, sin) -> tuple[torch.Tensor, torch.Tensor]:
        """PyTorch's result and the error bound's A, in float64."""
        if not self.backward:
            want = reference_rope(x, cos, sin, self.layout)
            return want, x.abs() * cos.abs() + partner(x, self.layout) * sin.abs()
        dy = x
        leaf = torch.zeros_like(dy, requires_grad=True)
        (want,) = torch.autograd.grad(reference_rope(leaf, cos, sin, self.layout), leaf, dy)
        return want, dy.abs() * cos.abs() + partner(dy * sin, self.layout)

    def check(self, module) -> None:
        for batch in [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]]:
            inputs = self.inputs(batch)
            got = module[self.symbol](*inputs)
            want, magnitude = self.want(*(torch.from_numpy(a.astype(np.float64)) for a in inputs))
            assert_within_bound(got, want, magnitude, dtype=self.np_dtype, label=str(self))


CASES = [
    Case(shape, table, layout, backward, dtype, dynamic, random_tables)
    for layout in ("rotate_half", "interleaved")
    for backward in (False, True)
    for dtype in ("f32", "f64")
    for shape, table, dynamic, random_tables in (
        ((2, 3, 5, 8), (5, 8), False, False),  # [B, H, T, D] with a [T, D] table
        ((2, 3, 4, 6), (2, 1, 4, 6), False, True),  # HF's [B, 1, T, D] tables, any values
        ((2, 4, 6), (4, 6), True, False),  # a dynamic batch
    )
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    return compile_rlx("\n".join(c.function() for c in CASES))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rope_matches_pytorch(case, module):
    case.check(module)


def test_rope_then_backward_is_the_identity_on_a_rotation(compile_rlx):
    """With tables of a rotation (cos^2 + sin^2 = 1 per pair), rope_backward undoes rope:
    the transpose of a rotation is its inverse."""
    x_type, t_type = "tensor<2x4x8xf64>", "tensor<4x8xf64>"
    text = (
        f"func.func @f(%x: {x_type}, %cos: {t_type}, %sin: {t_type}) -> {x_type} {{\n"
        f'  %y = rlx.rope %x, %cos, %sin layout "interleaved" : ({x_type}, {t_type}, {t_type}) -> {x_type}\n'
        f'  %z = rlx.rope_backward %y, %cos, %sin layout "interleaved" : ({x_type}, {t_type}, {t_type}) -> {x_type}\n'
        f"  return %z : {x_type}\n}}\n"
    )
    x = np.random.default_rng(0).standard_normal((2, 4, 8))
    cos, sin = rope_tables(4, 8, "interleaved")
    np.testing.assert_allclose(compile_rlx(text)["f"](x, cos, sin), x, rtol=0, atol=1e-14)
