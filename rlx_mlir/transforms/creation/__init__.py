"""The creation family as linalg: casts and arange as one generic each, full as a fill."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.creation.forward import ArangeToLinalg, CastToLinalg, FullToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every creation op (`forward`)."""
    patterns += [CastToLinalg(), ArangeToLinalg(), FullToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """None: the family has no backward op."""
