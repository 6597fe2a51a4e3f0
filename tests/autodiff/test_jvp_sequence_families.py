"""The jvp pass on the scan, RoPE, indexing, quantization and norm families, against PyTorch in
f64 (1e-9): `torch.func.jvp`, or the double-VJP identity on PyTorch's autograd where the
reference calls `torch.autograd.grad` (`jvp_harness.torch_jvp`). One module per table,
compiled once; integer positions are fixed arrays and take no tangent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from jvp_harness import JvpTable
from scan_reference import linear_scan
from test_vjp_rope import ROTATE
from test_vjp_rope import reference as rope_reference
from test_vjp_rope import source as rope_source


@dataclass(frozen=True)
class Text:
    """A case whose f64 source is written out (an integer operand, a table operand)."""

    name: str
    text: str
    shapes: tuple
    fn: object = field(compare=False)

    def source(self, dtype: str) -> str:
        assert dtype == "f64"
        return self.text


def _ty(shape, element="f64") -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def _types(shapes) -> list[str]:
    """The operand types: an integer array in `shapes` is an i64 operand."""
    return [_ty(s.shape, "i64") if isinstance(s, np.ndarray) else _ty(s) for s in shapes]


def _one_op(name, op, shapes, out, fn):
    """`@f` of one op."""
    types = _types(shapes)
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    text = f"func.func @f({args}) -> {_ty(out)} {{\n  %y = {op} : ({', '.join(types)}) -> {_ty(out)}\n  return %y : {_ty(out)}\n}}\n"
    return Text(name, text, tuple(shapes), fn)


def _multi_result(name, op, shapes, results, returned, fn):
    """`@f` of one op of several results (a norm, nll_loss), returning result `returned`
    (None: all of them)."""
    types = _types(shapes)
    out = [_ty(r) for r in results]
    names = ", ".join(f"%r{i}" for i in range(len(results)))
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    kept = range(len(results)) if returned is None else [returned]
    signature = ", ".join(out[i] for i in kept)
    text = (
        f"func.func @f({args}) -> ({signature}) {{\n  {names} = {op} : ({', '.join(types)}) -> ({', '.join(out)})\n"
        f"  return {', '.join(f'%r{i}' for i in kept)} : {signature}\n}}\n"
    )
    return Text(name, text, tuple(shapes), fn)


X, W, STAT = (2, 3, 4), (3, 4), (2, 1, 1)
NCHW, C = (2, 3, 2, 2), (3,)
BATCH_NORM = "rlx.batch_norm %a0, %a1, %a2, %a3, %a4 eps 1.0e-05"
"""The running statistics are arguments with tangents, which y and the batch statistics do not depend on."""
LAYER_NORM = "rlx.layer_norm %a0, %a1, %a2 normalized_rank 2 eps 1.0e-05"
NORMS = [
    _multi_result("layer_norm", LAYER_NORM, (X, W, W), (X, STAT, STAT), 0, lambda x, w, b: F.layer_norm(x, W, w, b, 1e-5)),
    _multi_result("layer_norm_mean", LAYER_NORM, (X, W, W), (X, STAT, STAT), 1, lambda x, w, b: x.mean((1, 2), keepdim=True)),
    _multi_result("layer_norm_rstd", LAYER_NORM, (X, W, W), (X, STAT, STAT), 2,
                  lambda x, w, b: (x.var((1, 2), unbiased=False, keepdim=True) + 1e-5).rsqrt()),
    _multi_result("rms_norm", "rlx.rms_norm %a0 weight %a1 normalized_rank 2 eps 1.0e-05", (X, W), (X, STAT), 0,
                  lambda x, w: F.rms_norm(x, W, w, 1e-5)),
    _multi_result("rms_norm_rstd", "rlx.rms_norm %a0 weight %a1 normalized_rank 2 eps 1.0e-05", (X, W), (X, STAT), 1,
                  lambda x, w: ((x * x).mean((1, 2), keepdim=True) + 1e-5).rsqrt()),
    _multi_result("rms_norm_no_weight", "rlx.rms_norm %a0 normalized_rank 1 eps 1.0e-05", (X,), (X, (2, 3, 1)), 0,
                  lambda x: F.rms_norm(x, (4,), None, 1e-5)),
    *(
        _multi_result(f"batch_norm_{name}", BATCH_NORM, (NCHW, C, C, C, C), (NCHW, C, C, C, C), returned, fn)
        for name, returned, fn in (
            ("y", 0, lambda x, w, b, rm, rv: F.batch_norm(x, None, None, w, b, training=True, eps=1e-5)),
            ("mean", 1, lambda x, w, b, rm, rv: x.mean((0, 2, 3))),
            ("invstd", 2, lambda x, w, b, rm, rv: (x.var((0, 2, 3), unbiased=False) + 1e-5).rsqrt()),
        )
    ),
    _one_op("batch_norm_inference", "rlx.batch_norm_inference %a0, %a1, %a2, %a3, %a4 eps 1.0e-05",
            (NCHW, C, C, C, C), NCHW,
            lambda x, w, b, rm, rv: F.batch_norm(x, rm.detach(), rv.detach(), w, b, training=False, eps=1e-5)),
    _multi_result("group_norm", "rlx.group_norm %a0 affine %a1, %a2 groups 2", ((2, 4, 3), (4,), (4,)),
                  ((2, 4, 3), (2, 2), (2, 2)), 0, lambda x, w, b: F.group_norm(x, 2, w, b, 1e-5)),
    _multi_result("group_norm_rstd_no_affine", "rlx.group_norm %a0 groups 2", ((2, 4, 3),), ((2, 4, 3), (2, 2), (2, 2)),
                  2, lambda x: (x.reshape(2, 2, 6).var(2, unbiased=False) + 1e-5).rsqrt()),
    _multi_result("group_norm_no_affine", "rlx.group_norm %a0 groups 2", ((2, 4, 3),), ((2, 4, 3), (2, 2), (2, 2)),
                  0, lambda x: F.group_norm(x, 2, None, None, 1e-5)),
]

TARGET = np.array([1, 0, 3], dtype=np.int64)
NLL = _multi_result("nll_loss_mean_weighted", 'rlx.nll_loss %a0, %a1, %a2 reduction "mean" ignore_index -100',
                    ((3, 4), TARGET, (4,)), ((), ()), 0, lambda x, t, w: F.nll_loss(x, t, weight=w.detach()))
"""The class weights are not differentiated (ATen's nll_loss), so PyTorch's side detaches them."""

INDEX = np.array([[2, 0, 1, 3, 3], [1, 1, 0, 2, 0], [3, 2, 2, 0, 1]], dtype=np.int64)
ROWS = np.array([[0, 3, 1], [4, 4, 2]], dtype=np.int64)
S = (2, 4, 3)

CASES = [
    *(
        Text(f"{op[4:]}_{layout}", rope_source(op, layout, (2, 3, 4), (3, 4)), ((2, 3, 4), (3, 4), (3, 4)),
             rope_reference(op, layout))
        for op in ("rlx.rope", "rlx.rope_backward")
        for layout in ROTATE
    ),
    _one_op("linear_scan_dim1", "rlx.linear_scan %a0, %a1 dim 1", (S, S), S, lambda a, x: linear_scan(a, x, 1, False)),
    _one_op("linear_scan_dim1_reverse", "rlx.linear_scan %a0, %a1 dim 1 reverse true", (S, S), S,
            lambda a, x: linear_scan(a, x, 1, True)),
    _one_op("cumsum_dim2", "rlx.cumsum %a0 dim 2", (S,), S, lambda x: torch.cumsum(x, 2)),
    _one_op("gather_dim0", "rlx.gather %a0, %a1 dim 0", ((4, 5), INDEX), (3, 5),
            lambda x, i: torch.gather(x, 0, i)),
    _one_op("scatter_add_dim0", "rlx.scatter_add %a0, %a1, %a2 dim 0", ((4, 5), INDEX, (3, 5)), (4, 5),
            lambda x, i, src: x.scatter_add(0, i, src)),
    _one_op("embedding", "rlx.embedding %a0, %a1", ((5, 3), ROWS), (2, 3, 3), lambda w, i: F.embedding(i, w)),
    _one_op("index_select_dim1", "rlx.index_select %a0, %a1 dim 1", ((2, 5, 3), ROWS[0]), (2, 3, 3),
            lambda x, i: torch.index_select(x, 1, i)),
    _one_op("hardsigmoid", "rlx.hardsigmoid %a0", (S,), S, F.hardsigmoid),
    _one_op("fake_quantize", "rlx.fake_quantize %a0 scale 0.1 zero_point 3 quant_min -128 quant_max 127", (S,), S,
            lambda x: torch.fake_quantize_per_tensor_affine(x, 0.1, 3, -128, 127)),
    *NORMS,
    NLL,
]

TABLE = JvpTable(CASES)
POSITIVE = {"batch_norm_inference": (4,)}
"""The arguments drawn from [0.5, 2.5): a running variance. The running statistics are not
differentiated (PyTorch refuses to), so PyTorch's side detaches them."""


@pytest.mark.parametrize("name", list(TABLE.cases))
def test_jvp_matches_pytorch(name):
    TABLE.check(name, POSITIVE.get(name, ()))
