"""The layout family as tensor/linalg ops: reshapes, permutes, broadcasts, slices, concats, splits."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.layout.backward import SliceBackwardToInsertSlice
from rlx_mlir.transforms.layout.forward import (
    ConcatToInsertSlices,
    ExpandToBroadcast,
    PermuteToTranspose,
    ReshapeToTensor,
    SliceToExtractSlice,
    SplitToExtractSlices,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every forward layout op (`forward`)."""
    patterns += [
        ReshapeToTensor(),
        PermuteToTranspose(),
        ExpandToBroadcast(),
        SliceToExtractSlice(),
        ConcatToInsertSlices(),
        SplitToExtractSlices(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The slice gradient (`backward`); the other layout ops' gradients are layout ops."""
    patterns += [SliceBackwardToInsertSlice()]
