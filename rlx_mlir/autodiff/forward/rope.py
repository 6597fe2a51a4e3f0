"""JVP rules of RoPE and its gradient.

`rope(x, cos, sin) = x cos + rot(x) sin` and `rope_backward(dy, cos, sin) = dy cos - rot(dy sin)`
are linear in their data operand for fixed tables, and linear in the two tables together
for fixed data, so

    y_dot = op(x_dot, cos, sin) + op(x, cos_dot, sin_dot)

a zero splat standing for a table without a tangent.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jointly_linear, jvp_rule, total
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.RopeOp, rlx.RopeBackwardOp)
def rope(b, op, data_dot, cos_dot, sin_dot):
    through_data = jointly_linear(b, op, data_dot, None, None, linear=[0])
    through_tables = jointly_linear(b, op, None, cos_dot, sin_dot, linear=[1, 2])
    return (total(b, [through_data, through_tables], op.results[0]),)
