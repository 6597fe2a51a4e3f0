"""The jvp pass on the scan, RoPE, indexing and quantization families, against PyTorch in
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
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _one_op(name, op, shapes, out, fn):
    """`@f` of one op; an integer array in `shapes` is an i64 operand."""
    types = [_ty(s.shape, "i64") if isinstance(s, np.ndarray) else _ty(s) for s in shapes]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    text = f"func.func @f({args}) -> {_ty(out)} {{\n  %y = {op} : ({', '.join(types)}) -> {_ty(out)}\n  return %y : {_ty(out)}\n}}\n"
    return Text(name, text, tuple(shapes), fn)


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
]

TABLE = JvpTable(CASES)


@pytest.mark.parametrize("name", list(TABLE.cases))
def test_jvp_matches_pytorch(name):
    TABLE.check(name)
