"""im2col's VJP (`rlx.col2im{r}d`, dialects/adjoint.py) and col2im's (im2col), against PyTorch.

In 2-D im2col is `F.unfold(x).transpose(1, 2).reshape(-1, C*KH*KW)` and col2im is its
transpose, `F.fold`; both are sums of copies, so tests/oracle.py's bound applies with A
the same function of |inputs|. Orders 1 and 2 (the second runs col2im's rule).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from test_vjp_conv_pool import Case
from vjp_harness import check


def _im2col(x, kernel, stride, padding, dilation):
    n, c = x.shape[:2]
    cols = F.unfold(x, kernel, dilation=dilation, padding=padding, stride=stride)
    return cols.transpose(1, 2).reshape(-1, c * kernel[0] * kernel[1])


CASES = [
    Case("im2col_k3_s2_p1", "rlx.im2col %a0 kernel_size [3, 3] stride [2, 2] padding [1, 1]", ((2, 2, 5, 6),), (18, 18),
         lambda x: _im2col(x, (3, 3), (2, 2), (1, 1), (1, 1))),
    Case("im2col_k2_d2", "rlx.im2col %a0 kernel_size [2, 2] stride [1, 1] padding [0, 0] dilation [2, 1]", ((1, 3, 5, 4),),
         (9, 12), lambda x: _im2col(x, (2, 2), (1, 1), (0, 0), (2, 1))),
]


@pytest.mark.parametrize("case, order", [pytest.param(c, o, id=f"{c.name}-order{o}") for c in CASES for o in (1, 2)])
def test_vjp_matches_pytorch(case, order):
    check(case.source("f32"), case.fn, case.shapes, np.float32, order, label=case.name)
