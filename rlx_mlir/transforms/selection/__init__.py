"""The selection family as linalg: one all-parallel generic per op, each a `select`."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.selection.backward import ClampBackwardToLinalg
from rlx_mlir.transforms.selection.forward import ClampToLinalg, MaskedFillToLinalg, TriangleToLinalg, WhereToLinalg


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every selection op (`forward`)."""
    patterns += [WhereToLinalg(), MaskedFillToLinalg(), ClampToLinalg(), TriangleToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """clamp's gradient (`backward`)."""
    patterns += [ClampBackwardToLinalg()]
