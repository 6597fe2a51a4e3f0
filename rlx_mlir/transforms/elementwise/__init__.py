"""The elementwise family as linalg: binary and unary ops with broadcasting, reductions, addmm."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.elementwise.forward import (
    AddmmToLinalg,
    BinaryToLinalg,
    ReductionToLinalg,
    UnaryToLinalg,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every elementwise op (`forward`)."""
    patterns += [BinaryToLinalg(), UnaryToLinalg(), ReductionToLinalg(), AddmmToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """None: the elementwise ops' gradients are elementwise ops."""
