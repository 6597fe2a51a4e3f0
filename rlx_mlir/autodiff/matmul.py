"""VJP rule of `rlx.matmul`: C = A B, plain or batched.

    <C_bar, A B> = <C_bar B^T, A> = <A^T C_bar, B>

The transposes swap the last two dimensions (`rlx.permute`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


def transposed(b, value):
    """value with its last two dimensions swapped."""
    shape = list(value.type.get_shape())
    dims = list(range(len(shape)))
    dims[-2:], shape[-2:] = dims[-1:-3:-1], shape[-1:-3:-1]
    return b.build(rlx.PermuteOp, [value], TensorType(value.type.element_type, shape), dims=dims)


@vjp_rule(rlx.MatmulOp)
def matmul(b, op, c_bar):
    """C = A B: A_bar = C_bar B^T, B_bar = A^T C_bar."""
    a_bar = b.build(rlx.MatmulOp, [c_bar, transposed(b, op.rhs)], op.lhs)
    b_bar = b.build(rlx.MatmulOp, [transposed(b, op.lhs), c_bar], op.rhs)
    return a_bar, b_bar
