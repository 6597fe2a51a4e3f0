"""The activation family as linalg: one elementwise generic per activation and per gradient."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.activation.backward import (
    GeluBackwardToLinalg,
    HardsigmoidBackwardToLinalg,
    HardswishBackwardToLinalg,
    HardtanhBackwardToLinalg,
    LeakyReluBackwardToLinalg,
    SigmoidBackwardToLinalg,
    SiluBackwardToLinalg,
    ThresholdBackwardToLinalg,
)
from rlx_mlir.transforms.activation.forward import (
    GeluToLinalg,
    HardsigmoidToLinalg,
    HardswishToLinalg,
    HardtanhToLinalg,
    LeakyReluToLinalg,
    ReluToLinalg,
    SigmoidToLinalg,
    SiluToLinalg,
)
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every forward activation (`forward`)."""
    patterns += [
        ReluToLinalg(),
        HardtanhToLinalg(),
        HardswishToLinalg(),
        HardsigmoidToLinalg(),
        SigmoidToLinalg(),
        SiluToLinalg(),
        GeluToLinalg(),
        LeakyReluToLinalg(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """Every activation gradient (`backward`)."""
    patterns += [
        ThresholdBackwardToLinalg(),
        HardtanhBackwardToLinalg(),
        HardswishBackwardToLinalg(),
        HardsigmoidBackwardToLinalg(),
        SigmoidBackwardToLinalg(),
        SiluBackwardToLinalg(),
        GeluBackwardToLinalg(),
        LeakyReluBackwardToLinalg(),
    ]
