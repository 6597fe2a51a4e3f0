"""The quantization family as linalg: fake quantization and its STE gradients, elementwise."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.quantization.fake_quantize import FakeQuantizeToLinalg, SteBackwardToLinalg
from rlx_mlir.transforms.quantization.per_channel import (
    FakeQuantizePerChannelBackwardToLinalg,
    FakeQuantizePerChannelToLinalg,
)


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.fake_quantize` and `rlx.fake_quantize_per_channel` (`forward`)."""
    patterns += [FakeQuantizeToLinalg(), FakeQuantizePerChannelToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.ste_backward`, every kind, and the per-channel gradient (`backward`)."""
    patterns += [SteBackwardToLinalg(), FakeQuantizePerChannelBackwardToLinalg()]
