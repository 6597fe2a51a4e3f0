"""The normalization family as linalg: batch norm and layer norm, forward and backward."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.norm.backward import BatchNormBackwardToLinalg, LayerNormBackwardToLinalg
from rlx_mlir.transforms.norm.forward import (
    BatchNormInferenceToLinalg,
    BatchNormToLinalg,
    LayerNormToLinalg,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Batch norm (training and inference) and layer norm (`forward`)."""
    patterns += [BatchNormToLinalg(), BatchNormInferenceToLinalg(), LayerNormToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Their gradients (`backward`)."""
    patterns += [BatchNormBackwardToLinalg(), LayerNormBackwardToLinalg()]
