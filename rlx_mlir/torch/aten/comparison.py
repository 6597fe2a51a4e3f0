"""Comparisons, logical ops and any/all, as in `dialects/comparison`: results are bools (i1).

ATen's `.Scalar` overloads compare with a Python number, made a 0-d constant of the
tensor's element type that the op broadcasts. ATen promotes mixed types (an int tensor
against a float scalar compares in float); RLX does not, so a number that the tensor's
type cannot hold exactly is refused rather than rounded. `bitwise_*` on bools is the
logical op (PyTorch's masks from `is_causal` use them).
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import IntegerType

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import dims_of
from rlx_mlir.torch.emitter import Emitter
from rlx_mlir.torch.aten.table import ConverterTable

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts

COMPARISONS = {
    "eq": rlx.EqOp, "ne": rlx.NeOp, "lt": rlx.LtOp, "le": rlx.LeOp, "gt": rlx.GtOp, "ge": rlx.GeOp,
}


def operand(e: Emitter, value, like):
    """A tensor operand, or a number as a 0-d constant of `like`'s element type."""
    element = e.element(like)
    if isinstance(value, (bool, int, float)) and isinstance(element, IntegerType) and value != int(value):
        raise e.fail(f"comparing an integer tensor with {value!r}: RLX has no type promotion")
    return e.tensor(value, element)


def _compare(op):
    def convert(e: Emitter, node, a, b):
        return e.emit(op, [a, operand(e, b, a)], e.type_of(node))

    convert.__doc__ = f"aten -> {op.name} (a number becomes a 0-d constant of the tensor's type)"
    return convert


for _name, _op in COMPARISONS.items():
    converts(getattr(aten, _name).Tensor, getattr(aten, _name).Scalar)(_compare(_op))


def _logical(op):
    def convert(e: Emitter, node, a, b):
        return e.emit(op, [a, operand(e, b, a)], e.type_of(node))

    convert.__doc__ = f"aten -> {op.name}"
    return convert


converts(aten.logical_and.default)(_logical(rlx.LogicalAndOp))
converts(aten.logical_or.default)(_logical(rlx.LogicalOrOp))
converts(aten.logical_xor.default)(_logical(rlx.LogicalXorOp))


@converts(aten.bitwise_and.Tensor, aten.bitwise_or.Tensor, aten.bitwise_xor.Tensor)
def bitwise(e: Emitter, node, a, b):
    """On bools, the logical op; on integers there is no RLX op."""
    if e.dtype_of(node) is not torch.bool:
        raise e.fail(f"{node.target} on {e.dtype_of(node)}: RLX has bitwise ops only for bools (the logical ops)")
    op = {"bitwise_and": rlx.LogicalAndOp, "bitwise_or": rlx.LogicalOrOp, "bitwise_xor": rlx.LogicalXorOp}[
        node.target.overloadpacket.__name__
    ]
    return e.emit(op, [a, b], e.type_of(node))


@converts(aten.logical_not.default)
def logical_not(e: Emitter, node, a):
    return e.emit(rlx.LogicalNotOp, [a], e.type_of(node))


@converts(aten.bitwise_not.default)
def bitwise_not(e: Emitter, node, a):
    if e.dtype_of(node) is not torch.bool:
        raise e.fail(f"bitwise_not on {e.dtype_of(node)}: RLX has bitwise ops only for bools (logical_not)")
    return e.emit(rlx.LogicalNotOp, [a], e.type_of(node))


def _reduction(op):
    def convert(e: Emitter, node, x, dim=None, keepdim=False):
        rank = len(e.shape(x))
        if dim is not None and not isinstance(dim, int) and len(dim) == 0:
            # ATen's `any.dims(x, [])` reduces no dim: each element's truth value.
            zero = e.tensor(0, e.element(x)) if e.element(x) != e.type_of(node).element_type else None
            return e.emit(rlx.NeOp, [x, zero], e.type_of(node)) if zero is not None else x
        return e.emit(op, [x], e.type_of(node), dims=dims_of(dim, rank), keepdim=bool(keepdim))

    convert.__doc__ = f"aten -> {op.name} over `dim` (None: every dim; ATen's empty list: none)"
    return convert


converts(aten.any.default, aten.any.dim, aten.any.dims)(_reduction(rlx.AnyOp))
converts(aten.all.default, aten.all.dim, aten.all.dims)(_reduction(rlx.AllOp))
