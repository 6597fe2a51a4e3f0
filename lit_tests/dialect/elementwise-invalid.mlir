// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per diagnostic of the elementwise family: the exact message and its file:line:col.
// rlx-opt's --verify-diagnostics prints each chunk's first diagnostic (see invalid.mlir).

// mixed element types.
func.func @mixed_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.add' op expected all operands and the result to have one element type, got f32 and i64
  %r = rlx.add %a, %b : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// integer div.
func.func @integer_div(%a: tensor<2x3xi64>, %b: tensor<i64>) -> tensor<2x3xi64> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.div' op expected a floating-point element type (rlx.div is float only), got i64
  %r = rlx.div %a, %b : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// bool add.
func.func @bool_add(%a: tensor<2xi1>, %b: tensor<2xi1>) -> tensor<2xi1> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.add' op expected a floating-point or signless integer (i8 or wider) element type, got i1
  %r = rlx.add %a, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}

// -----

// shapes do not broadcast.
func.func @shapes_do_not_broadcast(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.mul' op expected shapes that broadcast (equal, 1 or missing in each dimension, aligned at the trailing end), got 2x3 and 4x3
  %r = rlx.mul %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// dynamic not leading.
func.func @dynamic_not_leading(%a: tensor<2x3xf32>, %b: tensor<?xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sub' op expected a dynamic size only in the leading (batch) dimension of the result, got 2x3 and ?: the rhs's dynamic dimension is the result's dimension 1
  %r = rlx.sub %a, %b : (tensor<2x3xf32>, tensor<?xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// dynamic against static.
func.func @dynamic_against_static(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<?x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.maximum' op expected the rhs to have a dynamic or size-1 leading dimension where the lhs has a dynamic one (broadcasting ? against 2 depends on the run-time size), got ?x3 and 2x3
  %r = rlx.maximum %a, %b : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// binary result shape.
func.func @binary_result_shape(%a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<3x2xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.minimum' op expected the result type to be tensor<2x3xf32> as the geometry implies, got tensor<3x2xf32>
  %r = rlx.minimum %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// unary integer.
func.func @unary_integer(%a: tensor<2x3xi64>) -> tensor<2x3xi64> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.exp' op expected a floating-point element type, got i64
  %r = rlx.exp %a : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// unary result shape.
func.func @unary_result_shape(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.tanh' op expected the result type to be tensor<2x3xf32> as the geometry implies, got tensor<6xf32>
  %r = rlx.tanh %a : (tensor<2x3xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// unary element types.
func.func @unary_element_types(%a: tensor<2x3xf32>) -> tensor<2x3xf64> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.neg' op expected all operands and the result to have one element type, got f32 and f64
  %r = rlx.neg %a : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// -----

// sum no dims.
func.func @sum_no_dims(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sum' op expected 'dims' to name at least one dimension (all of them for ATen's empty list)
  %r = rlx.sum %a dims [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// sum dims unsorted.
func.func @sum_dims_unsorted(%a: tensor<2x3xf32>) -> tensor<f32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sum' op expected 'dims' to be sorted and unique, got [1, 0]
  %r = rlx.sum %a dims [1, 0] : (tensor<2x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// mean dims out of range.
func.func @mean_dims_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.mean' op expected 'dims' within [0, 2) (the input's rank 2, negative dims normalized), got [2]
  %r = rlx.mean %a dims [2] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// mean negative dim.
func.func @mean_negative_dim(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.mean' op expected 'dims' within [0, 2) (the input's rank 2, negative dims normalized), got [-1]
  %r = rlx.mean %a dims [-1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// sum result shape keepdim.
func.func @sum_result_shape_keepdim(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sum' op expected the result type to be tensor<2xf32> as the geometry implies, got tensor<2x1xf32>
  %r = rlx.sum %a dims [1] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// mean integer.
func.func @mean_integer(%a: tensor<2x3xi64>) -> tensor<2xi64> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.mean' op expected a floating-point element type, got i64
  %r = rlx.mean %a dims [1] : (tensor<2x3xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// sum mixed types.
func.func @sum_mixed_types(%a: tensor<2x3xi32>) -> tensor<2xi64> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sum' op expected all operands and the result to have one element type, got i32 and i64
  %r = rlx.sum %a dims [1] : (tensor<2x3xi32>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// addmm contraction.
func.func @addmm_contraction(%c: tensor<5xf32>, %a: tensor<3x4xf32>, %b: tensor<6x5xf32>) -> tensor<3x5xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.addmm' op expected the contraction sizes to agree: lhs tensor<3x4xf32> has 4 columns, rhs tensor<6x5xf32> has 6 rows
  %r = rlx.addmm %c, %a, %b : (tensor<5xf32>, tensor<3x4xf32>, tensor<6x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// addmm bias shape.
func.func @addmm_bias_shape(%c: tensor<4xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.addmm' op expected the bias to broadcast to the product's shape 3x5, got tensor<4xf32>
  %r = rlx.addmm %c, %a, %b : (tensor<4xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// addmm bias rank.
func.func @addmm_bias_rank(%c: tensor<1x3x5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.addmm' op expected the bias to have rank 0, 1 or 2 (broadcast to [M, N]), got tensor<1x3x5xf32>
  %r = rlx.addmm %c, %a, %b : (tensor<1x3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// addmm result shape.
func.func @addmm_result_shape(%c: tensor<5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<5x3xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.addmm' op expected the result type to be tensor<3x5xf32> as the geometry implies, got tensor<5x3xf32>
  %r = rlx.addmm %c, %a, %b : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// -----

// addmm rank.
func.func @addmm_rank(%c: tensor<5xf32>, %a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK: {{.*}}elementwise-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.addmm' op expected the lhs to have rank 2, got tensor<2x3x4xf32>
  %r = rlx.addmm %c, %a, %b : (tensor<5xf32>, tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

