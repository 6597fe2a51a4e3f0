// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the embedding ops: the exact message and its file:line:col.

// The indices are i64.
func.func @indices_i32(%w: tensor<10x4xf32>, %t: tensor<3xi32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding' op expected row indices of element type i64, got i32
  %y = rlx.embedding %w, %t : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return
}

// -----

// The table is [num_weights, embedding_dim].
func.func @weight_rank(%w: tensor<10xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding' op expected the weight to have rank 2 ([num_weights, embedding_dim]), got tensor<10xf32>
  %y = rlx.embedding %w, %t : (tensor<10xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

// A table of no rows has nothing to read, even for a clamped index.
func.func @weight_empty(%w: tensor<0x4xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding' op expected the weight to have at least one row, got tensor<0x4xf32>
  %y = rlx.embedding %w, %t : (tensor<0x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

// The result is [*indices.shape, D].
func.func @result_shape(%w: tensor<10x4xf32>, %t: tensor<2x3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding' op expected the result to be tensor<2x3x4xf32> (the indices' shape, then the embedding dim), got tensor<6x4xf32>
  %y = rlx.embedding %w, %t : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<6x4xf32>
  return
}

// -----

// padding_idx is -1 or a row; PyTorch's negative padding_idx is normalized by the importer.
func.func @padding_idx_range(%w: tensor<10x4xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding' op expected padding_idx to be -1 (none) or a row of the weight (0 <= padding_idx < 10), got 10
  %y = rlx.embedding %w, %t padding_idx 10 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

// The table is static: only the indices' leading dim may be dynamic.
func.func @weight_dynamic(%w: tensor<?x4xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding' op expected the weight to have a static shape, got tensor<?x4xf32>
  %y = rlx.embedding %w, %t : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

// The backward's grad_output is [*indices.shape, D] of the result's D.
func.func @backward_grad_output(%dy: tensor<3x5xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding_backward' op expected the grad_output to be tensor<3x4xf32> (the indices' shape, then the embedding dim), got tensor<3x5xf32>
  %dw = rlx.embedding_backward %dy, %t : (tensor<3x5xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}

// -----

// The backward's result states num_weights, so it is static.
func.func @backward_result_dynamic(%dy: tensor<3x4xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding_backward' op expected the result to have a static shape, got tensor<?x4xf32>
  %dw = rlx.embedding_backward %dy, %t : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<?x4xf32>
  return
}

// -----

// One element type.
func.func @backward_element_types(%dy: tensor<3x4xf64>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.embedding_backward' op expected all operands and the result to have one element type, got f64 and f32
  %dw = rlx.embedding_backward %dy, %t : (tensor<3x4xf64>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}
