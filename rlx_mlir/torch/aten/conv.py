"""`convolution` and `convolution_backward`: RLX's conv ops of every spatial rank (`dialects/conv`)."""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import per_axis
from rlx_mlir.torch.aten.table import ConverterTable, by_rank
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts

CONV = by_rank(rlx.Conv1dOp, rlx.Conv2dOp, rlx.Conv3dOp)
CONV_TRANSPOSE = by_rank(rlx.ConvTranspose1dOp, rlx.ConvTranspose2dOp, rlx.ConvTranspose3dOp)
CONV_BACKWARD_INPUT = by_rank(rlx.Conv1dBackwardInputOp, rlx.Conv2dBackwardInputOp, rlx.Conv3dBackwardInputOp)
CONV_BACKWARD_WEIGHT = by_rank(rlx.Conv1dBackwardWeightOp, rlx.Conv2dBackwardWeightOp, rlx.Conv3dBackwardWeightOp)
CONV_TRANSPOSE_BACKWARD_INPUT = by_rank(
    rlx.ConvTranspose1dBackwardInputOp, rlx.ConvTranspose2dBackwardInputOp, rlx.ConvTranspose3dBackwardInputOp
)
CONV_TRANSPOSE_BACKWARD_WEIGHT = by_rank(
    rlx.ConvTranspose1dBackwardWeightOp, rlx.ConvTranspose2dBackwardWeightOp, rlx.ConvTranspose3dBackwardWeightOp
)


@converts(aten.convolution.default)
def convolution(e: Emitter, node, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """`rlx.conv{r}d` or `rlx.conv_transpose{r}d`, then `+ bias` reshaped to [C, 1, ...]."""
    rank = len(e.shape(weight)) - 2
    ty = e.type_of(node)
    window = dict(stride=per_axis(stride, rank), padding=per_axis(padding, rank), dilation=per_axis(dilation, rank))
    if transposed:
        y = e.emit(CONV_TRANSPOSE[rank], [x, weight], ty, **window,
                   output_padding=per_axis(output_padding, rank), groups=groups)
    else:
        y = e.emit(CONV[rank], [x, weight], ty, **window, groups=groups)
    if bias is None:
        return y
    return e.emit(rlx.AddOp, [y, e.reshape(bias, [e.shape(bias)[0]] + [1] * rank)], ty)


@converts(aten.convolution_backward.default)
def convolution_backward(
    e: Emitter, node, grad_output, x, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
    groups, output_mask,
):
    """(dx, dw, db): the input and weight gradients of the conv (or transposed conv), and
    `db[c] = sum_{n, *spatial} dy[n, c, ...]`, each only where `output_mask` asks."""
    rank = len(e.shape(weight)) - 2
    window = dict(stride=per_axis(stride, rank), padding=per_axis(padding, rank), dilation=per_axis(dilation, rank),
                  groups=groups)
    kernel = list(e.shape(weight)[2:])
    if transposed:
        backward_input, backward_weight = CONV_TRANSPOSE_BACKWARD_INPUT[rank], CONV_TRANSPOSE_BACKWARD_WEIGHT[rank]
    else:
        backward_input, backward_weight = CONV_BACKWARD_INPUT[rank], CONV_BACKWARD_WEIGHT[rank]
    dx = dw = db = None
    if output_mask[0]:
        extra = {} if transposed else {"kernel_size": kernel}
        dx = e.emit(backward_input, [grad_output, weight], e.type_of(node, 0), **extra, **window)
    if output_mask[1]:
        dw = e.emit(backward_weight, [x, grad_output], e.type_of(node, 1),
                    kernel_size=kernel, **window)
    if output_mask[2]:
        db = e.emit(rlx.SumOp, [grad_output], e.type_of(node, 2), dims=[0, *range(2, rank + 2)], keepdim=False)
    return dx, dw, db
