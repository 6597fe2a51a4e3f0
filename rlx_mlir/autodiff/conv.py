"""VJP rules of the convolutions and their gradients, any spatial rank.

With `conv(x, w)` the forward conv, `BI(dy, w)` its input gradient and `BW(x, dy)` its
weight gradient, every op of the family is linear in each operand, and one inner product
gives each rule:

    <y_bar, conv(x, w)> = <BI(y_bar, w), x> = <BW(x, y_bar), w>

The transposed conv `convT(x, w)` has its own pair: `TBI(dy, w)` (a forward conv of dy)
and `TBW(x, dy)`:

    <y_bar, convT(x, w)> = <TBI(y_bar, w), x> = <TBW(x, y_bar), w>

Each rule reads that identity once per operand. Every op shares the window of the op it
differentiates (stride, padding, dilation, groups); a gradient states the kernel size.
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import kernel, vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(*rlx.CONV)
def conv(b, op, y_bar):
    """y = conv(x, w): x_bar = BI(y_bar, w), w_bar = BW(x, y_bar)."""
    k = kernel(op)
    x_bar = b.like(op, rlx.CONV_BACKWARD_INPUT, [y_bar, op.weight], op.input, kernel_size=k)
    w_bar = b.like(op, rlx.CONV_BACKWARD_WEIGHT, [op.input, y_bar], op.weight, kernel_size=k)
    return x_bar, w_bar


@vjp_rule(*rlx.CONV_BACKWARD_INPUT)
def conv_backward_input(b, op, dx_bar):
    """dx = BI(dy, w) is linear in dy and in w: dy_bar = conv(dx_bar, w), w_bar = BW(dx_bar, dy)."""
    dy_bar = b.like(op, rlx.CONV, [dx_bar, op.weight], op.grad_output)
    w_bar = b.like(op, rlx.CONV_BACKWARD_WEIGHT, [dx_bar, op.grad_output], op.weight)  # roles swapped
    return dy_bar, w_bar


@vjp_rule(*rlx.CONV_BACKWARD_WEIGHT)
def conv_backward_weight(b, op, dw_bar):
    """dw = BW(x, dy) is bilinear: x_bar = BI(dy, dw_bar), dy_bar = conv(x, dw_bar)."""
    x_bar = b.like(op, rlx.CONV_BACKWARD_INPUT, [op.grad_output, dw_bar], op.input)
    dy_bar = b.like(op, rlx.CONV, [op.input, dw_bar], op.grad_output)
    return x_bar, dy_bar


@vjp_rule(*rlx.CONV_TRANSPOSE)
def conv_transpose(b, op, y_bar):
    """y = convT(x, w): x_bar = TBI(y_bar, w), w_bar = TBW(x, y_bar)."""
    x_bar = b.like(op, rlx.CONV_TRANSPOSE_BACKWARD_INPUT, [y_bar, op.weight], op.input)
    w_bar = b.like(op, rlx.CONV_TRANSPOSE_BACKWARD_WEIGHT, [op.input, y_bar], op.weight, kernel_size=kernel(op))
    return x_bar, w_bar


def _output_padding(op, x, y) -> tuple[int, ...]:
    """The output_padding of the transposed conv that maps `x`'s spatial size to `y`'s."""
    return op.window().solved_transpose_output_padding(x.type.get_shape()[2:], y.type.get_shape()[2:])


@vjp_rule(*rlx.CONV_TRANSPOSE_BACKWARD_INPUT)
def conv_transpose_backward_input(b, op, dx_bar):
    """dx = TBI(dy, w), linear in both: dy_bar = convT(dx_bar, w), w_bar = TBW(dx_bar, dy)."""
    output_padding = _output_padding(op, op.results[0], op.grad_output)
    dy_bar = b.like(op, rlx.CONV_TRANSPOSE, [dx_bar, op.weight], op.grad_output, output_padding=output_padding)
    w_bar = b.like(
        op, rlx.CONV_TRANSPOSE_BACKWARD_WEIGHT, [dx_bar, op.grad_output], op.weight, kernel_size=kernel(op)
    )
    return dy_bar, w_bar


@vjp_rule(*rlx.CONV_TRANSPOSE_BACKWARD_WEIGHT)
def conv_transpose_backward_weight(b, op, dw_bar):
    """dw = TBW(x, dy), bilinear: x_bar = TBI(dy, dw_bar), dy_bar = convT(x, dw_bar)."""
    output_padding = _output_padding(op, op.input, op.grad_output)
    x_bar = b.like(op, rlx.CONV_TRANSPOSE_BACKWARD_INPUT, [op.grad_output, dw_bar], op.input)
    dy_bar = b.like(op, rlx.CONV_TRANSPOSE, [op.input, dw_bar], op.grad_output, output_padding=output_padding)
    return x_bar, dy_bar


@vjp_rule(*rlx.IM2COL)
def im2col(b, op, cols_bar):
    """cols = im2col(x), a copy: x_bar = col2im(cols_bar), each copy's cotangent summed back."""
    return (b.like(op, rlx.COL2IM, [cols_bar], op.input),)
