"""The adjoint ops as linalg: the max-pool gathers and col2im, which the autodiff rules emit."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.adjoint.backward import (
    AdaptiveMaxPoolGatherToLinalg,
    Col2imToLinalg,
    MaxPool2dGatherFirstMaxTiled,
    MaxPoolGatherToLinalg,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """None: the adjoint ops are `decompose-backward`'s (`adjoint.BACKWARD_OPS`)."""


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every adjoint op (`backward`); a max-pool gather on tiling windows in the form of the
    tiled max-pool gradient, whose argmax it shares."""
    patterns += [MaxPool2dGatherFirstMaxTiled(), MaxPoolGatherToLinalg(), AdaptiveMaxPoolGatherToLinalg(), Col2imToLinalg()]
