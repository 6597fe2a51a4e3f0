"""Pools: max and average pooling and their gradients, PyTorch's semantics.

Max pooling pads with -inf, so a padded cell never wins; each window's gradient goes to
its first maximum. Average pooling divides by the full window (`count_include_pad`, the
default) or by the cells inside the input.
"""

from __future__ import annotations

from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import RlxOp, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR, bool_property, pair_property
from rlx_mlir.dialects.tensors import format_shape


class _ForwardPool(RlxOp):
    """[N,C,H,W] -> [N,C,Ho,Wo]."""

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        self.shape_of(-1, 4)
        window = self.window()
        window.validate_pool_padding()
        self.expect_result_shape((x[0], x[1], *window.output_size((x[2], x[3]))))


@irdl_op_definition
class MaxPool2dOp(_ForwardPool):
    """`y = max_pool2d(x)`; padded cells never win (PyTorch pads with -inf)."""

    name = "rlx.max_pool2d"

    input = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = pair_property()
    stride = pair_property()
    padding = pair_property()
    traits = traits_def(NoMemoryEffect())

    assembly_format = (
        "$input `kernel_size` $kernel_size `stride` $stride `padding` $padding"
        " attr-dict-with-keyword `:` functional-type(operands, results)"
    )


@irdl_op_definition
class AvgPool2dOp(_ForwardPool):
    """`y = avg_pool2d(x)`; `count_include_pad` divides by the full window (PyTorch's default)."""

    name = "rlx.avg_pool2d"

    input = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = pair_property()
    stride = pair_property()
    padding = pair_property()
    count_include_pad = bool_property(default=True)
    traits = traits_def(NoMemoryEffect())

    assembly_format = (
        "$input `kernel_size` $kernel_size `stride` $stride `padding` $padding"
        " (`count_include_pad` $count_include_pad^)? attr-dict-with-keyword `:` functional-type(operands, results)"
    )


@irdl_op_definition
class MaxPool2dBackwardOp(RlxOp):
    """`dx` of `y = max_pool2d(x)`: each window's dy goes to its first maximum (PyTorch's rule)."""

    name = "rlx.max_pool2d_backward"

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = pair_property()
    stride = pair_property()
    padding = pair_property()
    traits = traits_def(NoMemoryEffect())

    assembly_format = (
        "$input `,` $grad_output `kernel_size` $kernel_size `stride` $stride `padding` $padding"
        " attr-dict-with-keyword `:` functional-type(operands, results)"
    )

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        dy = self.shape_of(1, 4)
        self.shape_of(-1, 4)
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
class AvgPool2dBackwardOp(RlxOp):
    """`dx` of `y = avg_pool2d(x)`: dy [N,C,Ho,Wo] -> dx of the declared input shape."""

    name = "rlx.avg_pool2d_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = pair_property()
    stride = pair_property()
    padding = pair_property()
    count_include_pad = bool_property(default=True)
    traits = traits_def(NoMemoryEffect())

    assembly_format = (
        "$grad_output `kernel_size` $kernel_size `stride` $stride `padding` $padding"
        " (`count_include_pad` $count_include_pad^)? attr-dict-with-keyword `:` functional-type(operands, results)"
    )

    def verify_shapes(self) -> None:
        dy = self.shape_of(0, 4)
        dx = self.shape_of(-1, 4)
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
