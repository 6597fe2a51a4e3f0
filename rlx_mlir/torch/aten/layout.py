"""Shape changes, slices, pads, concatenation and splits (`dialects/layout`).

Each converter drops the ops that would not change the value (a reshape to the same
shape, an identity permutation, a full slice), so the step holds only real data movement.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import TensorType

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import dim_index
from rlx_mlir.torch.aten.elementwise import binary
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter, OnlyFor

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def broadcast_to(e: Emitter, value, tensor_type: TensorType):
    if e.shape(value) == tuple(tensor_type.get_shape()):
        return value
    return e.emit(rlx.ExpandOp, [value], tensor_type)


@converts(
    aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.squeeze.dim, aten.squeeze.dims,
    aten.squeeze.default, aten.unsqueeze.default, aten.flatten.using_ints,
)
def reshape(e: Emitter, node, x, *_):
    """Every shape change that keeps the element order: `rlx.reshape` to the result's shape.
    A max pool's indices (`pool.MaxPoolIndices`) stay what they are: their gather reshapes."""
    if isinstance(x, OnlyFor):
        return x
    return e.reshape(x, e.type_of(node).get_shape())


@converts(aten.permute.default)
def permute(e: Emitter, node, x, dims):
    rank = len(e.shape(x))
    return permutation(e, node, x, [dim_index(d, rank) for d in dims])


def permutation(e: Emitter, node, x, dims: list[int]):
    if dims == sorted(dims):
        return x
    return e.emit(rlx.PermuteOp, [x], e.type_of(node), dims=dims)


@converts(aten.t.default)
def transpose_matrix(e: Emitter, node, x):
    return permutation(e, node, x, [1, 0] if len(e.shape(x)) == 2 else list(range(len(e.shape(x)))))


@converts(aten.transpose.int)
def transpose(e: Emitter, node, x, dim0, dim1):
    rank = len(e.shape(x))
    dims = list(range(rank))
    a, b = dim_index(dim0, rank), dim_index(dim1, rank)
    dims[a], dims[b] = dims[b], dims[a]
    return permutation(e, node, x, dims)


@converts(aten.expand.default)
def expand(e: Emitter, node, x, size, implicit=False):
    return broadcast_to(e, x, e.type_of(node))


def slice_bounds(size: int, start, end, step) -> tuple[int, int, int]:
    """ATen's slice arguments as `0 <= start <= end <= size`, `step >= 1`."""
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end, step


@converts(aten.slice.Tensor)
def slice_tensor(e: Emitter, node, x, dim=0, start=None, end=None, step=1):
    shape = e.shape(x)
    dim = dim_index(dim, len(shape))
    start, end, step = slice_bounds(shape[dim], start, end, step)
    if (start, end, step) == (0, shape[dim], 1):
        return x
    return e.emit(rlx.SliceOp, [x], e.type_of(node), dim=dim, start=start, end=end, step=step)


@converts(aten.slice_backward.default)
def slice_backward(e: Emitter, node, grad_output, input_sizes, dim, start, end, step):
    dim = dim_index(dim, len(input_sizes))
    start, end, step = slice_bounds(input_sizes[dim], start, end, step)
    if (start, end, step) == (0, input_sizes[dim], 1):
        return grad_output
    return e.emit(rlx.SliceBackwardOp, [grad_output], e.type_of(node), dim=dim, start=start, end=end, step=step)


@converts(aten.select.int)
def select(e: Emitter, node, x, dim, index):
    """`x[..., index, ...]`: a slice of one, then the dim dropped."""
    shape = list(e.shape(x))
    dim = dim_index(dim, len(shape))
    index = index + shape[dim] if index < 0 else index
    kept = TensorType(e.element(x), [*shape[:dim], 1, *shape[dim + 1:]])
    one = x if shape[dim] == 1 else e.emit(rlx.SliceOp, [x], kept, dim=dim, start=index, end=index + 1, step=1)
    return e.reshape(one, e.type_of(node).get_shape())


@converts(aten.select_backward.default)
def select_backward(e: Emitter, node, grad_output, input_sizes, dim, index):
    dim = dim_index(dim, len(input_sizes))
    index = index + input_sizes[dim] if index < 0 else index
    kept = e.reshape(grad_output, [*input_sizes[:dim], 1, *input_sizes[dim + 1:]])
    if input_sizes[dim] == 1:
        return kept
    return e.emit(rlx.SliceBackwardOp, [kept], e.type_of(node), dim=dim, start=index, end=index + 1, step=1)


@converts(aten.constant_pad_nd.default)
def constant_pad_nd(e: Emitter, node, x, pad, value=0):
    """`F.pad(x, pad, value=v)`: the negative pads crop (`rlx.slice`), the positive ones place
    the cropped x into a larger tensor (`rlx.slice_backward`, zeros around), and for v != 0
    `+ v * (1 - mask)`, the mask the same placement of ones: exact in every cell.
    `pad` pairs (low, high) run from the last dim backwards, as ATen's."""
    shape = list(e.shape(x))
    rank = len(shape)
    if len(pad) % 2 or len(pad) // 2 > rank:
        raise e.fail(f"constant_pad_nd with {len(pad)} pad values for a rank-{rank} tensor")
    element = e.element(x)
    bounds = {rank - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}
    for dim, (low, high) in sorted(bounds.items()):
        start, end = max(-low, 0), shape[dim] - max(-high, 0)
        if end < start:
            raise e.fail(f"constant_pad_nd crops dim {dim} of size {shape[dim]} by {-low}, {-high}: nothing left")
        if (start, end) != (0, shape[dim]):
            shape[dim] = end - start
            x = e.emit(rlx.SliceOp, [x], TensorType(element, list(shape)), dim=dim, start=start, end=end, step=1)

    def placed(value_in):
        current = list(shape)
        for dim, (low, high) in sorted(bounds.items()):
            if max(low, 0) or max(high, 0):
                size = current[dim]
                current[dim] = size + max(low, 0) + max(high, 0)
                value_in = e.emit(rlx.SliceBackwardOp, [value_in], TensorType(element, list(current)), dim=dim,
                                  start=max(low, 0), end=max(low, 0) + size, step=1)
        return value_in

    y = placed(x)
    if value == 0 or y is x:
        return y
    ty = e.type_of(node)
    outside = binary(e, node, rlx.SubOp, 1.0, placed(e.constant(1, TensorType(element, list(shape)))))
    return e.emit(rlx.AddOp, [y, binary(e, node, rlx.MulOp, outside, value)], ty)


@converts(aten.cat.default)
def cat(e: Emitter, node, tensors, dim=0):
    tensors = [t for t in tensors if e.shape(t) != (0,)]  # ATen skips legacy empty [0] tensors
    if len(tensors) == 1:
        return tensors[0]
    return e.emit(rlx.ConcatOp, tensors, e.type_of(node), dim=dim_index(dim, len(e.shape(tensors[0]))))


@converts(aten.split_with_sizes.default)
def split_with_sizes(e: Emitter, node, x, split_sizes, dim=0):
    return split(e, node, x, list(split_sizes), dim)


@converts(aten.split.Tensor)
def split_tensor(e: Emitter, node, x, split_size, dim=0):
    size = e.shape(x)[dim_index(dim, len(e.shape(x)))]
    sizes = [min(split_size, size - start) for start in range(0, size, split_size)] or [0]
    return split(e, node, x, sizes, dim)


def split(e: Emitter, node, x, sizes: list[int], dim: int):
    if len(sizes) == 1:
        return (x,)
    types = [e.type_of(node, i) for i in range(len(sizes))]
    return e.emit(rlx.SplitOp, [x], types, dim=dim_index(dim, len(e.shape(x))), sizes=sizes)
