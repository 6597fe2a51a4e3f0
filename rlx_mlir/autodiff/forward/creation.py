"""JVP rules of the creation ops.

    y = cast(x), float -> float: y_dot = cast(x_dot) (the derivative is 1); an integer or
    bool result has no tangent (the sweep drops it)
    arange, full: no differentiable operand (their operands are index sizes)
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.CastOp)
def cast(b, op, x_dot):
    return (product_rule(b, op, x_dot),)


@jvp_rule(rlx.ArangeOp, rlx.FullOp)
def created(b, op, *operand_dots):
    return (None,)
