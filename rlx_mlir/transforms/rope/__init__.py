"""The RoPE family as linalg: the rotation of pairs and its transpose, one generic each."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.rope.rotation import RopeBackwardToLinalg, RopeToLinalg


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.rope` (`forward`)."""
    patterns += [RopeToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.rope_backward` (`backward`)."""
    patterns += [RopeBackwardToLinalg()]
