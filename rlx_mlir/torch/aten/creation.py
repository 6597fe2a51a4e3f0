"""Aliases, copies and creation ops: a value itself, or a splat constant.

Tensors are values in RLX, so an alias or a copy is its input, and every creation op
(`full`, `zeros`, `empty`, ...) is an `arith.constant` of the node's type.
"""

from __future__ import annotations

import torch

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
    """`x.to(dtype)`: the value itself when the element type stays. A random mask is already
    float where PyTorch's is bool, and declared in the type it is converted to
    (`Emitter.mask_argument`), so its conversions are it."""
    if e.element(x) == e.type_of(node).element_type:
        return x
    raise e.fail(f"dtype conversion to {e.dtype_of(node)}: RLX has no conversion op")


@converts(aten.copy.default)
def copy(e: Emitter, node, destination, source, non_blocking=False):
    """`destination.copy_(source)` functionalized: source, broadcast to destination's shape."""
    if e.element(source) != e.element(destination):
        raise e.fail("a copy that converts the dtype: RLX has no conversion op")
    return broadcast_to(e, source, e.type_of(node))


@converts(aten.full.default)
def full(e: Emitter, node, size, fill_value, **_):
    return e.constant(fill_value, e.type_of(node))


@converts(aten.full_like.default, aten.new_full.default)
def full_like(e: Emitter, node, x, fill_value, *_, **__):
    return e.constant(fill_value, e.type_of(node))


@converts(aten.zeros.default, aten.zeros_like.default, aten.new_zeros.default)
def zeros(e: Emitter, node, *_, **__):
    return e.constant(0, e.type_of(node))


@converts(aten.ones.default, aten.ones_like.default, aten.new_ones.default)
def ones(e: Emitter, node, *_, **__):
    return e.constant(1, e.type_of(node))


@converts(aten.scalar_tensor.default)
def scalar_tensor(e: Emitter, node, value, **_):
    return e.constant(value, e.type_of(node))


@converts(
    aten.empty.memory_format, aten.empty_permuted.default, aten.new_empty_strided.default,
    aten.new_empty.default, aten.empty_like.default, aten.empty_strided.default,
)
def empty(e: Emitter, node, *_, **__):
    """Unspecified contents (in practice overwritten, by `bernoulli`): zeros are one choice."""
    return e.constant(0, e.type_of(node))
