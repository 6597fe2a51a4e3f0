"""A pattern that leaves an op says why, and an op no pattern rewrote lists those reasons.

The passes have a pattern for every valid configuration, so the reasons show only in a bug
of ours: a pattern set run without its general forms stands for one here. The error's
first line stays the one the tools print; the reasons follow it, one per pattern.
"""

from __future__ import annotations

import pytest

from rlx_mlir.dialects.rlx import BACKWARD_OPS
from rlx_mlir.errors import EXIT_INTERNAL_ERROR
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.tools.cli import internal_error
from rlx_mlir.transforms.conv.grouped_backward import GroupedConvBackwardWeightRows
from rlx_mlir.transforms.conversion import InternalRewriteError, apply_full_conversion
from rlx_mlir.transforms.pool.max_backward import MaxPool2dBackwardFirstMaxInterleaved, MaxPool2dBackwardFirstMaxTiled

# Stride 1 with padding: the windows overlap, so they do not tile the input.
OVERLAPPING_MAX_POOL = """\
func.func @f(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %dx : tensor<1x4x8x8xf32>
}
"""

# One group: the grouped rows form leaves it to the ungrouped forms.
UNGROUPED_WEIGHT_GRADIENT = """\
func.func @g(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
"""


def test_the_error_lists_why_each_pool_pattern_declined():
    module = parse_module(make_context(), OVERLAPPING_MAX_POOL, "input.mlir")
    patterns = [MaxPool2dBackwardFirstMaxTiled(), MaxPool2dBackwardFirstMaxInterleaved()]
    with pytest.raises(InternalRewriteError) as caught:
        apply_full_conversion(module, patterns, BACKWARD_OPS, "decompose-backward")
    first, *reasons = str(caught.value).splitlines()
    assert first == (
        "input.mlir:2:9: failed to legalize operation 'rlx.max_pool2d_backward': decompose-backward has a "
        "pattern for every valid configuration, but none rewrote this one"
    )
    assert reasons == [
        "  MaxPool2dBackwardFirstMaxTiled declined: the windows do not tile the input "
        "(stride == kernel, no padding, dilation 1, floor mode)",
        "  MaxPool2dBackwardFirstMaxInterleaved declined: column stride 1: no phases to interleave",
    ]


def test_the_error_lists_why_the_grouped_conv_pattern_declined():
    module = parse_module(make_context(), UNGROUPED_WEIGHT_GRADIENT, "input.mlir")
    with pytest.raises(InternalRewriteError, match=r"\n  GroupedConvBackwardWeightRows declined: one group: the ungrouped forms take it$"):
        apply_full_conversion(module, [GroupedConvBackwardWeightRows()], BACKWARD_OPS, "decompose-backward")


def test_the_tools_print_the_reasons_of_an_internal_error(capsys):
    module = parse_module(make_context(), OVERLAPPING_MAX_POOL, "input.mlir")
    try:
        apply_full_conversion(module, [MaxPool2dBackwardFirstMaxTiled()], BACKWARD_OPS, "decompose-backward")
    except InternalRewriteError as error:
        assert internal_error("rlx-opt", error) == EXIT_INTERNAL_ERROR
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("rlx-opt: internal error: InternalRewriteError: input.mlir:2:9: failed to legalize")
    assert lines[1].startswith("  MaxPool2dBackwardFirstMaxTiled declined: the windows do not tile the input")
    assert lines[2].startswith("(rerun with RLX_MLIR_DEBUG=1")
