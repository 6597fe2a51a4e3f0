"""JVP rules of the layout ops: each moves data linearly, so it moves the tangent the same way.

    reshape, permute, slice, slice_backward, expand: y_dot = the same op of x_dot
    concat: y_dot = cat(xs_dot), a zero piece for an operand without a tangent
    split: ys_dot = split(x_dot)
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jointly_linear, jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.ReshapeOp, rlx.PermuteOp, rlx.SliceOp, rlx.SliceBackwardOp, rlx.ExpandOp)
def moved(b, op, x_dot):
    return (product_rule(b, op, x_dot),)


@jvp_rule(rlx.ConcatOp)
def concat(b, op, *piece_dots):
    return (jointly_linear(b, op, *piece_dots),)


@jvp_rule(rlx.SplitOp)
def split(b, op, x_dot):
    return b.build_many(rlx.SplitOp, [x_dot], [piece.type for piece in op.results], dim=op.dim, sizes=op.sizes)
