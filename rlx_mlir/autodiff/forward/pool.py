"""JVP rules of the pools, their gradients and their adjoints, any spatial rank.

    y = avg_pool(x), dx = avg_pool_backward(dy) (and adaptive): linear, the same op of the tangent
    y = max_pool(x):  y_dot = x_dot read at each window's argmax = max_pool_gather(x, x_dot)
    dx = max_pool_backward(x, dy), g = max_pool_gather(x, z): linear in dy (in z) with the
    argmax held fixed; constant in x between ties, so x's tangent contributes nothing a.e.

The adaptive max pool follows the same identities over its adaptive windows.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(*rlx.AVG_POOL, *rlx.AVG_POOL_BACKWARD, *rlx.ADAPTIVE_AVG_POOL, *rlx.ADAPTIVE_AVG_POOL_BACKWARD)
def linear(b, op, x_dot):
    return (product_rule(b, op, x_dot),)


@jvp_rule(*rlx.MAX_POOL)
def max_pool(b, op, x_dot):
    return (b.like(op, rlx.MAX_POOL_GATHER, [op.input, x_dot], op.results[0]),)


@jvp_rule(*rlx.ADAPTIVE_MAX_POOL)
def adaptive_max_pool(b, op, x_dot):
    return (b.like(op, rlx.ADAPTIVE_MAX_POOL_GATHER, [op.input, x_dot], op.results[0]),)


@jvp_rule(*rlx.MAX_POOL_BACKWARD, *rlx.ADAPTIVE_MAX_POOL_BACKWARD, *rlx.MAX_POOL_GATHER, *rlx.ADAPTIVE_MAX_POOL_GATHER)
def linear_given_argmax(b, op, _x_dot, source_dot):
    return (product_rule(b, op, _x_dot, source_dot, linear=[1]),)
