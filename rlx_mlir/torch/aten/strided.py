"""`as_strided` and `as_strided_scatter`: the views of a dense tensor that RLX's layout ops express.

A strided view is accepted when it is a chain of layout ops of its input in memory order
(flatten, a contiguous window, reshape, permute, expand); gaps and overlaps are refused.
"""

from __future__ import annotations

import numpy as np
import torch
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.layout import broadcast_to
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def _storage_order(e: Emitter, value: torch.Tensor) -> list[int]:
    """The dims of a dense, non-overlapping tensor from outermost to innermost in memory
    (by decreasing stride; size-1 dims, whose stride is arbitrary, where they stand)."""
    sizes, strides = list(value.shape), list(value.stride())
    order = sorted(range(len(sizes)), key=lambda d: (-strides[d] if sizes[d] != 1 else 0, d))
    placed = [d for d in order if sizes[d] != 1]
    expected = 1
    for d in reversed(placed):
        if strides[d] != expected:
            raise e.fail(f"as_strided on a tensor with strides {tuple(strides)} for shape {tuple(sizes)}, "
                         "which is not a dense layout")
        expected *= sizes[d]
    return [d for d in range(len(sizes)) if sizes[d] == 1] + placed


def _flat_storage(e: Emitter, node, x) -> SSAValue:
    """x's elements in its memory order, as a 1-D tensor (what as_strided indexes)."""
    value = node.args[0].meta["val"]
    order = _storage_order(e, value)
    shape = e.shape(x)
    if order != sorted(order):
        x = e.emit(rlx.PermuteOp, [x], TensorType(e.element(x), [shape[d] for d in order]), dims=order)
    return e.reshape(x, [int(np.prod(shape, dtype=np.int64))])


def _strided_view_layout(e: Emitter, size, stride, offset: int, numel: int):
    """How `y[i] = flat[offset + sum_k i_k stride_k]` is a layout of `flat`: (window, shape,
    dims, broadcast): y is flat[offset : offset + window] reshaped to `shape` (the dims of
    nonzero stride, outermost first), permuted by `dims` to y's order, then broadcast over
    the dims of stride 0. Anything else is refused (gaps, overlaps, out of range)."""
    size, stride = list(size), list(stride)
    real = [d for d in range(len(size)) if size[d] != 1 and stride[d] != 0]
    broadcast = [d for d in range(len(size)) if size[d] != 1 and stride[d] == 0]
    order = sorted(real, key=lambda d: -stride[d])
    expected = 1
    for d in reversed(order):
        if stride[d] != expected:
            raise e.fail(f"as_strided with size {tuple(size)}, stride {tuple(stride)}: not a dense view "
                         "(RLX expresses reshape, permute, expand and a contiguous window of its input)")
        expected *= size[d]
    if offset < 0 or offset + expected > numel:
        raise e.fail(f"as_strided window [{offset}, {offset + expected}) outside the input's {numel} elements")
    dims = [order.index(d) for d in real]
    return expected, [size[d] for d in order], dims, broadcast


@converts(aten.as_strided.default)
def as_strided(e: Emitter, node, x, size, stride, storage_offset=None):
    """`y[i] = storage(x)[offset + sum_k i_k stride_k]` when that is a layout op chain of x
    (ConvNeXt's head re-strides a [N, C, 1, 1] mean, and its backward views a flat buffer):
    x in memory order, flattened, a window, reshape, permute, expand."""
    offset = storage_offset or 0
    flat = _flat_storage(e, node, x)
    numel = e.shape(flat)[0]
    window, shape, dims, broadcast = _strided_view_layout(e, size, stride, offset, numel)
    element = e.element(x)
    if (offset, window) != (0, numel):
        flat = e.emit(rlx.SliceOp, [flat], TensorType(element, [window]), dim=0, start=offset, end=offset + window,
                      step=1)
    y = e.reshape(flat, shape)
    if dims != sorted(dims):
        y = e.emit(rlx.PermuteOp, [y], TensorType(element, [shape[d] for d in dims]), dims=dims)
    y = e.reshape(y, [1 if d in broadcast else s for d, s in enumerate(size)])
    return broadcast_to(e, y, e.type_of(node))


@converts(aten.as_strided_scatter.default)
def as_strided_scatter(e: Emitter, node, base, src, size, stride, storage_offset=None):
    """`base` with its strided view (as `as_strided`) replaced by `src`: src through the
    inverse layout (inverse permute, reshape, `slice_backward` into the window), and base
    kept outside the window: `base - slice_backward(slice(base)) + slice_backward(src)`,
    exact in every cell."""
    offset = storage_offset or 0
    value = node.args[0].meta["val"]
    if not value.is_contiguous():
        raise e.fail(f"as_strided_scatter into a base with strides {tuple(value.stride())}: only a contiguous base")
    element = e.element(base)
    base_shape = e.shape(base)
    numel = int(np.prod(base_shape, dtype=np.int64))
    window, shape, dims, broadcast = _strided_view_layout(e, size, stride, offset, numel)
    if broadcast:
        raise e.fail(f"as_strided_scatter through stride-0 dims {broadcast}: several writes to one cell")
    permuted = [shape[d] for d in dims]
    y = e.reshape(src, permuted)
    if dims != sorted(dims):
        inverse = [dims.index(k) for k in range(len(dims))]
        y = e.emit(rlx.PermuteOp, [y], TensorType(element, shape), dims=inverse)
    y = e.reshape(y, [window])
    if (offset, window) == (0, numel):
        return e.reshape(y, base_shape)
    flat_type = TensorType(element, [numel])
    window_of = dict(dim=0, start=offset, end=offset + window, step=1)
    flat_base = e.reshape(base, [numel])
    inside = e.emit(rlx.SliceOp, [flat_base], TensorType(element, [window]), **window_of)
    outside = e.emit(rlx.SubOp, [flat_base, e.emit(rlx.SliceBackwardOp, [inside], flat_type, **window_of)], flat_type)
    result = e.emit(rlx.AddOp, [outside, e.emit(rlx.SliceBackwardOp, [y], flat_type, **window_of)], flat_type)
    return e.reshape(result, base_shape)
