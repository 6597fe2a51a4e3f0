// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the RMS norm ops: the exact message and its file:line:col.

// rms_norm: at least one normalized dim.
func.func @rms_norm_rank_zero(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rms_norm' op expected normalized_rank to be at least 1, got 0
  %y, %r = rlx.rms_norm %x normalized_rank 0 eps 1.0e-05 : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
  return
}

// -----

// rms_norm: x has the normalized dims.
func.func @rms_norm_rank_too_small(%x: tensor<3xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rms_norm' op expected the input to have rank at least 2 (the normalized rank), got tensor<3xf32>
  %y, %r = rlx.rms_norm %x normalized_rank 2 eps 1.0e-05 : (tensor<3xf32>) -> (tensor<3xf32>, tensor<1x1xf32>)
  return
}

// -----

// rms_norm: the weight has the normalized dims' shape.
func.func @rms_norm_weight(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rms_norm' op expected the weight to be tensor<3x4xf32> (the input's last 2 dims), got tensor<4xf32>
  %y, %r = rlx.rms_norm %x weight %w normalized_rank 2 eps 1.0e-05 : (tensor<2x3x4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
  return
}

// -----

// rms_norm: rstd keeps the normalized dims as 1 (ATen's shape).
func.func @rms_norm_rstd_shape(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rms_norm' op expected the rstd to be tensor<2x1x1xf32> (the input's shape with its last 2 dims 1), got tensor<2xf32>
  %y, %r = rlx.rms_norm %x normalized_rank 2 eps 1.0e-05 : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2xf32>)
  return
}

// -----

// rms_norm: eps has no default (PyTorch's depends on the dtype).
func.func @rms_norm_no_eps(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'eps'
  %y, %r = rlx.rms_norm %x : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
  return
}

// -----

// rms_norm_backward: a weight needs a grad_weight result (and no weight, none).
func.func @rms_norm_backward_mask(%x: tensor<2x3xf32>, %r: tensor<2x1xf32>, %w: tensor<3xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rms_norm_backward' op expected a grad_weight result exactly when the weight is given (ATen's output mask), got a weight and 1 results
  %dx = rlx.rms_norm_backward %x, %x, %r weight %w : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// rms_norm_backward: grad_output has the input's shape.
func.func @rms_norm_backward_dy(%dy: tensor<2x4xf32>, %x: tensor<2x3xf32>, %r: tensor<2x1xf32>) {
  // CHECK: {{.*}}rms-norm-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rms_norm_backward' op expected the grad_output to be tensor<2x3xf32> (the input's shape), got tensor<2x4xf32>
  %dx = rlx.rms_norm_backward %dy, %x, %r : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return
}
