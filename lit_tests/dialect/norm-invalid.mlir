// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the norm ops: the exact message and its file:line:col.

// batch_norm: x must be [N, C, *spatial] with 0 to 3 spatial axes.
func.func @batch_norm_rank(%x: tensor<6xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected the input to have rank 2 to 5 ([N, C, *spatial] with 0 to 3 spatial axes), got tensor<6xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: ATen rejects an empty input.
func.func @batch_norm_empty(%x: tensor<0x3xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected the input to have at least one element (ATen rejects an empty input), got tensor<0x3xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<0x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<0x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: one running statistic per channel.
func.func @batch_norm_running_var(%x: tensor<2x3xf32>, %c: tensor<3xf32>, %v: tensor<4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected the running_var to be tensor<3xf32> (one value per channel of the input), got tensor<4xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %v : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: y has x's shape.
func.func @batch_norm_result(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected the result to be tensor<2x3x4xf32> (the input's shape), got tensor<2x3x5xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: the saved statistics are per channel.
func.func @batch_norm_save_invstd(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected the save_invstd to be tensor<3xf32> (one value per channel of the input), got tensor<2x3xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: only the batch may be dynamic.
func.func @batch_norm_dynamic_channels(%x: tensor<2x?xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected only the leading (batch) dimension of the input to be dynamic, got tensor<2x?xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<2x?xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x?xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: the per-channel vectors have no batch.
func.func @batch_norm_dynamic_weight(%x: tensor<2x3xf32>, %c: tensor<3xf32>, %w: tensor<?xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected the weight to have a static shape, got tensor<?xf32>
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %w, %c, %c, %c : (tensor<2x3xf32>, tensor<?xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: one float element type.
func.func @batch_norm_mixed_types(%x: tensor<2x3xf32>, %c: tensor<3xf32>, %d: tensor<3xf64>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected all operands and the result to have one element type, got f32 and f64
  %y, %m, %i, %rm, %rv = rlx.batch_norm %x, %c, %d, %c, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: momentum is an f64.
func.func @batch_norm_momentum_type(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm' op expected 'momentum' to be an f64 float, got 1 : i64
  %y, %m, %i, %rm, %rv = "rlx.batch_norm"(%x, %c, %c, %c, %c) <{momentum = 1 : i64, eps = 1.0e-05 : f64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_inference: the running mean is per channel.
func.func @batch_norm_inference_running_mean(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %m: tensor<1x3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm_inference' op expected the running_mean to be tensor<3xf32> (one value per channel of the input), got tensor<1x3xf32>
  %y = rlx.batch_norm_inference %x, %c, %c, %m, %c : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// batch_norm_backward: dy has x's shape.
func.func @batch_norm_backward_grad_output(%dy: tensor<2x3x5xf32>, %x: tensor<2x3x4xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm_backward' op expected the grad_output to be tensor<2x3x4xf32> (the input's shape), got tensor<2x3x5xf32>
  %dx, %dw, %db = rlx.batch_norm_backward %dy, %x, %c, %c, %c : (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_backward: the parameter gradients are per channel.
func.func @batch_norm_backward_grad_bias(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm_backward' op expected the grad_bias to be tensor<3xf32> (one value per channel of the input), got tensor<2xf32>
  %dx, %dw, %db = rlx.batch_norm_backward %dy, %x, %c, %c, %c : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>)
  return
}

// -----

// layer_norm: at least one normalized dim.
func.func @layer_norm_rank_zero(%x: tensor<2x3xf32>, %w: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm' op expected normalized_rank to be at least 1, got 0
  %y, %m, %r = rlx.layer_norm %x, %w, %w normalized_rank 0 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

// layer_norm: x has the normalized dims.
func.func @layer_norm_rank_too_small(%x: tensor<3xf32>, %w: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm' op expected the input to have rank at least 2 (the normalized rank), got tensor<3xf32>
  %y, %m, %r = rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return
}

// -----

// layer_norm: the weight has the normalized dims' shape.
func.func @layer_norm_weight(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm' op expected the weight to be tensor<3x4xf32> (the input's last 2 dims), got tensor<4xf32>
  %y, %m, %r = rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return
}

// -----

// layer_norm: so has the bias.
func.func @layer_norm_bias(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>, %b: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm' op expected the bias to be tensor<4xf32> (the input's last dim), got tensor<3xf32>
  %y, %m, %r = rlx.layer_norm %x, %w, %b : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  return
}

// -----

// layer_norm: mean and rstd keep the normalized dims as 1 (ATen's shape).
func.func @layer_norm_mean_shape(%x: tensor<2x3x4xf32>, %w: tensor<3x4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm' op expected the mean to be tensor<2x1x1xf32> (the input's shape with its last 2 dims 1), got tensor<2xf32>
  %y, %m, %r = rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2xf32>, tensor<2x1x1xf32>)
  return
}

// -----

// layer_norm: an x that is all normalized has no batch to be dynamic.
func.func @layer_norm_dynamic_normalized(%x: tensor<?x4xf32>, %w: tensor<4x4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm' op expected the input to have a static shape, got tensor<?x4xf32>
  %y, %m, %r = rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<?x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<?x4xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return
}

// -----

// layer_norm_backward: the weight's rank is the normalized rank, at least 1.
func.func @layer_norm_backward_scalar_weight(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>, %w: tensor<f32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm_backward' op expected the weight to have rank at least 1 (its rank is the normalized rank), got tensor<f32>
  %dx, %dw, %db = rlx.layer_norm_backward %x, %x, %s, %s, %w : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<f32>, tensor<f32>)
  return
}

// -----

// layer_norm_backward: rstd in ATen's shape.
func.func @layer_norm_backward_rstd(%x: tensor<2x3xf32>, %m: tensor<2x1xf32>, %r: tensor<1x2xf32>, %w: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm_backward' op expected the rstd to be tensor<2x1xf32> (the input's shape with its last dim 1), got tensor<1x2xf32>
  %dx, %dw, %db = rlx.layer_norm_backward %x, %x, %m, %r, %w : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<1x2xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// layer_norm_backward: the weight gradient has the weight's shape.
func.func @layer_norm_backward_grad_weight(%x: tensor<2x3xf32>, %m: tensor<2x1xf32>, %w: tensor<3xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.layer_norm_backward' op expected the grad_weight to be tensor<3xf32> (the weight's shape), got tensor<2x3xf32>
  %dx, %dw, %db = rlx.layer_norm_backward %x, %x, %m, %m, %w : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>)
  return
}

// -----

// group_norm: the groups divide the channels.
func.func @group_norm_groups(%x: tensor<2x6x4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.group_norm' op expected groups to be at least 1 and to divide the input's 6 channels, got 4
  %y, %m, %r = rlx.group_norm %x groups 4 : (tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

// group_norm: mean and rstd are [N, groups] (not layer norm's shape).
func.func @group_norm_stat_shape(%x: tensor<2x6x4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.group_norm' op expected the mean to be tensor<2x3xf32> (one value per sample and group, [N, groups]), got tensor<2x3x1xf32>
  %y, %m, %r = rlx.group_norm %x groups 3 : (tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x3x1xf32>, tensor<2x3xf32>)
  return
}

// -----

// group_norm: the weight and the bias, or neither.
func.func @group_norm_weight_alone(%x: tensor<2x6xf32>, %w: tensor<6xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.group_norm' op expected the affine operands to be the weight and the bias, or none, got 1 operands
  %y, %m, %r = rlx.group_norm %x affine %w groups 3 : (tensor<2x6xf32>, tensor<6xf32>) -> (tensor<2x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// -----

// group_norm: x is [N, C, *spatial].
func.func @group_norm_rank(%x: tensor<6xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.group_norm' op expected the input to have rank at least 2 ([N, C, *spatial]), got tensor<6xf32>
  %y, %m, %r = rlx.group_norm %x groups 3 : (tensor<6xf32>) -> (tensor<6xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// group_norm_backward: the statistics are [N, groups].
func.func @group_norm_backward_rstd(%x: tensor<2x4x3xf32>, %m: tensor<2x2xf32>, %r: tensor<2x4xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.group_norm_backward' op expected the rstd to be tensor<2x2xf32> (one value per sample and group, [N, groups]), got tensor<2x4xf32>
  %dx, %dw, %db = rlx.group_norm_backward %x, %x, %m, %r groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// group_norm_backward: dweight and dbias are per channel.
func.func @group_norm_backward_grad_bias(%x: tensor<2x4x3xf32>, %m: tensor<2x2xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.group_norm_backward' op expected the grad_bias to be tensor<4xf32> (one value per channel of the input), got tensor<2xf32>
  %dx, %dw, %db = rlx.group_norm_backward %x, %x, %m, %m groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<2xf32>)
  return
}

// -----

// batch_norm_inference_backward: one running statistic per channel.
func.func @batch_norm_inference_backward_running_var(%x: tensor<2x3xf32>, %c: tensor<3xf32>, %v: tensor<2xf32>) {
  // CHECK: {{.*}}norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.batch_norm_inference_backward' op expected the running_var to be tensor<3xf32> (one value per channel of the input), got tensor<2xf32>
  %dx, %dw, %db = rlx.batch_norm_inference_backward %x, %x, %c, %v : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}
