"""The VJPs of `rlx.rope` and `rlx.rope_backward` at the first and second order, against
PyTorch's autograd of the reference formula (`x * cos + rotate_half(x) * sin`, GPT-J's
`rotate_every_two` for `interleaved`), with respect to x (dy) and both tables, the
tables broadcast as HF Llama passes them.

Error bound: the rotation's minus sign makes the same function of |inputs| no bound on
the terms' magnitudes (tests/oracle.py's A), so each gradient is held to
ULPS eps(f64) of its largest magnitude (`vjp_harness.check(..., ulps=)`); each is a sum
of a few products per element (and of the broadcast's sum for the tables).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from numeric.test_rope_ops import ROTATE
from vjp_harness import check

ULPS = 16
CONFIGS = {
    "table_TD": ((2, 3, 4), (3, 4)),  # x [B, T, D], a [T, D] table summed over B
    "table_B1TD": ((2, 2, 3, 4), (2, 1, 3, 4)),  # HF's [B, 1, T, D]: summed over the heads
}


def _tensor(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf64>"


def source(op: str, layout: str, x_shape, table_shape) -> str:
    x, t = _tensor(x_shape), _tensor(table_shape)
    return f"""
func.func @f(%x: {x}, %cos: {t}, %sin: {t}) -> {x} {{
  %y = {op} %x, %cos, %sin layout "{layout}" : ({x}, {t}, {t}) -> {x}
  return %y : {x}
}}
"""


def reference(op: str, layout: str):
    rot = ROTATE[layout]
    if op == "rlx.rope":
        return lambda x, cos, sin: x * cos + rot(x) * sin

    def rope_backward(dy, cos, sin):
        leaf = torch.zeros(dy.shape, dtype=torch.float64, requires_grad=True)
        return torch.autograd.grad(leaf * cos + rot(leaf) * sin, leaf, dy, create_graph=True)[0]

    return rope_backward


PARAMS = [
    pytest.param(op, layout, config, order, id=f"{op[4:]}_{layout}_{config}_order{order}")
    for op in ("rlx.rope", "rlx.rope_backward")
    for layout in ("rotate_half", "interleaved")
    for config in CONFIGS
    for order in (1, 2)
]


@pytest.mark.parametrize("op, layout, config, order", PARAMS)
def test_rope_vjp_matches_pytorch(op, layout, config, order):
    x_shape, table_shape = CONFIGS[config]
    check(source(op, layout, x_shape, table_shape), reference(op, layout), [x_shape, table_shape, table_shape],
          np.float64, order, label=f"{op} {layout}", ulps=ULPS)
