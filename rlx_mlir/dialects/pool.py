"""Pools: max and average pooling and their gradients, PyTorch's semantics.

Max pooling pads with -inf, so a padded cell never wins; each window's gradient goes to
its first maximum. Average pooling divides by the full window (`count_include_pad`, the
default) or by the cells inside the input.
"""

from __future__ import annotations

from xdsl.irdl import irdl_op_definition, operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR
from rlx_mlir.dialects.tensors import format_shape
from rlx_mlir.dialects.windows import AVG_POOL_WINDOW, WINDOW, AvgPoolWindowOp, WindowOp


class _ForwardPool(WindowOp):
    """[N,C,H,W] -> [N,C,Ho,Wo]."""

    def verify_shapes(self) -> None:
        x, _ = self.shapes(4)
        window = self.window()
        window.validate_pool_padding()
        self.expect_result_shape((x[0], x[1], *window.output_size((x[2], x[3]))))


@irdl_op_definition
class MaxPool2dOp(_ForwardPool):
    """`y = max_pool2d(x)`; padded cells never win (PyTorch pads with -inf)."""

    name = "rlx.max_pool2d"

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {WINDOW} {SIGNATURE}"


@irdl_op_definition
class AvgPool2dOp(_ForwardPool, AvgPoolWindowOp):
    """`y = avg_pool2d(x)`; `count_include_pad` divides by the full window (PyTorch's default)."""

    name = "rlx.avg_pool2d"

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {AVG_POOL_WINDOW} {SIGNATURE}"


@irdl_op_definition
class MaxPool2dBackwardOp(WindowOp):
    """`dx` of `y = max_pool2d(x)`: each window's dy goes to its first maximum (PyTorch's rule)."""

    name = "rlx.max_pool2d_backward"

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $grad_output {WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, dy, _ = self.shapes(4)
        window = self.window()
        window.validate_pool_padding()
        expected = (x[0], x[1], *window.output_size((x[2], x[3])))
        if tuple(dy) != expected:
            raise VerifyException(
                f"expected grad_output of shape {format_shape(expected)} (the pool's output for "
                f"input {format_shape(x)}), got {format_shape(dy)}"
            )
        self.expect_result_shape(x)


@irdl_op_definition
class AvgPool2dBackwardOp(AvgPoolWindowOp):
    """`dx` of `y = avg_pool2d(x)`: dy [N,C,Ho,Wo] -> dx of the declared input shape."""

    name = "rlx.avg_pool2d_backward"

    grad_output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output {AVG_POOL_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy, dx = self.shapes(4)
        expect_same_batch(dy, "grad_output", dx, "result")
        if dy[1] != dx[1]:
            raise VerifyException(f"expected result channels to equal grad_output channels ({dy[1]}), got {dx[1]}")
        window = self.window()
        window.validate_pool_padding()
        out = window.output_size((dx[2], dx[3]))
        if tuple(dy[2:]) != out:
            raise VerifyException(
                f"expected grad_output spatial size {list(out)} (the pool's output for input "
                f"{list(dx[2:])}), got {list(dy[2:])}"
            )
