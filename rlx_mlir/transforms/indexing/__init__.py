"""The indexing family as linalg: the embedding lookup and its gradient, gather, index_select, scatter_add and scatter, index and index_put."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.indexing.advanced import IndexPutToLinalg, IndexToLinalg
from rlx_mlir.transforms.indexing.backward import EmbeddingBackwardToLinalg
from rlx_mlir.transforms.indexing.forward import EmbeddingToLinalg
from rlx_mlir.transforms.indexing.element_scatter import ScatterAddToLinalg, ScatterToLinalg, ScatterValueToLinalg
from rlx_mlir.transforms.indexing.gather import GatherToLinalg, IndexSelectToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The embedding lookup (`forward`), gather and index_select (`gather`), scatter_add and
    scatter's two forms (`element_scatter`), index and index_put (`advanced`)."""
    patterns += [
        EmbeddingToLinalg(), GatherToLinalg(), IndexSelectToLinalg(), ScatterAddToLinalg(),
        ScatterToLinalg(), ScatterValueToLinalg(), IndexToLinalg(), IndexPutToLinalg(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Its gradient (`backward`)."""
    patterns += [EmbeddingBackwardToLinalg()]
