"""The adjoint ops as linalg: the max-pool gathers and col2im, which the autodiff rules emit."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.adjoint.backward import (
    AdaptiveMaxPoolGatherToLinalg,
    Col2imToLinalg,
    MaxPoolGatherToLinalg,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """None: the adjoint ops are `decompose-backward`'s (`adjoint.BACKWARD_OPS`)."""


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every adjoint op (`backward`)."""
    patterns += [MaxPoolGatherToLinalg(), AdaptiveMaxPoolGatherToLinalg(), Col2imToLinalg()]
