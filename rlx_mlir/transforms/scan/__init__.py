"""The scan family as loops: `rlx.linear_scan` and `rlx.cumsum`, each one `scf.for` over the scanned axis."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.scan.forward import CumsumToLoop, LinearScanToLoop


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The linear scan and the cumulative sum (`forward`)."""
    patterns += [LinearScanToLoop(), CumsumToLoop()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The scans' gradients are scans (`autodiff.scan`): no backward op to decompose."""
