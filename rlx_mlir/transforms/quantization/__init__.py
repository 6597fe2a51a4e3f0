"""The quantization family as linalg: fake quantization and its STE gradients, elementwise."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.quantization.fake_quantize import FakeQuantizeToLinalg, SteBackwardToLinalg
from rlx_mlir.transforms.quantization.observer import ChooseQparamsToLinalg, MovingAverageMinMaxToLinalg
from rlx_mlir.transforms.quantization.per_channel import (
    FakeQuantizePerChannelBackwardToLinalg,
    FakeQuantizePerChannelToLinalg,
)
from rlx_mlir.transforms.quantization.tensor_qparams import (
    FakeQuantizeTensorQparamsBackwardToLinalg,
    FakeQuantizeTensorQparamsToLinalg,
)


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The fake quantizations (constant grid, per channel, grid operands) and the fused
    observer's statistics (`forward`)."""
    patterns += [
        FakeQuantizeToLinalg(),
        FakeQuantizePerChannelToLinalg(),
        FakeQuantizeTensorQparamsToLinalg(),
        MovingAverageMinMaxToLinalg(),
        ChooseQparamsToLinalg(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.ste_backward`, every kind, and the per-channel and grid-operand gradients (`backward`)."""
    patterns += [SteBackwardToLinalg(), FakeQuantizePerChannelBackwardToLinalg(), FakeQuantizeTensorQparamsBackwardToLinalg()]
