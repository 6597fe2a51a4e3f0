"""Max, average and adaptive pools of every spatial rank, and their backward ops (`dialects/pool`).

A max pool's indices are no RLX value: only the pool's backward may use them, and it
recomputes each window's first maximum (`OnlyFor`).
"""

from __future__ import annotations

import torch

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


def _max_pool_with_indices(rank: int, backward):
    def convert(e: Emitter, node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        window = max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode)
        y = e.emit(f"rlx.max_pool{rank}d", [x], e.type_of(node, 0), **window)
        return y, OnlyFor(f"the indices of max_pool{rank}d_with_indices", (backward,))

    convert.__doc__ = f"(y, indices): rlx.max_pool{rank}d; the indices only feed the backward, which recomputes them"
    return convert


def _max_pool_backward(rank: int):
    def convert(e: Emitter, node, grad_output, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
        window = max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode)
        return e.emit(f"rlx.max_pool{rank}d_backward", [x, grad_output], e.type_of(node), **window)

    convert.__doc__ = f"rlx.max_pool{rank}d_backward(x, dy): dy to each window's first maximum"
    return convert


for _rank, _forward, _backward in (
    (1, aten.max_pool1d_with_indices.default, None),
    (2, aten.max_pool2d_with_indices.default, aten.max_pool2d_with_indices_backward.default),
    (3, aten.max_pool3d_with_indices.default, aten.max_pool3d_with_indices_backward.default),
):
    CONVERTERS[_forward] = _max_pool_with_indices(_rank, _backward)
    if _backward is not None:
        CONVERTERS[_backward] = _max_pool_backward(_rank)


def avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) -> dict:
    kernel = per_axis(kernel_size, rank)
    return dict(
        kernel_size=kernel, stride=per_axis(stride, rank) if stride else kernel, padding=per_axis(padding, rank),
        ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override or 0,
    )


def _avg_pool(rank: int):
    def convert(e: Emitter, node, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
        window = avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return e.emit(f"rlx.avg_pool{rank}d", [x], e.type_of(node), **window)

    return convert


def _avg_pool_backward(rank: int):
    def convert(e: Emitter, node, grad_output, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
        window = avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return e.emit(f"rlx.avg_pool{rank}d_backward", [grad_output], e.type_of(node), **window)

    return convert


for _rank, _forward, _backward in (
    (2, aten.avg_pool2d.default, aten.avg_pool2d_backward.default),
    (3, aten.avg_pool3d.default, aten.avg_pool3d_backward.default),
):
    CONVERTERS[_forward] = _avg_pool(_rank)
    CONVERTERS[_backward] = _avg_pool_backward(_rank)


def _adaptive(rank: int, kind: str, backward):
    def forward(e: Emitter, node, x, output_size):
        if kind == "avg":
            return e.emit(f"rlx.adaptive_avg_pool{rank}d", [x], e.type_of(node))
        y = e.emit(f"rlx.adaptive_max_pool{rank}d", [x], e.type_of(node, 0))
        return y, OnlyFor(f"the indices of adaptive_max_pool{rank}d", (backward,))

    def avg_backward(e: Emitter, node, grad_output, x):
        return e.emit(f"rlx.adaptive_avg_pool{rank}d_backward", [grad_output], e.type_of(node))

    def max_backward(e: Emitter, node, grad_output, x, indices):
        return e.emit(f"rlx.adaptive_max_pool{rank}d_backward", [x, grad_output], e.type_of(node))

    return forward, (avg_backward if kind == "avg" else max_backward)


for _rank, _kind, _forward, _backward in (
    (2, "avg", aten._adaptive_avg_pool2d.default, aten._adaptive_avg_pool2d_backward.default),
    (3, "avg", aten._adaptive_avg_pool3d.default, aten._adaptive_avg_pool3d_backward.default),
    (2, "max", aten.adaptive_max_pool2d.default, aten.adaptive_max_pool2d_backward.default),
    (3, "max", aten.adaptive_max_pool3d.default, aten.adaptive_max_pool3d_backward.default),
):
    CONVERTERS[_forward], CONVERTERS[_backward] = _adaptive(_rank, _kind, _backward)
