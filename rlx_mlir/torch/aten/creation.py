"""Aliases, copies, conversions and creation ops: a value itself, a cast, or a splat constant.

Tensors are values in RLX, so an alias or a copy is its input, a dtype conversion is
`rlx.cast`, every fill (`full`, `zeros`, `empty`, ...) is an `arith.constant` of the
node's type, and `arange` is `rlx.arange` (its length is the result type's).
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import TensorType, i1

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.layout import broadcast_to
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


@converts(
    aten.alias.default, aten.clone.default, aten.detach.default, aten.lift_fresh_copy.default,
    aten.contiguous.default,
)
def identity(e: Emitter, node, x, *_, **__):
    """Ops that only alias or copy: the value itself (tensors are values in RLX)."""
    return x


@converts(aten._assert_tensor_metadata.default)
def assert_tensor_metadata(e: Emitter, node, *_, **__):
    """A check of the trace's own dtypes and shapes, with no result: nothing to compute."""
    return None


@converts(aten._to_copy.default)
def to_copy(e: Emitter, node, x, **_):
    """`x.to(dtype)`: the value itself when the element type stays, else `rlx.cast`. A random
    mask is already float where PyTorch's is bool, and declared in the type it is converted
    to (`Emitter.mask_argument`), so its conversions are it."""
    return e.cast(x, e.type_of(node).element_type)


@converts(aten.copy.default)
def copy(e: Emitter, node, destination, source, non_blocking=False):
    """`destination.copy_(source)` functionalized: source in destination's dtype, broadcast to its shape."""
    return broadcast_to(e, e.cast(source, e.element(destination)), e.type_of(node))


@converts(aten.arange.start_step, aten.arange.start, aten.arange.default)
def arange(e: Emitter, node, *bounds, **_):
    """`arange(end)`, `arange(start, end)`, `arange(start, end, step)` (dtype, device and
    layout are keywords, the dtype the result type's)."""
    if len(bounds) == 1:
        bounds = (0, *bounds)
    start, end, step = (*bounds, 1)[:3]
    return e.emit(rlx.ArangeOp, [], e.type_of(node), start=float(start), end=float(end), step=float(step))


def fill(e: Emitter, value, tensor_type: TensorType):
    """A tensor of one value: a splat constant, but a bool fill is `rlx.full`, made inside a
    kernel: the native backend's function graph carries no bool constants between kernels."""
    if tensor_type.element_type == i1:
        return e.append(rlx.FullOp.build_with([[]], tensor_type, value=float(bool(value)))).result  # no dynamic sizes
    return e.constant(value, tensor_type)


@converts(aten.full.default)
def full(e: Emitter, node, size, fill_value, **_):
    return fill(e, fill_value, e.type_of(node))


@converts(aten.full_like.default, aten.new_full.default)
def full_like(e: Emitter, node, x, fill_value, *_, **__):
    return fill(e, fill_value, e.type_of(node))


@converts(aten.zeros.default, aten.zeros_like.default, aten.new_zeros.default)
def zeros(e: Emitter, node, *_, **__):
    return fill(e, 0, e.type_of(node))


@converts(aten.ones.default, aten.ones_like.default, aten.new_ones.default)
def ones(e: Emitter, node, *_, **__):
    return fill(e, 1, e.type_of(node))


@converts(aten.scalar_tensor.default)
def scalar_tensor(e: Emitter, node, value, **_):
    return fill(e, value, e.type_of(node))


@converts(
    aten.empty.memory_format, aten.empty_permuted.default, aten.new_empty_strided.default,
    aten.new_empty.default, aten.empty_like.default, aten.empty_strided.default,
)
def empty(e: Emitter, node, *_, **__):
    """Unspecified contents (in practice overwritten, by `bernoulli`): zeros are one choice."""
    return fill(e, 0, e.type_of(node))
