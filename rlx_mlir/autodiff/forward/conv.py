"""JVP rules of the convolutions, their gradients and im2col/col2im, any spatial rank.

Every op of the family is linear in each float operand (conv(x, w), BI(dy, w), BW(x, dy),
their transposed-conv pairs) or linear in its one operand (im2col, col2im), so the
product rule gives every tangent (`rules.product_rule`):

    y = conv(x, w):  y_dot = conv(x_dot, w) + conv(x, w_dot)
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(
    *rlx.CONV,
    *rlx.CONV_BACKWARD_INPUT,
    *rlx.CONV_BACKWARD_WEIGHT,
    *rlx.CONV_TRANSPOSE,
    *rlx.CONV_TRANSPOSE_BACKWARD_INPUT,
    *rlx.CONV_TRANSPOSE_BACKWARD_WEIGHT,
    *rlx.IM2COL,
    *rlx.COL2IM,
)
def multilinear(b, op, *operand_dots):
    return (product_rule(b, op, *operand_dots),)
