"""VJP rules of the comparison family: no operand gets a cotangent.

A comparison, a logical op or any/all is piecewise constant in its operands, and its i1
result carries no cotangent (`rules.is_float_tensor`), so the reverse sweep never reaches
these rules from a float loss: a function that mixes them with float math differentiates
through the float ops alone. The rules exist so that every op has one, and say "none" for
each operand should a caller seed an i1 result anyway.
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import comparison


@vjp_rule(*comparison.FORWARD_OPS)
def piecewise_constant(b, op, result_bar):
    """d(result)/d(operand) = 0 almost everywhere, and an i1 result has no cotangent: none."""
    return (None,) * len(op.operands)
