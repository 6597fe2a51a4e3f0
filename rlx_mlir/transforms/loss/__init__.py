"""The loss family as linalg: softmax, log-softmax and the NLL loss, forward and backward."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.loss.backward import (
    LogSoftmaxBackwardToLinalg,
    NllLossBackwardToLinalg,
    SoftmaxBackwardToLinalg,
)
from rlx_mlir.transforms.loss.forward import LogSoftmaxToLinalg, NllLossToLinalg, SoftmaxToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Log-softmax, softmax and the NLL loss (`forward`)."""
    patterns += [LogSoftmaxToLinalg(), SoftmaxToLinalg(), NllLossToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Their gradients (`backward`)."""
    patterns += [LogSoftmaxBackwardToLinalg(), SoftmaxBackwardToLinalg(), NllLossBackwardToLinalg()]
