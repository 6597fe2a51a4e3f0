"""The normalization family as linalg: batch norm, layer norm and RMS norm, forward and backward."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.norm.backward import (
    BatchNormBackwardToLinalg,
    LayerNormBackwardToLinalg,
    RmsNormBackwardToLinalg,
)
from rlx_mlir.transforms.norm.forward import (
    BatchNormInferenceToLinalg,
    BatchNormToLinalg,
    LayerNormToLinalg,
    RmsNormToLinalg,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Batch norm (training and inference), layer norm and RMS norm (`forward`)."""
    patterns += [BatchNormToLinalg(), BatchNormInferenceToLinalg(), LayerNormToLinalg(), RmsNormToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Their gradients (`backward`)."""
    patterns += [BatchNormBackwardToLinalg(), LayerNormBackwardToLinalg(), RmsNormBackwardToLinalg()]
