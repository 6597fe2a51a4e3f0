"""Selection by a bool mask, clamping and triangles, as in `dialects/selection`.

ATen's `where.self` promotes its two values to one dtype, and the causal masks of
`F.scaled_dot_product_attention` feed it `scalar_tensor`s: a value of another element type
than the result is converted (`rlx.cast`), as PyTorch's promotion converts it. A Python
number becomes a 0-d constant of the result's type, which `rlx.where` broadcasts.
`masked_fill.Tensor`'s 0-d value tensor is no property: it is `where(mask, value, self)`.
Clamp's backward has no ATen op (PyTorch records a `where` over `ge`/`le`), so it arrives
as those ops.
"""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


@converts(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def where(e: Emitter, node, condition, x, other):
    """`condition ? x : other`, the three broadcast to the result."""
    ty = e.type_of(node)
    return e.emit(rlx.WhereOp, [condition, e.promoted(x, ty.element_type), e.promoted(other, ty.element_type)], ty)


@converts(aten.masked_fill.Scalar)
def masked_fill(e: Emitter, node, x, mask, value):
    return e.emit(rlx.MaskedFillOp, [x, mask], e.type_of(node), value=float(value))


@converts(aten.masked_fill.Tensor)
def masked_fill_tensor(e: Emitter, node, x, mask, value):
    """The value is a 0-d tensor (computed, so not a property): `where(mask, value, x)`."""
    ty = e.type_of(node)
    return e.emit(rlx.WhereOp, [mask, e.promoted(value, ty.element_type), x], ty)


def bounds(low, high) -> dict[str, float]:
    """clamp's bounds as properties; an absent bound is left at its infinite default."""
    return {name: float(bound) for name, bound in (("min", low), ("max", high)) if bound is not None}


@converts(aten.clamp.default)
def clamp(e: Emitter, node, x, min=None, max=None):
    return e.emit(rlx.ClampOp, [x], e.type_of(node), **bounds(min, max))


@converts(aten.clamp_min.default)
def clamp_min(e: Emitter, node, x, min):
    return e.emit(rlx.ClampOp, [x], e.type_of(node), **bounds(min, None))


@converts(aten.clamp_max.default)
def clamp_max(e: Emitter, node, x, max):
    return e.emit(rlx.ClampOp, [x], e.type_of(node), **bounds(None, max))


@converts(aten.tril.default)
def tril(e: Emitter, node, x, diagonal=0):
    return e.emit(rlx.TrilOp, [x], e.type_of(node), diagonal=diagonal)


@converts(aten.triu.default)
def triu(e: Emitter, node, x, diagonal=0):
    return e.emit(rlx.TriuOp, [x], e.type_of(node), diagonal=diagonal)
