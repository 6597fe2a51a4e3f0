"""JVP rules of the comparison family: an i1 result carries no tangent.

A comparison, a logical op or any/all is piecewise constant in its operands; the rule
exists so that a float operand with a tangent does not stop the sweep.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule
from rlx_mlir.dialects import comparison


@jvp_rule(*comparison.FORWARD_OPS)
def piecewise_constant(b, op, *operand_dots):
    return (None,) * len(op.results)
