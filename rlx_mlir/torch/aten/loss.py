"""Softmax, log-softmax and the NLL loss (cross-entropy's two halves), with their backward ops."""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import REDUCTIONS, affine_or, dim_index
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


@converts(aten._log_softmax.default)
def log_softmax(e: Emitter, node, x, dim, half_to_float):
    return e.emit(rlx.LogSoftmaxOp, [x], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten._softmax.default)
def softmax(e: Emitter, node, x, dim, half_to_float):
    return e.emit(rlx.SoftmaxOp, [x], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten._log_softmax_backward_data.default)
def log_softmax_backward(e: Emitter, node, grad_output, output, dim, input_dtype):
    return e.emit(rlx.LogSoftmaxBackwardOp, [grad_output, output], e.type_of(node),
                  dim=dim_index(dim, len(e.shape(output))))


@converts(aten._softmax_backward_data.default)
def softmax_backward(e: Emitter, node, grad_output, output, dim, input_dtype):
    return e.emit(rlx.SoftmaxBackwardOp, [grad_output, output], e.type_of(node),
                  dim=dim_index(dim, len(e.shape(output))))


def class_weights(e: Emitter, weight, logp):
    """NLL's class weights, or ones when PyTorch has none."""
    classes = e.shape(logp)[1] if len(e.shape(logp)) > 1 else e.shape(logp)[0]
    return affine_or(e, weight, 1.0, logp, [classes])


@converts(aten.nll_loss_forward.default, aten.nll_loss2d_forward.default)
def nll_loss(e: Emitter, node, logp, target, weight, reduction, ignore_index):
    """(loss, total_weight)."""
    return e.emit(rlx.NllLossOp, [logp, target, class_weights(e, weight, logp)], [e.type_of(node, 0), e.type_of(node, 1)],
                  reduction=REDUCTIONS[reduction], ignore_index=ignore_index)


@converts(aten.nll_loss_backward.default, aten.nll_loss2d_backward.default)
def nll_loss_backward(e: Emitter, node, grad_output, logp, target, weight, reduction, ignore_index, total_weight):
    return e.emit(rlx.NllLossBackwardOp, [grad_output, logp, target, class_weights(e, weight, logp), total_weight],
                  e.type_of(node), reduction=REDUCTIONS[reduction], ignore_index=ignore_index)
