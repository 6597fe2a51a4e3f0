// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the indexing ops: the exact message and its file:line:col.

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

// -----

// gather's dim is a dim of the input (the importer normalizes a negative one).
func.func @gather_dim_range(%x: tensor<4x5xf32>, %t: tensor<4x5xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gather' op expected dim to be a dim of the input (0 <= dim < 2), got 2
  %y = rlx.gather %x, %t dim 2 : (tensor<4x5xf32>, tensor<4x5xi64>) -> tensor<4x5xf32>
  return
}

// -----

// The index has the input's rank.
func.func @gather_index_rank(%x: tensor<4x5xf32>, %t: tensor<4xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gather' op expected the index to have the input's rank 2, got tensor<4xi64>
  %y = rlx.gather %x, %t dim 0 : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// The index is i64.
func.func @gather_index_float(%x: tensor<4x5xf32>, %t: tensor<4x5xf32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gather' op expected positions of element type i64, got f32
  %y = rlx.gather %x, %t dim 0 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

// Outside `dim`, the index is no larger than the input.
func.func @gather_index_larger(%x: tensor<4x5xf32>, %t: tensor<4x6xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gather' op expected the index to be no larger than the input in dim 1, got 6 > 5
  %y = rlx.gather %x, %t dim 0 : (tensor<4x5xf32>, tensor<4x6xi64>) -> tensor<4x6xf32>
  return
}

// -----

// gather's result has the index's shape.
func.func @gather_result_shape(%x: tensor<4x5xf32>, %t: tensor<2x5xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gather' op expected the result to be tensor<2x5xf32> (the index's shape), got tensor<4x5xf32>
  %y = rlx.gather %x, %t dim 0 : (tensor<4x5xf32>, tensor<2x5xi64>) -> tensor<4x5xf32>
  return
}

// -----

// A 0-d input has no dim to index along (ATen's 0-d gather is left out).
func.func @gather_scalar(%x: tensor<f32>, %t: tensor<i64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gather' op expected the input to have rank at least 1, got tensor<f32>
  %y = rlx.gather %x, %t dim 0 : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

// scatter_add's index is no larger than src in any dim, `dim` too.
func.func @scatter_add_src_smaller(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %s: tensor<2x5xf32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.scatter_add' op expected the index to be no larger than the src in dim 0, got 3 > 2
  %y = rlx.scatter_add %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

// scatter_add's result has the input's shape.
func.func @scatter_add_result_shape(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %s: tensor<3x5xf32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.scatter_add' op expected the result to be tensor<4x5xf32> (the input's shape), got tensor<3x5xf32>
  %y = rlx.scatter_add %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

// src and the input share one element type.
func.func @scatter_add_element_types(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %s: tensor<3x5xf64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.scatter_add' op expected all operands and the result to have one element type, got f32 and f64
  %y = rlx.scatter_add %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x5xf64>) -> tensor<4x5xf32>
  return
}

// -----

// index_select's index is 1-D.
func.func @index_select_index_rank(%x: tensor<4x5xf32>, %t: tensor<2x2xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index_select' op expected the index to have rank 1, got tensor<2x2xi64>
  %y = rlx.index_select %x, %t dim 0 : (tensor<4x5xf32>, tensor<2x2xi64>) -> tensor<4x5xf32>
  return
}

// -----

// index_select's result is the input's shape with the index's length in dim.
func.func @index_select_result_shape(%x: tensor<4x5xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index_select' op expected the result to be tensor<4x3xf32> (the input's shape with the index's length in dim 1 of 2), got tensor<3x5xf32>
  %y = rlx.index_select %x, %t dim 1 : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<3x5xf32>
  return
}

// -----

// index_select's dim is a dim of the input.
func.func @index_select_dim_range(%x: tensor<4x5xf32>, %t: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index_select' op expected dim to be a dim of the input (0 <= dim < 2), got -1
  %y = rlx.index_select %x, %t dim -1 : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

// scatter's src has the input's rank.
func.func @scatter_src_rank(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %s: tensor<15xf32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.scatter' op expected the index to have the src's rank 1, got tensor<3x5xi64>
  %y = rlx.scatter %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<15xf32>) -> tensor<4x5xf32>
  return
}

// -----

// scatter_value's value is required (ATen's scatter.value has no default).
func.func @scatter_value_missing(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.scatter_value' op expected the property 'value' (an f64 float)
  %y = "rlx.scatter_value"(%x, %t) <{dim = 0 : i64}> : (tensor<4x5xf32>, tensor<3x5xi64>) -> tensor<4x5xf32>
  return
}

// -----

// Outside `dim`, scatter_value's index is no larger than the input.
func.func @scatter_value_index_larger(%x: tensor<4x5xf32>, %t: tensor<3x6xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.scatter_value' op expected the index to be no larger than the input in dim 1, got 6 > 5
  %y = rlx.scatter_value %x, %t dim 0 value 0.0 : (tensor<4x5xf32>, tensor<3x6xi64>) -> tensor<4x5xf32>
  return
}

// -----

// index takes at most one index tensor per dim of the input.
func.func @index_too_many_indices(%x: tensor<4xf32>, %i: tensor<2xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index' op expected 1 to 1 index tensors (one per leading dim of the input), got 2
  %y = rlx.index %x[%i, %i] : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

// The index tensors broadcast together.
func.func @index_indices_not_broadcast(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %j: tensor<3xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index' op expected the index tensors to broadcast together, got sizes [2, 3] in dim -1 (from the right)
  %y = rlx.index %x[%i, %j] : (tensor<4x5xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<2xf32>
  return
}

// -----

// index's result: the indices' broadcast shape, then the unindexed dims.
func.func @index_result_shape(%x: tensor<4x5xf32>, %i: tensor<2xi64>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index' op expected the result to be tensor<2x5xf32> (the indices' broadcast shape, then the input's unindexed dims), got tensor<2x4xf32>
  %y = rlx.index %x[%i] : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

// The index tensors are i64.
func.func @index_i32(%x: tensor<4x5xf32>, %i: tensor<2xi32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index' op expected positions of element type i64, got i32
  %y = rlx.index %x[%i] : (tensor<4x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
  return
}

// -----

// index_put's values broadcast to the indexed shape.
func.func @index_put_values_shape(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<3xf32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index_put' op expected the values to broadcast to tensor<2x5> (the indices' broadcast shape, then the input's unindexed dims), got tensor<3xf32>
  %y = rlx.index_put %x[%i], %v : (tensor<4x5xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<4x5xf32>
  return
}

// -----

// index_put's result has the input's type.
func.func @index_put_result(%x: tensor<4x5xf32>, %i: tensor<2xi64>, %v: tensor<5xf32>) {
  // CHECK: {{.*}}indexing-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.index_put' op expected the result to have the input's type tensor<4x5xf32>, got tensor<4x6xf32>
  %y = rlx.index_put %x[%i], %v : (tensor<4x5xf32>, tensor<2xi64>, tensor<5xf32>) -> tensor<4x6xf32>
  return
}
