"""VJP rules of RoPE and its gradient.

`rope(x) = x * cos + rot(x) * sin` is linear in x, and `rope_backward` is its transpose
(`dx = dy * cos - rot(dy * sin)`, rot's transpose being -rot), so each is the other's VJP
in the rotated operand. The tables are differentiable too, as in the reference formula
under PyTorch's autograd: they may be function arguments (a learned or scaled table), and
a rule that returned no cotangent for them would give a silently wrong zero gradient.
Each table's cotangent is the elementwise product it multiplies, summed over the dims the
table was broadcast along (`VjpBuilder.sum_to`); `rot(v)` is `rope(v, 0, 1)`:

    rope:           cos_bar = sum(y_bar * x),   sin_bar = sum(y_bar * rot(x))
    rope_backward:  cos_bar = sum(g * dy),      sin_bar = sum(rot(g) * dy)
                    (<g, -rot(dy * sin)> = <rot(g), dy * sin>)
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


def _rot(b, op, value):
    """rot(value) in `op`'s layout: rope with cos = 0 and sin = 1."""
    return b.like(op, rlx.RopeOp, [value, b.zeros(op.cos.type), b.ones(op.sin.type)], value)


@vjp_rule(rlx.RopeOp)
def rope(b, op, y_bar):
    """x_bar = rope_backward(y_bar, cos, sin); the tables' as in the module docstring."""
    x = op.input
    x_bar = b.like(op, rlx.RopeBackwardOp, [y_bar, op.cos, op.sin], x)
    cos_bar = b.sum_to(b.mul(y_bar, x), op.cos)
    sin_bar = b.sum_to(b.mul(y_bar, _rot(b, op, x)), op.sin)
    return x_bar, cos_bar, sin_bar


@vjp_rule(rlx.RopeBackwardOp)
def rope_backward(b, op, g):
    """dy_bar = rope(g, cos, sin); the tables' as in the module docstring."""
    dy = op.grad_output
    dy_bar = b.like(op, rlx.RopeOp, [g, op.cos, op.sin], dy)
    cos_bar = b.sum_to(b.mul(g, dy), op.cos)
    sin_bar = b.sum_to(b.mul(_rot(b, op, g), dy), op.sin)
    return dy_bar, cos_bar, sin_bar
