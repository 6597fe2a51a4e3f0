"""VJP rules of the creation ops.

    y = cast(x), float -> float: x_bar = cast(y_bar) back to x's type (the derivative is 1;
    PyTorch's _to_copy backward casts the gradient back)
    to or from an integer or bool type: no gradient (the values are not differentiable)
    arange, full: no differentiable operand (full's are index sizes)
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import is_float_tensor, vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(rlx.CastOp)
def cast(b, op, y_bar):
    if not is_float_tensor(op.input.type):
        return (None,)
    return (b.build(rlx.CastOp, [y_bar], op.input),)


@vjp_rule(rlx.ArangeOp, rlx.FullOp)
def created(b, op, y_bar):
    return tuple(None for _ in op.operands)
