"""Batch norm (training, no running statistics, inference), layer norm and group norm, with their backward ops.

A missing affine weight or bias becomes the constant PyTorch means (`affine_or`), except
where the RLX op takes none (group norm without both, eval-mode batch norm's gradient
without a weight).
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import TensorType

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import affine_or
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter, OnlyFor

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


@converts(aten._native_batch_norm_legit_functional.default)
def batch_norm(e: Emitter, node, x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(y, save_mean, save_invstd, new_running_mean, new_running_var), training mode."""
    if not training:
        raise e.fail("batch norm in evaluation mode inside a training step")
    channels = [e.shape(x)[1]]
    weight, bias = affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)
    types = [e.type_of(node, i) for i in range(5)]
    return e.emit(rlx.BatchNormOp, [x, weight, bias, running_mean, running_var], types,
                  momentum=float(momentum), eps=float(eps))


@converts(aten._native_batch_norm_legit.no_stats)
def batch_norm_without_running_stats(e: Emitter, node, x, weight, bias, training, momentum, eps):
    """(y, save_mean, save_invstd) of a batch norm that tracks no running statistics
    (`track_running_stats=False`): always the batch statistics. `rlx.batch_norm` with
    stand-in running stats (0, 1) whose updates nothing reads."""
    if not training:
        raise e.fail("batch norm without running statistics in evaluation mode")
    channels = [e.shape(x)[1]]
    weight, bias = affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)
    stats = TensorType(e.element(x), channels)
    types = [e.type_of(node, 0), e.type_of(node, 1), e.type_of(node, 2), stats, stats]
    y, mean, invstd, _, _ = e.emit(rlx.BatchNormOp, [x, weight, bias, e.constant(0, stats), e.constant(1, stats)],
                                   types, momentum=float(momentum), eps=float(eps))
    return y, mean, invstd


@converts(aten._native_batch_norm_legit_no_training.default)
def batch_norm_inference(e: Emitter, node, x, weight, bias, running_mean, running_var, momentum, eps):
    channels = [e.shape(x)[1]]
    weight, bias = affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)
    y = e.emit(rlx.BatchNormInferenceOp, [x, weight, bias, running_mean, running_var], e.type_of(node, 0),
               eps=float(eps))
    unused = OnlyFor("the saved statistics of an evaluation-mode batch norm", (aten.native_batch_norm_backward.default,))
    return y, unused, unused


@converts(aten.native_batch_norm_backward.default)
def batch_norm_backward(e: Emitter, node, grad_output, x, weight, running_mean, running_var, save_mean, save_invstd,
                        train, eps, output_mask):
    """(dx, dweight, dbias): from the saved batch statistics in training mode; from the
    frozen running statistics in eval mode (fine-tuning a model in `model.eval()`), where
    ATen reads no saved statistics."""
    channels = [e.shape(x)[1]]
    types = [TensorType(e.element(x), list(e.shape(x)))] + [TensorType(e.element(x), channels)] * 2
    if train:
        weight = affine_or(e, weight, 1.0, x, channels)
        results = e.emit(rlx.BatchNormBackwardOp, [grad_output, x, weight, save_mean, save_invstd], types,
                         eps=float(eps))
    else:
        results = e.append(rlx.BatchNormInferenceBackwardOp.build_with(
            [grad_output, x, running_mean, running_var, weight], types, eps=float(eps))).results
    return masked(results, output_mask)


def masked(results, output_mask) -> tuple:
    """ATen's gradient results: None where `output_mask` asks for none."""
    return tuple(value if wanted else None for value, wanted in zip(results, output_mask))


@converts(aten.native_layer_norm.default)
def layer_norm(e: Emitter, node, x, normalized_shape, weight, bias, eps):
    """(y, mean, rstd) over the last len(normalized_shape) dims."""
    weight = affine_or(e, weight, 1.0, x, normalized_shape)
    bias = affine_or(e, bias, 0.0, x, normalized_shape)
    types = [e.type_of(node, i) for i in range(3)]
    return e.emit(rlx.LayerNormOp, [x, weight, bias], types, normalized_rank=len(normalized_shape), eps=float(eps))


@converts(aten.native_layer_norm_backward.default)
def layer_norm_backward(e: Emitter, node, grad_output, x, normalized_shape, mean, rstd, weight, bias, output_mask):
    weight = affine_or(e, weight, 1.0, x, normalized_shape)
    types = [TensorType(e.element(x), list(e.shape(x)))] + [TensorType(e.element(x), list(normalized_shape))] * 2
    return masked(e.emit(rlx.LayerNormBackwardOp, [grad_output, x, mean, rstd, weight], types), output_mask)


@converts(aten.native_group_norm.default)
def group_norm(e: Emitter, node, x, weight, bias, N, C, HxW, group, eps):
    """(y, mean, rstd), mean and rstd [N, group]. `F.group_norm` may give the weight or the
    bias alone; the other is then PyTorch's constant, as `rlx.group_norm` takes both or neither."""
    affine = []
    if weight is not None or bias is not None:
        channels = [e.shape(x)[1]]
        affine = [affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)]
    types = [e.type_of(node, i) for i in range(3)]
    op = e.append(rlx.GroupNormOp.build_with([x, affine], types, groups=int(group), eps=float(eps)))
    return tuple(op.results)


@converts(aten.native_group_norm_backward.default)
def group_norm_backward(e: Emitter, node, grad_output, x, mean, rstd, weight, N, C, HxW, group, output_mask):
    channels = [e.shape(x)[1]]
    types = [TensorType(e.element(x), list(e.shape(x)))] + [TensorType(e.element(x), channels)] * 2
    op = e.append(rlx.GroupNormBackwardOp.build_with([grad_output, x, mean, rstd, weight], types, groups=int(group)))
    return masked(op.results, output_mask)
