"""The comparison family under autodiff: its ops give no cotangent, and a function that
mixes them with float math differentiates through the float ops alone, at the first and
second order, against PyTorch.

The loss `sum((x - y) * x)` is computed beside comparisons, logical ops and any/all of the
same values, whose i1 results the loss does not read (their VJP clones are dead code).
Only the VJP function is compiled: `@f` itself is dropped from the module.

Bound: each gradient ((2x - y) * bar, -x * bar, and the second order's linear terms) is a
handful of roundings, within `ULPS * eps * max|want|` of PyTorch's float64 autograd.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from xdsl.dialects import func

import rlx_mlir
from rlx_mlir.autodiff.rules import RULES
from rlx_mlir.dialects import comparison
from vjp_harness import differentiated, torch_order

ULPS = 8

SOURCE = """
func.func @f(%x: tensor<2x3x{e}>, %y: tensor<2x3x{e}>) -> tensor<{e}> {{
  %eq = rlx.eq %x, %y : (tensor<2x3x{e}>, tensor<2x3x{e}>) -> tensor<2x3xi1>
  %gt = rlx.gt %x, %y : (tensor<2x3x{e}>, tensor<2x3x{e}>) -> tensor<2x3xi1>
  %or = rlx.logical_or %eq, %gt : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %not = rlx.logical_not %x : (tensor<2x3x{e}>) -> tensor<2x3xi1>
  %any = rlx.any %or dims [1] : (tensor<2x3xi1>) -> tensor<2xi1>
  %d = rlx.sub %x, %y : (tensor<2x3x{e}>, tensor<2x3x{e}>) -> tensor<2x3x{e}>
  %p = rlx.mul %d, %x : (tensor<2x3x{e}>, tensor<2x3x{e}>) -> tensor<2x3x{e}>
  %loss = rlx.sum %p dims [0, 1] : (tensor<2x3x{e}>) -> tensor<{e}>
  return %loss : tensor<{e}>
}}
"""


def torch_f(x, y):
    torch.eq(x, y), torch.gt(x, y), torch.logical_not(x)  # computed, not read, as in @f
    return ((x - y) * x).sum()


def only(module, name: str):
    """`module` with the function `name` alone (the others hold i1 values)."""
    for op in list(module.body.block.ops):
        if isinstance(op, func.FuncOp) and op.sym_name.data != name:
            module.body.block.erase_op(op)
    return module


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_float_loss_beside_comparisons_matches_pytorch(order, dtype):
    element = {np.float32: "f32", np.float64: "f64"}[dtype]
    module, name = differentiated(SOURCE.format(e=element), order)
    text = str(only(module, name))
    assert "i1" not in text, "the VJP reads a comparison's result"
    compiled = rlx_mlir.compile(text, pipeline="plain")[name]
    torch_fn, n_args = torch_order(torch_f, 2, order)
    rng = np.random.default_rng(order)
    shapes = [(2, 3), (2, 3), ()] if order == 1 else [(2, 3), (2, 3), (), (2, 3), (2, 3)]
    assert len(shapes) == n_args
    args = [rng.standard_normal(s).astype(dtype) for s in shapes]
    got = compiled(*args)
    got = got if isinstance(got, tuple) else (got,)
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
    want = [np.zeros(t.shape) if t._is_zerotensor() else t.detach().numpy() for t in torch_fn(*tensors)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == dtype
        err = np.abs(g.astype(np.float64) - w).max()
        assert err <= ULPS * np.finfo(dtype).eps * max(np.abs(w).max(), 1e-30), (order, i, err)


@pytest.mark.parametrize("op", comparison.FORWARD_OPS, ids=lambda op: op.name)
def test_rule_gives_no_cotangent(op):
    """The rule says "none" for every operand, even when a caller seeds the i1 result."""

    class Fake:
        operands = (object(),) * len(op.operand_names())

    assert RULES[op](None, Fake(), object()) == (None,) * len(op.operand_names())
