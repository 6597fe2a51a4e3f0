// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per diagnostic of the comparison family: the exact message and its file:line:col.

// mixed element types (the importer promotes first).
func.func @mixed_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi64>) -> tensor<2x3xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.eq' op expected both operands to have one element type, got f32 and i64
  %r = rlx.eq %a, %b : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// shapes do not broadcast.
func.func @shapes_do_not_broadcast(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.lt' op expected shapes that broadcast (equal, 1 or missing in each dimension, aligned at the trailing end), got 2x3 and 4x3
  %r = rlx.lt %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// -----

// the result is not i1.
func.func @result_not_i1(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.logical_and' op expected the result to have element type i1 (PyTorch's bool), got f32
  %r = rlx.logical_and %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// a wrong result shape.
func.func @wrong_result_shape(%a: tensor<2x3xf32>) -> tensor<3x2xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.logical_not' op expected the result type to be tensor<2x3xi1> as the geometry implies, got tensor<3x2xi1>
  %r = rlx.logical_not %a : (tensor<2x3xf32>) -> tensor<3x2xi1>
  return %r : tensor<3x2xi1>
}

// -----

// an unsigned integer element type (PyTorch's integers are signless here).
func.func @unsigned(%a: tensor<2xui8>) -> tensor<2xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.ge' op expected a floating-point or signless integer element type, got ui8
  %r = rlx.ge %a, %a : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}

// -----

// duplicate dims.
func.func @duplicate_dims(%x: tensor<2x3xf32>) -> tensor<2xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.any' op expected 'dims' to be sorted and unique, got [1, 1]
  %r = rlx.any %x dims [1, 1] : (tensor<2x3xf32>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}

// -----

// a dim out of range.
func.func @dim_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.all' op expected 'dims' within [0, 2) (the input's rank 2, negative dims normalized), got [2]
  %r = rlx.all %x dims [2] : (tensor<2x3xf32>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}

// -----

// a dim of a 0-d input.
func.func @dim_of_scalar(%x: tensor<f32>) -> tensor<i1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.all' op expected no 'dims' for a 0-d input, got [0]
  %r = rlx.all %x dims [0] : (tensor<f32>) -> tensor<i1>
  return %r : tensor<i1>
}

// -----

// a reduction whose result is not i1.
func.func @reduction_result_not_i1(%x: tensor<2x3xi64>) -> tensor<2xi64> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.any' op expected the result to have element type i1 (PyTorch's bool), got i64
  %r = rlx.any %x dims [1] : (tensor<2x3xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// keepdim's shape.
func.func @keepdim_shape(%x: tensor<2x3xf32>) -> tensor<2xi1> {
  // CHECK: {{.*}}comparison-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.any' op expected the result type to be tensor<2x1xi1> as the geometry implies, got tensor<2xi1>
  %r = rlx.any %x dims [1] keepdim true : (tensor<2x3xf32>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}
