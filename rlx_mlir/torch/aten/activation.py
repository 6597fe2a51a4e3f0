"""Activations and their backward ops, one RLX op each (`dialects/activation`)."""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.table import ConverterTable, one_op
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


for _aten_op, _rlx_op in {
    aten.relu.default: rlx.ReluOp, aten.hardswish.default: rlx.HardswishOp,
    aten.hardsigmoid.default: rlx.HardsigmoidOp, aten.sigmoid.default: rlx.SigmoidOp,
    aten.silu.default: rlx.SiluOp,
    aten.hardswish_backward.default: rlx.HardswishBackwardOp,
    aten.hardsigmoid_backward.default: rlx.HardsigmoidBackwardOp,
    aten.sigmoid_backward.default: rlx.SigmoidBackwardOp,
    aten.silu_backward.default: rlx.SiluBackwardOp,
}.items():
    CONVERTERS[_aten_op] = one_op(_rlx_op)


@converts(aten.hardtanh.default)
def hardtanh(e: Emitter, node, x, min_val=-1.0, max_val=1.0):
    return e.emit(rlx.HardtanhOp, [x], e.type_of(node), min_val=float(min_val), max_val=float(max_val))


@converts(aten.gelu.default)
def gelu(e: Emitter, node, x, approximate="none"):
    return e.emit(rlx.GeluOp, [x], e.type_of(node), approximate=approximate)


@converts(aten.leaky_relu.default)
def leaky_relu(e: Emitter, node, x, negative_slope=0.01):
    return e.emit(rlx.LeakyReluOp, [x], e.type_of(node), negative_slope=float(negative_slope))


@converts(aten.threshold_backward.default)
def threshold_backward(e: Emitter, node, grad_output, x, threshold):
    return e.emit(rlx.ThresholdBackwardOp, [grad_output, x], e.type_of(node), threshold=float(threshold))


@converts(aten.hardtanh_backward.default)
def hardtanh_backward(e: Emitter, node, grad_output, x, min_val, max_val):
    return e.emit(
        rlx.HardtanhBackwardOp, [grad_output, x], e.type_of(node), min_val=float(min_val), max_val=float(max_val)
    )


@converts(aten.gelu_backward.default)
def gelu_backward(e: Emitter, node, grad_output, x, approximate="none"):
    return e.emit(rlx.GeluBackwardOp, [grad_output, x], e.type_of(node), approximate=approximate)


@converts(aten.leaky_relu_backward.default)
def leaky_relu_backward(e: Emitter, node, grad_output, x, negative_slope, self_is_result):
    """With `self_is_result` x is the output; for a slope >= 0 its sign is the input's, so
    the gradient is the same function of it."""
    if self_is_result and negative_slope < 0:
        raise e.fail("leaky_relu_backward of an in-place leaky_relu with a negative slope")
    return e.emit(rlx.LeakyReluBackwardOp, [grad_output, x], e.type_of(node), negative_slope=float(negative_slope))
