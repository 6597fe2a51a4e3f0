"""VJP rules of the adjoint ops, the ops only autodiff emits (`dialects/adjoint.py`).

Each adjoint is the transpose of a linear map of its family, so its rule is that map again:

    <g_bar, max_pool_gather(x, z)> = <max_pool_backward(x, g_bar), z>   (the argmax held fixed)
    <x_bar, col2im(cols)>          = <im2col(x_bar), cols>

Their x-cotangents are zero almost everywhere: the argmax is constant in x between ties,
as for the max-pool gradient itself (`pool.py`).
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(*rlx.MAX_POOL_GATHER)
def max_pool_gather(b, op, g_bar):
    """g = max_pool_gather(x, z), linear in z: z_bar = max_pool_backward(x, g_bar); x_bar = 0 a.e."""
    z_bar = b.like(op, rlx.MAX_POOL_BACKWARD, [op.input, g_bar], op.source)
    return None, z_bar


@vjp_rule(*rlx.ADAPTIVE_MAX_POOL_GATHER)
def adaptive_max_pool_gather(b, op, g_bar):
    """g = adaptive_max_pool_gather(x, z), linear in z: z_bar = adaptive_max_pool_backward(x, g_bar)."""
    return None, b.like(op, rlx.ADAPTIVE_MAX_POOL_BACKWARD, [op.input, g_bar], op.source)


@vjp_rule(*rlx.COL2IM)
def col2im(b, op, x_bar):
    """x = col2im(cols), im2col's transpose: cols_bar = im2col(x_bar)."""
    return (b.like(op, rlx.IM2COL, [x_bar], op.input),)
