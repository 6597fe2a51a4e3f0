"""VJP rules of the pools and their gradients, any spatial rank.

A pool is linear in x (average) or linear given its argmax (max), and its gradient is
the transposed map, so each pair closes on itself:

    <y_bar, avg_pool(x)> = <avg_pool_backward(y_bar), x>
    <y_bar, max_pool(x)> = <max_pool_backward(x, y_bar), x>         (the argmax held fixed)
    <dx_bar, max_pool_backward(x, dy)> = <max_pool_gather(x, dx_bar), dy>

`max_pool_gather` (`dialects.adjoint`) reads its second operand at each window's first
maximum of x; the max-pool gradient is constant in x between ties, so its x-cotangent is
zero almost everywhere (PyTorch's double backward gives the same). The adaptive pools
follow the same identities over their adaptive windows.
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(*rlx.MAX_POOL)
def max_pool(b, op, y_bar):
    """y = max_pool(x): x_bar = max_pool_backward(x, y_bar)."""
    return (b.like(op, rlx.MAX_POOL_BACKWARD, [op.input, y_bar], op.input),)


@vjp_rule(*rlx.MAX_POOL_BACKWARD)
def max_pool_backward(b, op, dx_bar):
    """dx = max_pool_backward(x, dy), linear in dy: dy_bar = max_pool_gather(x, dx_bar); x_bar = 0 a.e."""
    dy_bar = b.like(op, rlx.MAX_POOL_GATHER, [op.input, dx_bar], op.grad_output)
    return None, dy_bar


@vjp_rule(*rlx.AVG_POOL)
def avg_pool(b, op, y_bar):
    """y = avg_pool(x): x_bar = avg_pool_backward(y_bar)."""
    return (b.like(op, rlx.AVG_POOL_BACKWARD, [y_bar], op.input),)


@vjp_rule(*rlx.AVG_POOL_BACKWARD)
def avg_pool_backward(b, op, dx_bar):
    """dx = avg_pool_backward(dy), the transpose of avg_pool: dy_bar = avg_pool(dx_bar)."""
    return (b.like(op, rlx.AVG_POOL, [dx_bar], op.grad_output),)


@vjp_rule(*rlx.ADAPTIVE_AVG_POOL)
def adaptive_avg_pool(b, op, y_bar):
    """y = adaptive_avg_pool(x): x_bar = adaptive_avg_pool_backward(y_bar)."""
    return (b.like(op, rlx.ADAPTIVE_AVG_POOL_BACKWARD, [y_bar], op.input),)


@vjp_rule(*rlx.ADAPTIVE_AVG_POOL_BACKWARD)
def adaptive_avg_pool_backward(b, op, dx_bar):
    """dx = adaptive_avg_pool_backward(dy), its transpose: dy_bar = adaptive_avg_pool(dx_bar)."""
    return (b.like(op, rlx.ADAPTIVE_AVG_POOL, [dx_bar], op.grad_output),)


@vjp_rule(*rlx.ADAPTIVE_MAX_POOL)
def adaptive_max_pool(b, op, y_bar):
    """y = adaptive_max_pool(x): x_bar = adaptive_max_pool_backward(x, y_bar)."""
    return (b.like(op, rlx.ADAPTIVE_MAX_POOL_BACKWARD, [op.input, y_bar], op.input),)


@vjp_rule(*rlx.ADAPTIVE_MAX_POOL_BACKWARD)
def adaptive_max_pool_backward(b, op, dx_bar):
    """dx = adaptive_max_pool_backward(x, dy), linear in dy: dy_bar = adaptive_max_pool_gather(x, dx_bar)."""
    return None, b.like(op, rlx.ADAPTIVE_MAX_POOL_GATHER, [op.input, dx_bar], op.grad_output)
