"""The attention family as linalg: flash-style loops over key blocks, forward and backward."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.attention.backward import AttentionBackwardToLinalg
from rlx_mlir.transforms.attention.forward import AttentionToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.attention` (`forward`)."""
    patterns += [AttentionToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.attention_backward` (`backward`)."""
    patterns += [AttentionBackwardToLinalg()]
