"""The autodiff pass on the elementwise ops, the reductions and addmm, against PyTorch.

First and second order in f32. The linear ones (add, sub, neg, sum, mean, expand,
addmm's operands) and mul are sums of products with non-negative coefficients: tests/oracle.py's bound, A = the same
function of |inputs|. sub (a coefficient -1) and maximum (|a| and |b| select differently from a and b) have
no such A either. The non-linear ones (div, exp, log, sqrt, rsqrt, tanh, erf, the
smooth activations) have VJPs of a few roundings each, whose A has no closed form: their
bound is 8 eps(f32) of the gradient's largest magnitude: the measured worst over these
cases is 1.22 (rsqrt, second order; erf 1.16, log_softmax 0.97), and a second-order VJP
rounds about 10 intermediates per element, so 8 leaves 6.5x over the worst.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from test_vjp_conv_pool import Case
from vjp_harness import check

A, B = (2, 3, 4), (3, 1)
NONLINEAR_ULPS = 8


def _case(name, op, shapes, out, fn, orders=(1, 2), positive=(), ulps=None):
    return Case(name, op, shapes, out, fn, orders=orders), positive, ulps


CASES = [
    _case("add_broadcast", "rlx.add %a0, %a1", (A, B), A, torch.add),
    _case("sub_broadcast", "rlx.sub %a0, %a1", (A, B), A, torch.sub, ulps=NONLINEAR_ULPS),
    _case("mul_broadcast", "rlx.mul %a0, %a1", (A, B), A, torch.mul),
    _case("mul_scalar", "rlx.mul %a0, %a1", (A, ()), A, torch.mul),
    _case("div_broadcast", "rlx.div %a0, %a1", (A, B), A, torch.div, positive=(1,), ulps=NONLINEAR_ULPS),
    _case("maximum", "rlx.maximum %a0, %a1", (A, B), A, torch.maximum, orders=(1,), ulps=NONLINEAR_ULPS),
    _case("neg", "rlx.neg %a0", (A,), A, torch.neg),
    _case("exp", "rlx.exp %a0", (A,), A, torch.exp, ulps=NONLINEAR_ULPS),
    _case("log", "rlx.log %a0", (A,), A, torch.log, positive=(0,), ulps=NONLINEAR_ULPS),
    _case("sqrt", "rlx.sqrt %a0", (A,), A, torch.sqrt, positive=(0,), ulps=NONLINEAR_ULPS),
    _case("rsqrt", "rlx.rsqrt %a0", (A,), A, torch.rsqrt, positive=(0,), ulps=NONLINEAR_ULPS),
    _case("abs", "rlx.abs %a0", (A,), A, torch.abs, orders=(1,)),
    _case("tanh", "rlx.tanh %a0", (A,), A, torch.tanh, ulps=NONLINEAR_ULPS),
    _case("erf", "rlx.erf %a0", (A,), A, torch.erf, ulps=NONLINEAR_ULPS),
    _case("sum_dims", "rlx.sum %a0 dims [0, 2]", (A,), (3,), lambda x: x.sum((0, 2))),
    _case("mean_keepdim", "rlx.mean %a0 dims [1] keepdim true", (A,), (2, 1, 4), lambda x: x.mean(1, keepdim=True)),
    _case("expand", "rlx.expand %a0", ((3, 1),), (2, 3, 4), lambda x: x.expand(2, 3, 4)),
    _case("addmm", "rlx.addmm %a0, %a1, %a2 beta 0.5 alpha 2.0", ((4,), (3, 5), (5, 4)), (3, 4),
          lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0)),
    _case("sigmoid", "rlx.sigmoid %a0", (A,), A, torch.sigmoid, ulps=NONLINEAR_ULPS),
    _case("silu", "rlx.silu %a0", (A,), A, F.silu, ulps=NONLINEAR_ULPS),
    _case("gelu", "rlx.gelu %a0", (A,), A, F.gelu, ulps=NONLINEAR_ULPS),
    _case("hardswish", "rlx.hardswish %a0", (A,), A, F.hardswish, ulps=NONLINEAR_ULPS),
    _case("log_softmax", "rlx.log_softmax %a0 dim 1", (A,), A, lambda x: F.log_softmax(x, 1), ulps=NONLINEAR_ULPS),
    _case("softmax", "rlx.softmax %a0 dim 2", (A,), A, lambda x: F.softmax(x, 2), ulps=NONLINEAR_ULPS),
]

PARAMS = [
    pytest.param(case, positive, ulps, order, id=f"{case.name}-order{order}-f32")
    for case, positive, ulps in CASES
    for order in case.orders
]


@pytest.mark.parametrize("case, positive, ulps, order", PARAMS)
def test_vjp_matches_pytorch(case, positive, ulps, order):
    check(case.source("f32"), case.fn, case.shapes, np.float32, order, label=case.name, positive=positive, ulps=ulps)
