"""The indexing family as linalg: the embedding lookup and its gradient, gather, index_select, scatter_add and scatter, index and index_put."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.indexing.advanced import IndexPutToLinalg, IndexToLinalg
from rlx_mlir.transforms.indexing.backward import EmbeddingBackwardToLinalg
from rlx_mlir.transforms.indexing.forward import EmbeddingToLinalg
from rlx_mlir.transforms.indexing.gather import GatherToLinalg, IndexSelectToLinalg, ScatterAddToLinalg
from rlx_mlir.transforms.indexing.scatter import ScatterToLinalg, ScatterValueToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The embedding lookup (`forward`), gather, index_select and scatter_add (`gather`),
    scatter's two forms (`scatter`), index and index_put (`advanced`)."""
    patterns += [
        EmbeddingToLinalg(), GatherToLinalg(), IndexSelectToLinalg(), ScatterAddToLinalg(),
        ScatterToLinalg(), ScatterValueToLinalg(), IndexToLinalg(), IndexPutToLinalg(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Its gradient (`backward`)."""
    patterns += [EmbeddingBackwardToLinalg()]
