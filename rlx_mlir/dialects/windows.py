"""The window properties op families share, each declared once.

A window is PyTorch's (kernel, stride, padding, dilation) quadruple, read back by
`RlxOp.window()` as a `geometry.Window2d`. Ops inherit the part of it they carry: xDSL
collects the `prop_def` fields of every base class into the op's definition, and the
custom form of each op names every property (its `assembly_format`, written with the
fragment each window exports here), which also fixes their order.
"""

from __future__ import annotations

from rlx_mlir.dialects.base import RlxOp
from rlx_mlir.dialects.properties import bool_property, int_property, pair_property


class WindowOp(RlxOp):
    """A window stated by its `kernel_size`, `stride` and `padding`: the pools', im2col's."""

    kernel_size = pair_property()
    stride = pair_property()
    padding = pair_property()


WINDOW = "`kernel_size` $kernel_size `stride` $stride `padding` $padding"
"""`WindowOp`'s properties in an op's custom form."""


class AvgPoolWindowOp(WindowOp):
    """An average pool's window and divisor: `count_include_pad` divides by the full window (the default)."""

    count_include_pad = bool_property(default=True)


AVG_POOL_WINDOW = f"{WINDOW} (`count_include_pad` $count_include_pad^)?"


class ConvWindowOp(RlxOp):
    """A convolution's window over its weight: `stride`, `padding`, `dilation` (1) and `groups` (1).

    The kernel is the weight's spatial size.
    """

    stride = pair_property()
    padding = pair_property()
    dilation = pair_property(default=(1, 1))
    groups_ = int_property(default=1, prop_name="groups")


CONV_WINDOW = "`stride` $stride `padding` $padding (`dilation` $dilation^)? (`groups` $groups^)?"


class ConvGradientWindowOp(ConvWindowOp):
    """A conv gradient's window: the forward conv's, with the `kernel_size` the gradient cannot see.

    One of the gradient's operands is not the weight, so the kernel is stated.
    """

    kernel_size = pair_property()


CONV_GRADIENT_WINDOW = f"`kernel_size` $kernel_size {CONV_WINDOW}"
