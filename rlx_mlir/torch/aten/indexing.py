"""The embedding lookup and its dense gradient."""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.indexing import NO_PADDING
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
