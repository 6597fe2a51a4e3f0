"""The scan family as loops: `rlx.linear_scan`, one `scf.for` over the scanned axis."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.scan.forward import LinearScanToLoop


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The linear scan (`forward`)."""
    patterns += [LinearScanToLoop()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The scans' gradients are scans (`autodiff.scan`): no backward op to decompose."""
