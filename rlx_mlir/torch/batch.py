"""The dynamic batch of an imported graph: which symbolic sizes RLX takes, and the one
product that moves the batch out of the leading dimension.

torch.export (a `Dim` on dim 0 of the inputs) and Dynamo (`dynamic=True`, or a second
batch size) trace a graph whose fake tensors carry symbolic sizes: the batch `s0`, and
sizes derived from it (`s0*32` after `view(-1, V)`). RLX's ops and kernels take a dynamic
size in the leading dimension only (`?`, the batch), so every other symbolic size is
refused with its place, and the FX nodes that compute sizes (`sym_size`, `s0*32`) give no
op: the types carry the batch.

One pattern of every linear layer's backward puts the batch elsewhere: its weight gradient
`mm(t(dy), x)` transposes `dy[B, M]` to `[M, B]` and contracts over B. There the
transpose is not emitted; the product is the contraction over the leading dimension that
RLX has, the weight gradient of a 1x1 convolution:

    dw[m, n] = sum_b dy[b, m] * x[b, n] = conv1d_backward_weight(x[b, n, 1], dy[b, m, 1])[m, n, 0]
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import sympy
import torch
from xdsl.dialects.builtin import TensorType

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.errors import UnsupportedGraph

aten = torch.ops.aten

_TRANSPOSITIONS = (aten.t.default, aten.permute.default, aten.transpose.int)


def specialised(size, sizes: Mapping | None):
    """`size` with the symbols `sizes` gives values to replaced by them: an int, or still a
    SymInt (the batch). Dynamo's graphs make every size symbolic; the rlx backend gives the
    sizes that are not the batch their values (`dynamo.SizeBindings`)."""
    if isinstance(size, int) or not sizes:
        return size
    expr = size.node.expr.subs(sizes)
    return size if expr.free_symbols else int(expr)


def dynamic_shape_problem(shape) -> str | None:
    """Why RLX cannot take `shape` (a fake tensor's), or None: only the leading dimension,
    the batch, may be symbolic."""
    inner = [size for size in tuple(shape)[1:] if not isinstance(size, int)]
    if not inner:
        return None
    return (f"dynamic size {inner[0]} in the shape {tuple(shape)}: RLX takes a dynamic size only in the leading "
            "(batch) dimension")


def batches_in(size, batch) -> Fraction:
    """How many batches a traced leading `size` holds: 1 for the batch B itself, T for
    `B*T` (a dropout after `view(-1, C)`), 1 for a static size. A step's random mask is
    drawn at this multiple of the call's batch."""
    if not isinstance(size, torch.SymInt) or not isinstance(batch, torch.SymInt):
        return Fraction(1)
    ratio = sympy.simplify(size.node.expr / batch.node.expr)
    if not ratio.is_Rational:
        raise UnsupportedGraph(f"a random op's leading size {size} is no multiple of the batch {batch}")
    return Fraction(int(ratio.p), int(ratio.q))


def is_symbolic_scalar(value) -> bool:
    """A size of a dynamic shape (`sym_size`, `B*T`) that an FX node computes."""
    return isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool))


def transposes_the_batch_into_a_product(node: torch.fx.Node, sizes: Mapping | None = None) -> bool:
    """`t(a)` of a matrix `a[B, M]` with a dynamic B, read only as the lhs of `mm`."""
    value = node.meta.get("val")
    if node.target not in _TRANSPOSITIONS or not isinstance(value, torch.Tensor) or value.dim() != 2:
        return False
    rows, columns = (specialised(size, sizes) for size in value.shape)
    if isinstance(columns, int) or not isinstance(rows, int):
        return False
    return bool(node.users) and all(user.target is aten.mm.default and user.args[0] is node and user.args[1] is not node
                                    for user in node.users)


def contract_over_batch(emitter, a, b, result_type: TensorType):
    """`t(a) @ b` for `a[B, M]`, `b[B, N]` with a dynamic B: the module docstring's 1x1 conv."""
    (m, n), element = result_type.get_shape(), result_type.element_type
    x = emitter.reshape(b, [*emitter.shape(b), 1])
    dy = emitter.reshape(a, [*emitter.shape(a), 1])
    dw = emitter.emit(rlx.Conv1dBackwardWeightOp, [x, dy], TensorType(element, [m, n, 1]),
                      kernel_size=[1], stride=[1], padding=[0], dilation=[1], groups=1)
    return emitter.reshape(dw, [m, n])
