"""JVP rule of `rlx.matmul`: C = A B is bilinear, so C_dot = A_dot B + A B_dot (`rules.product_rule`)."""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.MatmulOp)
def matmul(b, op, a_dot, b_dot):
    return (product_rule(b, op, a_dot, b_dot),)
