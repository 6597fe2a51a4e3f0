"""The autodiff pass on the conv and pool families, to the second and third order, against PyTorch.

Each case is one RLX op in `@f`; `--autodiff` applied k times gives `@f_vjp...`, compiled
and run, against `torch.autograd.grad(..., create_graph=True)` applied k times (see
`vjp_harness`). The second order of a forward op runs the VJP rules of its gradient ops
(conv_backward_input/weight, max_pool_backward, ...), the third order those of their
adjoints (the max-pool gather). Bound: tests/oracle.py's `K (eps + eps64) A`, A the same
function of |inputs| (every function here is a sum of products with non-negative
coefficients; max-pool inputs only select).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from vjp_harness import check


def _t(shape, dtype):
    return f"tensor<{''.join(f'{d}x' for d in shape)}{dtype}>"


@dataclass(frozen=True)
class Case:
    name: str
    op: str  # the op's text from its name to its properties, operands %a0, %a1, ...
    shapes: tuple
    out: tuple
    fn: object = field(compare=False)
    selects: tuple = ()
    orders: tuple = (1, 2)

    def source(self, dtype: str) -> str:
        args = ", ".join(f"%a{i}: {_t(s, dtype)}" for i, s in enumerate(self.shapes))
        types = ", ".join(_t(s, dtype) for s in self.shapes)
        return (
            f"func.func @f({args}) -> {_t(self.out, dtype)} {{\n"
            f"  %y = {self.op} : ({types}) -> {_t(self.out, dtype)}\n"
            f"  return %y : {_t(self.out, dtype)}\n}}\n"
        )


CASES = [
    Case("conv2d_s2_p1", "rlx.conv2d %a0, %a1 stride [2, 2] padding [1, 1]", ((2, 3, 7, 6), (4, 3, 3, 3)), (2, 4, 4, 3),
         lambda x, w: F.conv2d(x, w, stride=2, padding=1), orders=(1, 2, 3)),
    Case("matmul", "rlx.matmul %a0, %a1", ((3, 4), (4, 5)), (3, 5), torch.matmul),
    Case("matmul_batched", "rlx.matmul %a0, %a1", ((2, 3, 4), (2, 4, 2)), (2, 3, 2), torch.matmul),
    Case("conv2d_g2_d2", "rlx.conv2d %a0, %a1 stride [1, 2] padding [2, 1] dilation [2, 1] groups 2",
         ((1, 4, 6, 6), (6, 2, 2, 3)), (1, 6, 8, 3),
         lambda x, w: F.conv2d(x, w, stride=(1, 2), padding=(2, 1), dilation=(2, 1), groups=2)),
    Case("conv1d", "rlx.conv1d %a0, %a1 stride [2] padding [1]", ((2, 2, 9), (3, 2, 3)), (2, 3, 5),
         lambda x, w: F.conv1d(x, w, stride=2, padding=1)),
    Case("conv3d", "rlx.conv3d %a0, %a1 stride [1, 2, 1] padding [1, 0, 1]", ((1, 2, 4, 5, 3), (2, 2, 2, 3, 2)),
         (1, 2, 5, 2, 4), lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=(1, 0, 1))),
    Case("conv_transpose2d_op1", "rlx.conv_transpose2d %a0, %a1 stride [2, 2] padding [1, 0] output_padding [1, 0]",
         ((2, 3, 4, 3), (3, 2, 3, 2)), (2, 2, 8, 6),
         lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=(1, 0), output_padding=(1, 0))),
    Case("max_pool2d_k3_s2_p1", "rlx.max_pool2d %a0 kernel_size [3, 3] stride [2, 2] padding [1, 1]",
         ((2, 2, 7, 6),), (2, 2, 4, 3), lambda x: F.max_pool2d(x, 3, 2, 1), selects=(0,), orders=(1, 2, 3)),
    Case("max_pool1d_k2", "rlx.max_pool1d %a0 kernel_size [2] stride [2] padding [0]",
         ((2, 3, 8),), (2, 3, 4), lambda x: F.max_pool1d(x, 2, 2), selects=(0,)),
    Case("avg_pool2d_k3_s2_p1_exclude_pad",
         "rlx.avg_pool2d %a0 kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false",
         ((2, 2, 7, 6),), (2, 2, 4, 3), lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), orders=(1, 2, 3)),
    Case("adaptive_avg_pool2d_5x7_to_3x2", "rlx.adaptive_avg_pool2d %a0", ((2, 2, 5, 7),), (2, 2, 3, 2),
         lambda x: F.adaptive_avg_pool2d(x, (3, 2))),
    Case("adaptive_max_pool2d_5x7_to_3x2", "rlx.adaptive_max_pool2d %a0", ((2, 2, 5, 7),), (2, 2, 3, 2),
         lambda x: F.adaptive_max_pool2d(x, (3, 2)), selects=(0,), orders=(1, 2, 3)),
]

F64_CASES = {"conv2d_s2_p1", "conv_transpose2d_op1", "max_pool2d_k3_s2_p1", "avg_pool2d_k3_s2_p1_exclude_pad"}
"""The cases also run in f64 (at the second order): one per family, to keep the suite fast."""

PARAMS = [
    pytest.param(case, order, dtype, id=f"{case.name}-order{order}-{dtype}")
    for case in CASES
    for order in case.orders
    for dtype in ("f32", "f64")
    if dtype == "f32" or (order == 2 and case.name in F64_CASES)
]


@pytest.mark.parametrize("case, order, dtype", PARAMS)
def test_vjp_matches_pytorch(case, order, dtype):
    np_dtype = {"f32": np.float32, "f64": np.float64}[dtype]
    check(case.source(dtype), case.fn, case.shapes, np_dtype, order, selects=case.selects, label=case.name)
