"""The matmul family as linalg: `rlx.matmul`, 2-D and batched."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.matmul.forward import MatmulToLinalg
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.matmul` (`forward`)."""
    patterns += [MatmulToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """None: a matmul's gradients are matmuls."""
