"""The normalization family as linalg: batch norm, layer norm, RMS norm and group norm, forward and backward."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.norm.backward import (
    BatchNormBackwardToLinalg,
    BatchNormInferenceBackwardToLinalg,
    LayerNormBackwardToLinalg,
    RmsNormBackwardToLinalg,
)
from rlx_mlir.transforms.norm.forward import (
    BatchNormInferenceToLinalg,
    BatchNormToLinalg,
    LayerNormToLinalg,
    RmsNormToLinalg,
)
from rlx_mlir.transforms.norm.group import GroupNormBackwardToLinalg, GroupNormToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Batch norm (training and inference), layer norm, RMS norm (`forward`) and group norm (`group`)."""
    patterns += [
        BatchNormToLinalg(), BatchNormInferenceToLinalg(), LayerNormToLinalg(), RmsNormToLinalg(), GroupNormToLinalg(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Their gradients (`backward`; group norm's in `group`)."""
    patterns += [
        BatchNormBackwardToLinalg(), BatchNormInferenceBackwardToLinalg(), LayerNormBackwardToLinalg(),
        RmsNormBackwardToLinalg(), GroupNormBackwardToLinalg(),
    ]
