// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the RoPE ops: the exact message and its file:line:col.

// rope: the layout is one of the two pairings.
func.func @rope_layout(%x: tensor<2x4x8xf32>, %t: tensor<4x8xf32>) {
  // CHECK: {{.*}}rope-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rope' op expected 'layout' to be one of "rotate_half", "interleaved", got "neox"
  %y = rlx.rope %x, %t, %t layout "neox" : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// rope: the last dim holds pairs.
func.func @rope_odd(%x: tensor<2x4x7xf32>, %t: tensor<4x7xf32>) {
  // CHECK: {{.*}}rope-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rope' op expected the input to have rank at least 2 ([..., T, D]) and an even last dim D (the rotated pairs), got tensor<2x4x7xf32>
  %y = rlx.rope %x, %t, %t : (tensor<2x4x7xf32>, tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<2x4x7xf32>
  return
}

// -----

// rope: the tables are full width ([T, D], each angle twice), not [T, D/2].
func.func @rope_half_table(%x: tensor<2x4x8xf32>, %t: tensor<4x4xf32>) {
  // CHECK: {{.*}}rope-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rope' op expected the cos and sin tables to broadcast to the input tensor<2x4x8xf32> with its last dim (full-width [..., T, D] tables, each angle twice), got tensor<4x4xf32>
  %y = rlx.rope %x, %t, %t : (tensor<2x4x8xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// rope: cos and sin are one table shape.
func.func @rope_table_mismatch(%x: tensor<2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<1x4x8xf32>) {
  // CHECK: {{.*}}rope-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rope' op expected cos and sin to have one type, got tensor<4x8xf32> and tensor<1x4x8xf32>
  %y = rlx.rope %x, %c, %s : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<1x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// rope_backward: the gradient has dy's type.
func.func @rope_backward_result(%dy: tensor<2x4x8xf32>, %t: tensor<4x8xf32>) {
  // CHECK: {{.*}}rope-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.rope_backward' op expected the result to have the grad_output's type tensor<2x4x8xf32>, got tensor<2x8x8xf32>
  %dx = rlx.rope_backward %dy, %t, %t : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x8x8xf32>
  return
}
