"""Max, average and adaptive pools of every spatial rank, and their backward ops (`dialects/pool`).

A max pool's indices are no RLX value: only the pool's backward may use them, and it
recomputes each window's first maximum (`OnlyFor`); and PyTorch's double backward, which
reads a tensor at them (`MaxPoolIndices`).
"""

from __future__ import annotations

from math import prod

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import per_axis
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter, OnlyFor

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode) -> dict:
    kernel = per_axis(kernel_size, rank)
    return dict(
        kernel_size=kernel, stride=per_axis(stride, rank) if stride else kernel, padding=per_axis(padding, rank),
        dilation=per_axis(dilation, rank), ceil_mode=bool(ceil_mode),
    )


class MaxPoolIndices(OnlyFor):
    """The indices of a max pool, for its backward and for its double backward.

    The derivative of `max_pool_backward(x, dy)` in dy, as PyTorch records it, reads the
    tangent z at the indices: `gather(z.view(N, C, -1), -1, indices.view(N, C, -1))`. That
    is `max_pool_gather(x, z)` (`dialects.adjoint`), which finds each window's first maximum
    of x again: the views of the indices keep this object, and the gather becomes the op.
    """

    def __init__(self, rank: int, x, y, window: dict, backward):
        super().__init__(f"the indices of max_pool{rank}d_with_indices",
                         (backward, aten.view.default, aten._unsafe_view.default, aten.gather.default))
        self.x, self.y, self.window, self.gather_op = x, y, window, rlx.MAX_POOL_GATHER.at(rank)

    def gather(self, e: Emitter, node, source, dim):
        """`gather(source, dim, indices)` over the flattened spatial dims: the source read at the maxima."""
        if e.shape(source) != (*e.shape(self.x)[:2], prod(e.shape(self.x)[2:])) or dim not in (-1, 2):
            raise e.fail("a gather at a max pool's indices other than over its input's flattened spatial dims")
        z = e.reshape(source, e.shape(self.x))
        pooled = e.emit(self.gather_op, [self.x, z], self.y.type, **self.window)
        return e.reshape(pooled, e.type_of(node).get_shape())


def _max_pool_with_indices(op, backward):
    rank = op.SPATIAL_RANK

    def convert(e: Emitter, node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        window = max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode)
        y = e.emit(op, [x], e.type_of(node, 0), **window)
        return y, MaxPoolIndices(rank, x, y, window, backward)

    convert.__doc__ = f"(y, indices): {op.name}; the indices only feed the backward, which recomputes them"
    return convert


def _max_pool_backward(op):
    rank = op.SPATIAL_RANK

    def convert(e: Emitter, node, grad_output, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
        window = max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode)
        return e.emit(op, [x, grad_output], e.type_of(node), **window)

    convert.__doc__ = f"{op.name}(x, dy): dy to each window's first maximum"
    return convert


for _forward_op, _backward_op, _forward, _backward in (
    (rlx.MaxPool1dOp, None, aten.max_pool1d_with_indices.default, None),
    (rlx.MaxPool2dOp, rlx.MaxPool2dBackwardOp, aten.max_pool2d_with_indices.default,
     aten.max_pool2d_with_indices_backward.default),
    (rlx.MaxPool3dOp, rlx.MaxPool3dBackwardOp, aten.max_pool3d_with_indices.default,
     aten.max_pool3d_with_indices_backward.default),
):
    CONVERTERS[_forward] = _max_pool_with_indices(_forward_op, _backward)
    if _backward is not None:
        CONVERTERS[_backward] = _max_pool_backward(_backward_op)


def avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) -> dict:
    kernel = per_axis(kernel_size, rank)
    return dict(
        kernel_size=kernel, stride=per_axis(stride, rank) if stride else kernel, padding=per_axis(padding, rank),
        ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override or 0,
    )


def _avg_pool(op):
    rank = op.SPATIAL_RANK

    def convert(e: Emitter, node, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
        window = avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return e.emit(op, [x], e.type_of(node), **window)

    return convert


def _avg_pool_backward(op):
    rank = op.SPATIAL_RANK

    def convert(e: Emitter, node, grad_output, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
        window = avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return e.emit(op, [grad_output], e.type_of(node), **window)

    return convert


for _forward_op, _backward_op, _forward, _backward in (
    (rlx.AvgPool2dOp, rlx.AvgPool2dBackwardOp, aten.avg_pool2d.default, aten.avg_pool2d_backward.default),
    (rlx.AvgPool3dOp, rlx.AvgPool3dBackwardOp, aten.avg_pool3d.default, aten.avg_pool3d_backward.default),
):
    CONVERTERS[_forward] = _avg_pool(_forward_op)
    CONVERTERS[_backward] = _avg_pool_backward(_backward_op)


def _adaptive_avg(op, backward_op):
    def forward(e: Emitter, node, x, output_size):
        return e.emit(op, [x], e.type_of(node))

    def backward(e: Emitter, node, grad_output, x):
        return e.emit(backward_op, [grad_output], e.type_of(node))

    return forward, backward


def _adaptive_max(op, backward_op, backward):
    def forward(e: Emitter, node, x, output_size):
        y = e.emit(op, [x], e.type_of(node, 0))
        return y, OnlyFor(f"the indices of adaptive_max_pool{op.SPATIAL_RANK}d", (backward,))

    def max_backward(e: Emitter, node, grad_output, x, indices):
        return e.emit(backward_op, [x, grad_output], e.type_of(node))

    return forward, max_backward


for _forward_op, _backward_op, _forward, _backward in (
    (rlx.AdaptiveAvgPool2dOp, rlx.AdaptiveAvgPool2dBackwardOp, aten._adaptive_avg_pool2d.default,
     aten._adaptive_avg_pool2d_backward.default),
    (rlx.AdaptiveAvgPool3dOp, rlx.AdaptiveAvgPool3dBackwardOp, aten._adaptive_avg_pool3d.default,
     aten._adaptive_avg_pool3d_backward.default),
):
    CONVERTERS[_forward], CONVERTERS[_backward] = _adaptive_avg(_forward_op, _backward_op)

for _forward_op, _backward_op, _forward, _backward in (
    (rlx.AdaptiveMaxPool2dOp, rlx.AdaptiveMaxPool2dBackwardOp, aten.adaptive_max_pool2d.default,
     aten.adaptive_max_pool2d_backward.default),
    (rlx.AdaptiveMaxPool3dOp, rlx.AdaptiveMaxPool3dBackwardOp, aten.adaptive_max_pool3d.default,
     aten.adaptive_max_pool3d_backward.default),
):
    CONVERTERS[_forward], CONVERTERS[_backward] = _adaptive_max(_forward_op, _backward_op, _backward)
