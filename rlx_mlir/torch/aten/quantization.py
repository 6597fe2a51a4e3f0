"""Fake quantization (quantization-aware training): `rlx.fake_quantize{,_per_channel}` and their
straight-through gradients, as in `dialects/quantization`.

ATen's fake-quantize ops return `(y, mask)`, the mask being where x's level falls inside
[quant_min, quant_max]; their backward, `fake_quantize_*_cachemask_backward(grad, mask)`,
is implicit-composite and reaches the joint graph already decomposed into
`mul(grad, mask)`. RLX keeps the pair whole instead: the mask is not materialized
(`QuantizationMask`, which only the backward may read), and when the forward is converted,
each `mul` of its mask is given back its ATen name, so that it converts to the one
gradient op, `rlx.ste_backward` with kind `clipped` (per tensor) or
`rlx.fake_quantize_per_channel_backward`, which recompute the mask from x.

The fused observer of `torch.ao.quantization`'s x86 default QAT config
(`FusedMovingAvgObsFakeQuantize`) reaches the graph as
`_fused_moving_avg_obs_fq_helper_functional(x, observer_on, fake_quant_on, running_min,
running_max, scale, zero_point, ...)` -> (y, mask, running_min', running_max', scale',
zero_point'): the observer (`rlx.moving_average_min_max`), the grid it chooses
(`rlx.choose_qparams`) and the fake quantization on it (`rlx.fake_quantize_tensor_qparams`,
or `rlx.fake_quantize_per_channel` for weights), its four statistics the step's updated
buffers. Its two flags are buffers read in the step (`rlx.where` on them), so one step
serves every phase of QAT: `observer_on` 0 keeps the running values, `fake_quant_on` 0
passes x and its gradient through and keeps the scale and zero point, as ATen does.
"""

from __future__ import annotations

import operator

import torch
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import SSAValue

from rlx_mlir.dialects import quantization as quant
from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.properties import I1
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter, OnlyFor

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts

PER_TENSOR_BACKWARD = aten.fake_quantize_per_tensor_affine_cachemask_backward.default
PER_CHANNEL_BACKWARD = aten.fake_quantize_per_channel_affine_cachemask_backward.default


class QuantizationMask(OnlyFor):
    """The mask of a fake quantization: how its backward reads x on the grid."""

    def __init__(self, gradient_of, backward):
        super().__init__("the mask of a fake quantization", (backward,))
        self.gradient_of = gradient_of
        """`gradient_of(e, grad)`: grad where x's level is inside the grid, else 0."""


def _restore_backward(node, backward) -> None:
    """Each `mul(grad, mask)` of the forward `node`'s mask becomes `backward(grad, mask)`,
    the op PyTorch's autograd called (module docstring)."""
    for mask in [user for user in node.users if user.target is operator.getitem and user.args[1] == 1]:
        for user in list(mask.users):
            if user.target is aten.mul.Tensor:
                grad = user.args[1] if user.args[0] is mask else user.args[0]
                user.target, user.args = backward, (grad, mask)


@converts(aten.fake_quantize_per_tensor_affine_cachemask.default)
def fake_quantize_per_tensor(e: Emitter, node, x, scale, zero_point, quant_min, quant_max):
    """(y, mask) on the grid of a constant `scale` and `zero_point`."""
    grid = dict(scale=float(scale), zero_point=int(zero_point), quant_min=int(quant_min), quant_max=int(quant_max))
    y = e.emit(rlx.FakeQuantizeOp, [x], e.type_of(node, 0), **grid)
    _restore_backward(node, PER_TENSOR_BACKWARD)

    def gradient_of(e: Emitter, grad):
        return e.emit(rlx.SteBackwardOp, [grad, x], grad.type, kind="clipped", **grid)

    return y, QuantizationMask(gradient_of, PER_TENSOR_BACKWARD)


@converts(aten.fake_quantize_per_channel_affine_cachemask.default)
def fake_quantize_per_channel(e: Emitter, node, x, scale, zero_point, axis, quant_min, quant_max):
    """(y, mask) on one grid per index of x's `axis`: scale [C] f32 and zero_point [C] i32."""
    grid = dict(axis=int(axis) % len(e.shape(x)), quant_min=int(quant_min), quant_max=int(quant_max))
    y = e.emit(rlx.FakeQuantizePerChannelOp, [x, scale, zero_point], e.type_of(node, 0), **grid)
    _restore_backward(node, PER_CHANNEL_BACKWARD)

    def gradient_of(e: Emitter, grad):
        return e.emit(rlx.FakeQuantizePerChannelBackwardOp, [grad, x, scale, zero_point], grad.type, **grid)

    return y, QuantizationMask(gradient_of, PER_CHANNEL_BACKWARD)


@converts(aten._fused_moving_avg_obs_fq_helper_functional.default)
def fused_observer(e: Emitter, node, x, observer_on, fake_quant_on, running_min, running_max, scale, zero_point,
                   averaging_constant, quant_min, quant_max, ch_axis, per_row_fake_quant=False, symmetric_quant=False):
    """(y, mask, running_min', running_max', scale', zero_point'): observe, choose, fake-quantize;
    where `fake_quant_on` is 0, ATen's (x, ones, running_min', running_max', scale, zero_point)."""
    per_channel = bool(per_row_fake_quant)
    if e.element(x) != f32:
        raise e.fail(f"PyTorch's fused observer reads f32 tensors only, got {e.element(x)}")
    if per_channel and 0 in e.shape(running_min):
        raise e.fail(
            "the per-channel observer has not observed yet (its running min and max are empty, "
            "their size unknown): run the model once before exporting its step"
        )
    statistics = [e.type_of(node, 2), e.type_of(node, 3)]
    low, high = e.emit(quant.MovingAverageMinMaxOp, [x, running_min, running_max, observer_on], statistics,
                       averaging_constant=float(averaging_constant), axis=0 if per_channel else -1)
    grid = dict(quant_min=int(quant_min), quant_max=int(quant_max))
    chosen_scale, chosen_zero_point = e.emit(quant.ChooseQparamsOp, [low, high], [e.type_of(node, 4), e.type_of(node, 5)],
                                             symmetric=bool(symmetric_quant), **grid)
    on = e.emit(rlx.NeOp, [fake_quant_on, e.constant(0, fake_quant_on.type)], TensorType(I1, e.shape(fake_quant_on)))

    def when_on(value: SSAValue, otherwise: SSAValue) -> SSAValue:
        return e.emit(rlx.WhereOp, [on, value, otherwise], value.type)

    scale, zero_point = when_on(chosen_scale, scale), when_on(chosen_zero_point, zero_point)
    if per_channel:
        y, mask = fake_quantize_per_channel(e, node, x, scale, zero_point, ch_axis, quant_min, quant_max)
    else:
        y = e.emit(quant.FakeQuantizeTensorQparamsOp, [x, scale, zero_point], e.type_of(node, 0), **grid)
        _restore_backward(node, PER_TENSOR_BACKWARD)

        def gradient_of(e: Emitter, grad):
            return e.emit(quant.FakeQuantizeTensorQparamsBackwardOp, [grad, x, scale, zero_point], grad.type, **grid)

        mask = QuantizationMask(gradient_of, PER_TENSOR_BACKWARD)
    masked = QuantizationMask(lambda e, grad: when_on(mask.gradient_of(e, grad), grad), mask.consumers[0])
    return when_on(y, x), masked, low, high, scale, zero_point


@converts(PER_TENSOR_BACKWARD, PER_CHANNEL_BACKWARD)
def fake_quantize_backward(e: Emitter, node, grad, mask: QuantizationMask):
    """dx = grad where the forward's level was inside the grid (the clipped STE)."""
    return mask.gradient_of(e, grad)
