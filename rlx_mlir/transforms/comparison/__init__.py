"""The comparison family as linalg: comparisons and logical ops with broadcasting, any/all."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.comparison.forward import BooleanReductionToLinalg, PredicateToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every comparison-family op (`forward`)."""
    patterns += [PredicateToLinalg(), BooleanReductionToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """None: the family has no backward ops (its results carry no gradient)."""
