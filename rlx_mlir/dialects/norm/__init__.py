"""Normalization: batch norm (training and eval), layer norm, RMS norm and group norm, with their gradients.

Each op is one ATen op of PyTorch 2.13, with its results in ATen's order:
- `rlx.batch_norm` [_native_batch_norm_legit_functional, training=True]: x [N, C, *spatial]
  (0 to 3 spatial axes) normalized per channel over N and the spatial axes with the
  biased variance; it also returns the saved statistics (mean, 1/sqrt(var + eps)) and the
  updated running statistics, `(1 - momentum) * old + momentum * stat`, the variance
  there unbiased (n/(n-1)).
- `rlx.batch_norm_backward` [native_batch_norm_backward, train=True]: dx, dweight, dbias
  from dy, x, weight and the saved statistics.
- `rlx.batch_norm_inference` [_native_batch_norm_legit_no_training]: eval mode, the
  running statistics in place of the batch's; its one result is y.
- `rlx.batch_norm_inference_backward` [native_batch_norm_backward, train=False]: dx,
  dweight, dbias with the running statistics frozen (fine-tuning in eval mode).
- `rlx.layer_norm` [native_layer_norm]: normalized over the last `normalized_rank` axes;
  mean and rstd have ATen's shape `x.shape[:-k] + [1] * k`.
- `rlx.layer_norm_backward` [native_layer_norm_backward]: dx, dweight, dbias; the
  normalized rank is the weight's.
- `rlx.rms_norm` [_fused_rms_norm, F.rms_norm]: y and rstd (layer norm's shape), the
  weight optional; `eps` is required (PyTorch's `eps=None` is `torch.finfo(dtype).eps`,
  which the importer passes).
- `rlx.rms_norm_backward` [_fused_rms_norm_backward]: dx, and dweight exactly when the
  weight is given (ATen's output mask).
- `rlx.group_norm` [native_group_norm]: y, mean and rstd ([N, groups]), per (sample, group
  of C / groups channels); weight and bias optional.
- `rlx.group_norm_backward` [native_group_norm_backward]: dx, dweight, dbias.

Affine-free batch and layer norms (PyTorch's `weight=None`) get ones and zeros from the importer. Only the
batch (the leading axis of x and of what has x's shape) may be dynamic; the channel and
normalized axes are static, and an empty x is rejected, as ATen's batch norm rejects it.
One module per kind of normalization (`batch`, `layer`, `group`); this package names them all.
"""

from __future__ import annotations

from rlx_mlir.dialects.norm.batch import (
    SPATIAL_RANKS,
    BatchNormBackwardOp,
    BatchNormInferenceBackwardOp,
    BatchNormInferenceOp,
    BatchNormOp,
    BatchNormOpBase,
)
from rlx_mlir.dialects.norm.group import GroupNormBackwardOp, GroupNormOp, GroupNormOpBase
from rlx_mlir.dialects.norm.layer import (
    LayerNormBackwardOp,
    LayerNormOp,
    LayerNormOpBase,
    RmsNormBackwardOp,
    RmsNormOp,
    last_dims,
    stat_shape,
)
from rlx_mlir.dialects.norm.shapes import NormOpBase

FORWARD_OPS: tuple = (BatchNormOp, BatchNormInferenceOp, LayerNormOp, RmsNormOp, GroupNormOp)
BACKWARD_OPS: tuple = (
    BatchNormBackwardOp, BatchNormInferenceBackwardOp, LayerNormBackwardOp, RmsNormBackwardOp, GroupNormBackwardOp,
)

__all__ = [
    "BACKWARD_OPS",
    "FORWARD_OPS",
    "SPATIAL_RANKS",
    "BatchNormBackwardOp",
    "BatchNormInferenceBackwardOp",
    "BatchNormInferenceOp",
    "BatchNormOp",
    "BatchNormOpBase",
    "GroupNormBackwardOp",
    "GroupNormOp",
    "GroupNormOpBase",
    "LayerNormBackwardOp",
    "LayerNormOp",
    "LayerNormOpBase",
    "NormOpBase",
    "RmsNormBackwardOp",
    "RmsNormOp",
    "last_dims",
    "stat_shape",
]
