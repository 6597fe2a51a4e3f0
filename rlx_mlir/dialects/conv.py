"""Convolutions: the forward conv and transposed conv, im2col, and the conv gradients.

Layouts are PyTorch's: x [N,C,H,W], w [F,C/g,KH,KW] (transposed: [C,F/g,KH,KW]). Sizes
follow `Window2d.output_size`: `floor((in + 2p - d*(k-1) - 1) / s) + 1`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.irdl import irdl_op_definition, operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, expect_divisible, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR, pair_property
from rlx_mlir.dialects.tensors import is_dynamic
from rlx_mlir.dialects.windows import (
    CONV_GRADIENT_WINDOW,
    CONV_WINDOW,
    WINDOW,
    ConvGradientWindowOp,
    ConvWindowOp,
    WindowOp,
)


@irdl_op_definition
class Conv2dOp(ConvWindowOp):
    """`y = conv2d(x, w)`: x [N,C,H,W], w [F,C/g,KH,KW] -> y [N,F,Ho,Wo] (PyTorch's F.conv2d)."""

    name = "rlx.conv2d"

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $weight {CONV_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, w, _ = self.shapes(4)
        groups = self.groups()
        expect_divisible(x[1], groups, "input")
        expect_divisible(w[0], groups, "output (weight dimension 0)")
        if w[1] * groups != x[1]:
            raise VerifyException(
                f"expected weight dimension 1 to be input channels / groups = {x[1] // groups}, got {w[1]}"
            )
        out = self.window().output_size((x[2], x[3]))
        self.expect_result_shape((x[0], w[0], *out))


@irdl_op_definition
class ConvTranspose2dOp(ConvWindowOp):
    """`y = conv_transpose2d(x, w)`: x [N,C,H,W], w [C,F/g,KH,KW] -> y [N,F,Ho,Wo] (F.conv_transpose2d)."""

    name = "rlx.conv_transpose2d"

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    output_padding = pair_property(default=(0, 0))

    assembly_format = (
        "$input `,` $weight `stride` $stride `padding` $padding (`dilation` $dilation^)?"
        f" (`output_padding` $output_padding^)? (`groups` $groups^)? {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        x, w, _ = self.shapes(4)
        groups = self.groups()
        expect_divisible(x[1], groups, "input")
        if w[0] != x[1]:
            raise VerifyException(f"expected weight dimension 0 to be the input channels ({x[1]}), got {w[0]}")
        window = self.window()
        output_padding = self.geometry_value("output_padding")
        for i in range(2):
            bound = max(window.stride[i], window.dilation[i])
            if not 0 <= output_padding[i] < bound:
                raise VerifyException(
                    f"expected output_padding to be non-negative and smaller than stride or dilation, "
                    f"got {list(output_padding)} with stride {list(window.stride)} and dilation {list(window.dilation)}"
                )
        out = window.transpose_output_size((x[2], x[3]), output_padding)
        self.expect_result_shape((x[0], w[1] * groups, *out))


@irdl_op_definition
class Im2colOp(WindowOp):
    """`cols = im2col(x)`: [N,C,H,W] -> [N*Ho*Wo, C*KH*KW], rows (n, ho, wo), columns (c, kh, kw).

    Exactly `F.unfold(x).transpose(1, 2).reshape(-1, C*KH*KW)`; padded cells read 0.
    """

    name = "rlx.im2col"

    input = operand_def(FLOAT_TENSOR)
    dilation = pair_property(default=(1, 1))

    assembly_format = f"$input {WINDOW} (`dilation` $dilation^)? {SIGNATURE}"

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        self.shape_of(-1, 2)
        window = self.window()
        ho, wo = window.output_size((x[2], x[3]))
        rows = DYNAMIC_INDEX if is_dynamic(x[0]) else x[0] * ho * wo
        self.expect_result_shape((rows, x[1] * window.kernel[0] * window.kernel[1]))


@irdl_op_definition
class Conv2dBackwardWeightOp(ConvGradientWindowOp):
    """`dw = d(loss)/dw` of `y = conv2d(x, w)`: x [N,C,H,W], dy [N,F,Ho,Wo] -> dw [F,C/g,KH,KW]."""

    name = "rlx.conv2d_backward_weight"

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $grad_output {CONV_GRADIENT_WINDOW} {SIGNATURE}"

    def batched_values(self) -> set[str]:
        return {"input", "grad_output"}  # dw [F, C/g, KH, KW] has no batch

    def verify_shapes(self) -> None:
        x, dy, _ = self.shapes(4)
        expect_same_batch(x, "input", dy, "grad_output")
        groups = self.groups()
        expect_divisible(x[1], groups, "input")
        expect_divisible(dy[1], groups, "grad_output")
        window = self.window()
        out = window.output_size((x[2], x[3]))
        if tuple(dy[2:]) != out:
            raise VerifyException(
                f"expected grad_output spatial size {list(out)} (the forward conv's output for "
                f"input {list(x[2:])}), got {list(dy[2:])}"
            )
        self.expect_result_shape((dy[1], x[1] // groups, *window.kernel))


@irdl_op_definition
class Conv2dBackwardInputOp(ConvGradientWindowOp):
    """`dx = d(loss)/dx` of `y = conv2d(x, w)`: dy [N,F,Ho,Wo], w [F,C/g,KH,KW] -> dx [N,C,H,W].

    dx's spatial size is the declared result type: any size that the forward conv maps to
    dy's size (up to stride - 1 sizes share one dy size).
    """

    name = "rlx.conv2d_backward_input"

    grad_output = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $weight {CONV_GRADIENT_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy, w, dx = self.shapes(4)
        expect_same_batch(dy, "grad_output", dx, "result")
        groups = self.groups()
        window = self.window()
        if tuple(w[2:]) != tuple(window.kernel):
            raise VerifyException(
                f"expected kernel_size {list(window.kernel)} to match the weight spatial size {list(w[2:])}"
            )
        expect_divisible(w[0], groups, "output (weight dimension 0)")
        if dy[1] != w[0]:
            raise VerifyException(f"expected grad_output channels ({dy[1]}) to equal weight dimension 0 ({w[0]})")
        if dx[1] != w[1] * groups:
            raise VerifyException(
                f"expected result channels to be weight dimension 1 x groups = {w[1] * groups}, got {dx[1]}"
            )
        window.output_size((dx[2], dx[3]))
        window.solved_output_padding((dy[2], dy[3]), (dx[2], dx[3]))
