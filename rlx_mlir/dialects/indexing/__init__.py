"""Indexing: ops that read or write a tensor at positions held in i64 tensors (ATen's semantics).

- `one_dim`: positions along one dim: the embedding lookup and its gradient, gather,
  index_select, scatter_add and scatter;
- `advanced`: positions of the leading k dims, one index tensor each (PyTorch's advanced
  indexing `x[i, j]`): index and index_put.
"""

from __future__ import annotations

from rlx_mlir.dialects.indexing.advanced import IndexOp, IndexPutOp
from rlx_mlir.dialects.indexing.one_dim import (
    NO_PADDING,
    POSITIONS,
    ROW_INDICES,
    EmbeddingBackwardOp,
    EmbeddingOp,
    GatherOp,
    IndexSelectOp,
    ScatterAddOp,
    ScatterOp,
    ScatterValueOp,
)

FORWARD_OPS = (EmbeddingOp, GatherOp, ScatterAddOp, IndexSelectOp, ScatterOp, ScatterValueOp, IndexOp, IndexPutOp)
BACKWARD_OPS = (EmbeddingBackwardOp,)

__all__ = [
    "NO_PADDING", "POSITIONS", "ROW_INDICES", "EmbeddingBackwardOp", "EmbeddingOp", "GatherOp", "IndexSelectOp",
    "ScatterAddOp", "ScatterOp", "ScatterValueOp", "IndexOp", "IndexPutOp", "FORWARD_OPS", "BACKWARD_OPS",
]
