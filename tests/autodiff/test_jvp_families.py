"""The jvp pass on one op of each family, against `torch.func.jvp`, in f64 (1e-9).

The op tables are the VJP tests' (`test_vjp_elementwise`, `test_vjp_activation_layout`,
`test_vjp_conv_pool`, and `test_second_order_table` for the backward and adjoint ops), so
each op the reverse mode is tested on is tested forward too.
Each table is one module compiled once (`jvp_harness.JvpTable`).
"""

from __future__ import annotations

import pytest

import test_second_order_table
import test_vjp_activation_layout
import test_vjp_conv_pool
import test_vjp_elementwise
from jvp_harness import JvpTable

ELEMENTWISE = JvpTable(case for case, _, _ in test_vjp_elementwise.CASES)
POSITIVE = {case.name: positive for case, positive, _ in test_vjp_elementwise.CASES}
ACTIVATION_LAYOUT = JvpTable(test_vjp_activation_layout.CASES)
CONV_POOL = JvpTable(test_vjp_conv_pool.CASES)


@pytest.mark.parametrize("name", list(ELEMENTWISE.cases))
def test_elementwise_jvp_matches_pytorch(name):
    ELEMENTWISE.check(name, POSITIVE[name])


@pytest.mark.parametrize("name", list(ACTIVATION_LAYOUT.cases))
def test_activation_layout_jvp_matches_pytorch(name):
    ACTIVATION_LAYOUT.check(name)


@pytest.mark.parametrize("name", list(CONV_POOL.cases))
def test_conv_pool_jvp_matches_pytorch(name):
    CONV_POOL.check(name)


BACKWARD = JvpTable(
    case
    for case in (*test_second_order_table.CASES, *test_second_order_table.SMOOTH)
    # its reference scales by ATen's f32-rounded 1/6, the slope of the gradient, not of
    # the primal: test_jvp_sequence_families checks hardsigmoid against F.hardsigmoid
    if case.name != "hardsigmoid"
)


@pytest.mark.parametrize("name", list(BACKWARD.cases))
def test_backward_op_jvp_matches_pytorch(name):
    BACKWARD.check(name)
