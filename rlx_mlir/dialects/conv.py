"""Convolutions: the forward conv and transposed conv, im2col, and their gradients, in 1-D to 3-D.

Layouts are PyTorch's: x [N, C, *spatial], w [F, C/g, *K] (transposed: [C, F/g, *K]).
Sizes follow `geometry.Window`: `floor((in + pl + ph - d*(k-1) - 1) / s) + 1` per axis.
Each family is written once for any spatial rank; `for_ranks` makes its 1-D, 2-D and 3-D ops.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, expect_divisible, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR, sizes_property
from rlx_mlir.dialects.tensors import is_dynamic
from rlx_mlir.dialects.windows import (
    CONV_GRADIENT_WINDOW,
    CONV_WINDOW,
    WINDOW,
    ConvGradientWindowOp,
    ConvWindowOp,
    WindowOp,
    for_ranks,
)


class ConvNdOp(ConvWindowOp):
    """`y = conv(x, w)`: x [N, C, *in], w [F, C/g, *K] -> y [N, F, *out] (PyTorch's F.conv1d/2d/3d)."""

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $weight {CONV_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, w, _ = self.spatial_shapes()
        groups = self.groups()
        expect_divisible(x[1], groups, "input")
        expect_divisible(w[0], groups, "output (weight dimension 0)")
        if w[1] * groups != x[1]:
            raise VerifyException(
                f"expected weight dimension 1 to be input channels / groups = {x[1] // groups}, got {w[1]}"
            )
        out = self.window().output_size(x[2:])
        self.expect_result_shape((x[0], w[0], *out))


CONV = for_ranks(ConvNdOp, "rlx.conv{}d")
Conv1dOp, Conv2dOp, Conv3dOp = CONV


class ConvTransposeNdOp(ConvWindowOp):
    """`y = conv_transpose(x, w)`: x [N, C, *in], w [C, F/g, *K] -> y [N, F, *out] (F.conv_transpose1d/2d/3d).

    `padding` crops the output (per side, when given per side); `output_padding` adds to its
    high side, `0 <= output_padding < max(stride, dilation)` as PyTorch requires.
    """

    RANK_DEFAULTS: ClassVar[dict[str, int]] = {"dilation": 1, "output_padding": 0}

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    output_padding = sizes_property()

    assembly_format = (
        "$input `,` $weight `stride` $stride `padding` $padding (`dilation` $dilation^)?"
        f" (`output_padding` $output_padding^)? (`groups` $groups^)? {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        x, w, _ = self.spatial_shapes()
        groups = self.groups()
        expect_divisible(x[1], groups, "input")
        if w[0] != x[1]:
            raise VerifyException(f"expected weight dimension 0 to be the input channels ({x[1]}), got {w[0]}")
        window = self.window()
        output_padding = self.geometry_value("output_padding")
        window.validate_output_padding(output_padding)
        out = window.transpose_output_size(x[2:], output_padding)
        self.expect_result_shape((x[0], w[1] * groups, *out))


CONV_TRANSPOSE = for_ranks(ConvTransposeNdOp, "rlx.conv_transpose{}d")
ConvTranspose1dOp, ConvTranspose2dOp, ConvTranspose3dOp = CONV_TRANSPOSE


class Im2colNdOp(WindowOp):
    """`cols = im2col(x)`: [N, C, *in] -> [N * prod(out), C * prod(K)], rows (n, *out), columns (c, *K).

    In 2-D exactly `F.unfold(x).transpose(1, 2).reshape(-1, C*KH*KW)`; padded cells read 0.
    The 2-D op keeps its historic name `rlx.im2col` (image to columns); the others are
    `rlx.im2col1d` and `rlx.im2col3d`.
    """

    RANK_DEFAULTS: ClassVar[dict[str, int]] = {"dilation": 1}

    input = operand_def(FLOAT_TENSOR)
    dilation = sizes_property()

    assembly_format = f"$input {WINDOW} (`dilation` $dilation^)? {SIGNATURE}"

    def verify_shapes(self) -> None:
        x = self.shape_of(0, self.tensor_rank())
        self.shape_of(-1, 2)
        window = self.window()
        out = window.output_size(x[2:])
        rows = DYNAMIC_INDEX if is_dynamic(x[0]) else x[0] * math.prod(out)
        self.expect_result_shape((rows, x[1] * math.prod(window.kernel)))


IM2COL = for_ranks(Im2colNdOp, "rlx.im2col{}d", renamed={2: ("rlx.im2col", "Im2colOp")})
Im2col1dOp, Im2colOp, Im2col3dOp = IM2COL


def _expect_grad_output_size(got, expected, input_spatial, of: str) -> None:
    if tuple(got) != tuple(expected):
        raise VerifyException(
            f"expected grad_output spatial size {list(expected)} (the {of}'s output for "
            f"input {list(input_spatial)}), got {list(got)}"
        )


class WeightGradientOp(ConvGradientWindowOp):
    """A weight gradient: x [N, C, *in], dy [N, F, *out] -> dw, a sum over the batch and the cells.

    Both operands carry the batch; dw has none.
    """

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $grad_output {CONV_GRADIENT_WINDOW} {SIGNATURE}"

    def batched_values(self) -> set[str]:
        return {"input", "grad_output"}

    def verify_shapes(self) -> None:
        x, dy, _ = self.spatial_shapes()
        expect_same_batch(x, "input", dy, "grad_output")
        groups = self.groups()
        expect_divisible(x[1], groups, "input")
        expect_divisible(dy[1], groups, "grad_output")
        self.verify_weight_gradient(x, dy, self.window(), groups)

    def verify_weight_gradient(self, x, dy, window, groups: int) -> None:
        raise NotImplementedError


class ConvNdBackwardWeightOp(WeightGradientOp):
    """`dw = d(loss)/dw` of `y = conv(x, w)`: x [N, C, *in], dy [N, F, *out] -> dw [F, C/g, *K]."""

    def verify_weight_gradient(self, x, dy, window, groups: int) -> None:
        _expect_grad_output_size(dy[2:], window.output_size(x[2:]), x[2:], "forward conv")
        self.expect_result_shape((dy[1], x[1] // groups, *window.kernel))


CONV_BACKWARD_WEIGHT = for_ranks(ConvNdBackwardWeightOp, "rlx.conv{}d_backward_weight")
Conv1dBackwardWeightOp, Conv2dBackwardWeightOp, Conv3dBackwardWeightOp = CONV_BACKWARD_WEIGHT


def _expect_kernel_is_weight(window, w) -> None:
    if tuple(w[2:]) != tuple(window.kernel):
        raise VerifyException(
            f"expected kernel_size {list(window.kernel)} to match the weight spatial size {list(w[2:])}"
        )


class ConvNdBackwardInputOp(ConvGradientWindowOp):
    """`dx = d(loss)/dx` of `y = conv(x, w)`: dy [N, F, *out], w [F, C/g, *K] -> dx [N, C, *in].

    dx's spatial size is the declared result type: any size that the forward conv maps to
    dy's size (up to stride - 1 sizes share one dy size).
    """

    grad_output = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $weight {CONV_GRADIENT_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy, w, dx = self.spatial_shapes()
        expect_same_batch(dy, "grad_output", dx, "result")
        groups = self.groups()
        window = self.window()
        _expect_kernel_is_weight(window, w)
        expect_divisible(w[0], groups, "output (weight dimension 0)")
        if dy[1] != w[0]:
            raise VerifyException(f"expected grad_output channels ({dy[1]}) to equal weight dimension 0 ({w[0]})")
        if dx[1] != w[1] * groups:
            raise VerifyException(
                f"expected result channels to be weight dimension 1 x groups = {w[1] * groups}, got {dx[1]}"
            )
        window.output_size(dx[2:])
        window.solved_output_padding(dy[2:], dx[2:])


CONV_BACKWARD_INPUT = for_ranks(ConvNdBackwardInputOp, "rlx.conv{}d_backward_input")
Conv1dBackwardInputOp, Conv2dBackwardInputOp, Conv3dBackwardInputOp = CONV_BACKWARD_INPUT


class ConvTransposeNdBackwardInputOp(ConvWindowOp):
    """`dx = d(loss)/dx` of `y = conv_transpose(x, w)`: dy [N, F, *out], w [C, F/g, *K] -> dx [N, C, *in].

    dx's spatial size is the declared result type; the forward's `output_padding` is what
    makes `out` from it (`Window.solved_transpose_output_padding`), so it is not stated.
    """

    grad_output = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $weight {CONV_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy, w, dx = self.spatial_shapes()
        expect_same_batch(dy, "grad_output", dx, "result")
        groups = self.groups()
        expect_divisible(w[0], groups, "input (weight dimension 0)")
        if dx[1] != w[0]:
            raise VerifyException(f"expected result channels to equal weight dimension 0 ({w[0]}), got {dx[1]}")
        if dy[1] != w[1] * groups:
            raise VerifyException(
                f"expected grad_output channels to be weight dimension 1 x groups = {w[1] * groups}, got {dy[1]}"
            )
        self.window().solved_transpose_output_padding(dx[2:], dy[2:])


CONV_TRANSPOSE_BACKWARD_INPUT = for_ranks(ConvTransposeNdBackwardInputOp, "rlx.conv_transpose{}d_backward_input")
ConvTranspose1dBackwardInputOp, ConvTranspose2dBackwardInputOp, ConvTranspose3dBackwardInputOp = (
    CONV_TRANSPOSE_BACKWARD_INPUT
)


class ConvTransposeNdBackwardWeightOp(WeightGradientOp):
    """`dw = d(loss)/dw` of `y = conv_transpose(x, w)`: x [N, C, *in], dy [N, F, *out] -> dw [C, F/g, *K].

    The forward's `output_padding` is solved from the sizes, as for the input gradient.
    """

    def verify_weight_gradient(self, x, dy, window, groups: int) -> None:
        window.solved_transpose_output_padding(x[2:], dy[2:])
        self.expect_result_shape((x[1], dy[1] // groups, *window.kernel))


CONV_TRANSPOSE_BACKWARD_WEIGHT = for_ranks(ConvTransposeNdBackwardWeightOp, "rlx.conv_transpose{}d_backward_weight")
ConvTranspose1dBackwardWeightOp, ConvTranspose2dBackwardWeightOp, ConvTranspose3dBackwardWeightOp = (
    CONV_TRANSPOSE_BACKWARD_WEIGHT
)
