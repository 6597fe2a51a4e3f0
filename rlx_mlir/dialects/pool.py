"""Pools: max, average and adaptive pooling and their gradients, in 1-D to 3-D, PyTorch's semantics.

Max pooling pads with -inf, so a padded cell never wins; each window's gradient goes to
its first maximum. Average pooling divides by the window's cells inside the padded input
(`count_include_pad`, the default), by those inside the input, or by `divisor_override`.
In `ceil_mode` the last window may run past the padded input (it starts inside the input or
its low padding). Adaptive pools choose their windows from the input and output sizes
(`geometry.adaptive_window`), so their only geometry is the result type.
"""

from __future__ import annotations

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR
from rlx_mlir.dialects.tensors import format_shape
from rlx_mlir.dialects.windows import (
    AVG_POOL_WINDOW,
    MAX_POOL_WINDOW,
    AvgPoolWindowOp,
    MaxPoolWindowOp,
    SpatialOp,
    for_ranks,
)


class _ForwardPool(SpatialOp):
    """[N, C, *in] -> [N, C, *out]."""

    def verify_shapes(self) -> None:
        x, _ = self.spatial_shapes()
        window = self.window()
        window.validate_pool_padding()
        self.expect_result_shape((x[0], x[1], *window.output_size(x[2:])))


class MaxPoolNdOp(_ForwardPool, MaxPoolWindowOp):
    """`y = max_pool(x)` (F.max_pool1d/2d/3d); padded cells never win (PyTorch pads with -inf)."""

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {MAX_POOL_WINDOW} {SIGNATURE}"


MAX_POOL = for_ranks(MaxPoolNdOp, "rlx.max_pool{}d")
MaxPool1dOp, MaxPool2dOp, MaxPool3dOp = MAX_POOL


class AvgPoolNdOp(_ForwardPool, AvgPoolWindowOp):
    """`y = avg_pool(x)` (F.avg_pool1d/2d/3d); the divisor as `AvgPoolWindowOp` states it."""

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {AVG_POOL_WINDOW} {SIGNATURE}"


AVG_POOL = for_ranks(AvgPoolNdOp, "rlx.avg_pool{}d")
AvgPool1dOp, AvgPool2dOp, AvgPool3dOp = AVG_POOL


class MaxPoolNdBackwardOp(MaxPoolWindowOp):
    """`dx` of `y = max_pool(x)`: each window's dy goes to its first maximum (PyTorch's rule)."""

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $grad_output {MAX_POOL_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, dy, _ = self.spatial_shapes()
        window = self.window()
        window.validate_pool_padding()
        expected = (x[0], x[1], *window.output_size(x[2:]))
        if tuple(dy) != expected:
            raise VerifyException(
                f"expected grad_output of shape {format_shape(expected)} (the pool's output for "
                f"input {format_shape(x)}), got {format_shape(dy)}"
            )
        self.expect_result_shape(x)


MAX_POOL_BACKWARD = for_ranks(MaxPoolNdBackwardOp, "rlx.max_pool{}d_backward")
MaxPool1dBackwardOp, MaxPool2dBackwardOp, MaxPool3dBackwardOp = MAX_POOL_BACKWARD


def _expect_same_channels(dy, dx) -> None:
    if dy[1] != dx[1]:
        raise VerifyException(f"expected result channels to equal grad_output channels ({dy[1]}), got {dx[1]}")


class AvgPoolNdBackwardOp(AvgPoolWindowOp):
    """`dx` of `y = avg_pool(x)`: dy [N, C, *out] -> dx of the declared input shape."""

    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output {AVG_POOL_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy, dx = self.spatial_shapes()
        expect_same_batch(dy, "grad_output", dx, "result")
        _expect_same_channels(dy, dx)
        window = self.window()
        window.validate_pool_padding()
        out = window.output_size(dx[2:])
        if tuple(dy[2:]) != out:
            raise VerifyException(
                f"expected grad_output spatial size {list(out)} (the pool's output for input "
                f"{list(dx[2:])}), got {list(dy[2:])}"
            )


AVG_POOL_BACKWARD = for_ranks(AvgPoolNdBackwardOp, "rlx.avg_pool{}d_backward")
AvgPool1dBackwardOp, AvgPool2dBackwardOp, AvgPool3dBackwardOp = AVG_POOL_BACKWARD


def _expect_nonempty_input(shape, what: str) -> None:
    if any(size < 1 for size in shape[2:]):
        raise VerifyException(
            f"expected the {what} to have a non-empty spatial size (an adaptive pool needs a cell "
            f"for every window), got {list(shape[2:])}"
        )


class _AdaptivePool(SpatialOp):
    """[N, C, *in] -> [N, C, *out], the output size being the result type's."""

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, y = self.spatial_shapes()
        _expect_nonempty_input(x, "input")
        self.expect_result_shape((x[0], x[1], *y[2:]))


class AdaptiveAvgPoolNdOp(_AdaptivePool):
    """`y = adaptive_avg_pool(x)` (F.adaptive_avg_pool1d/2d/3d): cell i averages `geometry.adaptive_window(i)`."""


ADAPTIVE_AVG_POOL = for_ranks(AdaptiveAvgPoolNdOp, "rlx.adaptive_avg_pool{}d")
AdaptiveAvgPool1dOp, AdaptiveAvgPool2dOp, AdaptiveAvgPool3dOp = ADAPTIVE_AVG_POOL


class AdaptiveAvgPoolNdBackwardOp(SpatialOp):
    """`dx` of `y = adaptive_avg_pool(x)`: dy [N, C, *out] -> dx of the declared input shape."""

    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy, dx = self.spatial_shapes()
        expect_same_batch(dy, "grad_output", dx, "result")
        _expect_same_channels(dy, dx)
        _expect_nonempty_input(dx, "result")


ADAPTIVE_AVG_POOL_BACKWARD = for_ranks(AdaptiveAvgPoolNdBackwardOp, "rlx.adaptive_avg_pool{}d_backward")
AdaptiveAvgPool1dBackwardOp, AdaptiveAvgPool2dBackwardOp, AdaptiveAvgPool3dBackwardOp = ADAPTIVE_AVG_POOL_BACKWARD


class AdaptiveMaxPoolNdOp(_AdaptivePool):
    """`y = adaptive_max_pool(x)` (F.adaptive_max_pool1d/2d/3d, its values): cell i is the max of its window."""


ADAPTIVE_MAX_POOL = for_ranks(AdaptiveMaxPoolNdOp, "rlx.adaptive_max_pool{}d")
AdaptiveMaxPool1dOp, AdaptiveMaxPool2dOp, AdaptiveMaxPool3dOp = ADAPTIVE_MAX_POOL


class AdaptiveMaxPoolNdBackwardOp(SpatialOp):
    """`dx` of `y = adaptive_max_pool(x)`: each window's dy goes to its first maximum; dx has x's shape."""

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $grad_output {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, dy, _ = self.spatial_shapes()
        _expect_nonempty_input(x, "input")
        expect_same_batch(x, "input", dy, "grad_output")
        if dy[1] != x[1]:
            raise VerifyException(f"expected grad_output channels to equal the input channels ({x[1]}), got {dy[1]}")
        self.expect_result_shape(x)


ADAPTIVE_MAX_POOL_BACKWARD = for_ranks(AdaptiveMaxPoolNdBackwardOp, "rlx.adaptive_max_pool{}d_backward")
AdaptiveMaxPool1dBackwardOp, AdaptiveMaxPool2dBackwardOp, AdaptiveMaxPool3dBackwardOp = ADAPTIVE_MAX_POOL_BACKWARD
