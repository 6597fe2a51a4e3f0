"""The embedding lookup and its dense gradient; gather, index_select and the scatters along a dim."""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import TensorType

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.indexing import NO_PADDING
from rlx_mlir.torch.aten.arguments import dim_index
from rlx_mlir.torch.aten.pool import MaxPoolIndices
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def padding_row(padding_idx: int, rows: int) -> int:
    """ATen's padding_idx as RLX's: a row of the table, or -1. ATen compares it with each
    in-range index, so a value outside [0, rows) (nn.Embedding passes -1) pads nothing."""
    return padding_idx if 0 <= padding_idx < rows else NO_PADDING


@converts(aten.embedding.default)
def embedding(e: Emitter, node, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """`sparse` changes only which gradient op PyTorch records, which the importer then meets."""
    return e.emit(rlx.EmbeddingOp, [weight, indices], e.type_of(node),
                  padding_idx=padding_row(padding_idx, e.shape(weight)[0]), scale_grad_by_freq=scale_grad_by_freq)


@converts(aten.embedding_dense_backward.default)
def embedding_dense_backward(e: Emitter, node, grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """num_weights is the result type's row count."""
    return e.emit(rlx.EmbeddingBackwardOp, [grad_output, indices], e.type_of(node),
                  padding_idx=padding_row(padding_idx, num_weights), scale_grad_by_freq=scale_grad_by_freq)


@converts(aten.gather.default)
def gather(e: Emitter, node, x, dim, index, sparse_grad=False):
    """`sparse_grad` changes only how PyTorch stores the gradient, which is a scatter_add here.
    At a max pool's indices (its double backward) it is `max_pool_gather`."""
    if isinstance(index, MaxPoolIndices):
        return index.gather(e, node, x, dim)
    return e.emit(rlx.GatherOp, [x, index], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten.index_select.default)
def index_select(e: Emitter, node, x, dim, index):
    return e.emit(rlx.IndexSelectOp, [x, index], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten.scatter.src)
def scatter(e: Emitter, node, x, dim, index, src):
    return e.emit(rlx.ScatterOp, [x, index, src], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten.scatter.value)
def scatter_value(e: Emitter, node, x, dim, index, value):
    return e.emit(rlx.ScatterValueOp, [x, index], e.type_of(node), dim=dim_index(dim, len(e.shape(x))),
                  value=float(value))


@converts(aten.scatter_add.default)
def scatter_add(e: Emitter, node, x, dim, index, src):
    return e.emit(rlx.ScatterAddOp, [x, index, src], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten.index_add.default)
def index_add(e: Emitter, node, x, dim, index, source, alpha=1):
    """`x[..., index[i], ...] += alpha * source[..., i, ...]` (index_select's backward) is a
    scatter_add whose index is the 1-D index broadcast along `dim` to the source's shape."""
    shape = e.shape(source)
    dim = dim_index(dim, len(shape))
    along = e.reshape(index, [size if axis == dim else 1 for axis, size in enumerate(shape)])
    positions = e.emit(rlx.ExpandOp, [along], TensorType(e.element(index), list(shape))) if e.shape(along) != shape else along
    if alpha != 1:
        source = e.emit(rlx.MulOp, [source, e.scalar(alpha, e.element(source))], source.type)
    return e.emit(rlx.ScatterAddOp, [x, positions, source], e.type_of(node), dim=dim)
