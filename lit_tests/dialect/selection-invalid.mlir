// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per diagnostic of the selection family: the exact message and its file:line:col.

// A condition that is not bool.
func.func @where_float_condition(%c: tensor<2x3xf32>, %a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.where' op expected the condition to have element type i1 (PyTorch's bool), got f32
  %r = rlx.where %c, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Branches of two element types.
func.func @where_mixed(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf64>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.where' op expected the input and the other to have one element type, got f32 and f64
  %r = rlx.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A result that is not the broadcast shape.
func.func @where_shape(%c: tensor<4x1xi1>, %a: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.where' op expected the result type to be tensor<4x3xf32> as the geometry implies, got tensor<3xf32>
  %r = rlx.where %c, %a, %a : (tensor<4x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A mask that would widen the input.
func.func @masked_fill_widening(%x: tensor<3xf32>, %m: tensor<2x3xi1>) -> tensor<3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.masked_fill' op expected the mask to broadcast to the input's shape, got tensor<2x3xi1> and tensor<3xf32>
  %r = rlx.masked_fill %x, %m value 0.0 : (tensor<3xf32>, tensor<2x3xi1>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A fractional fill of an integer tensor (ATen would promote the result to float).
func.func @masked_fill_fraction(%x: tensor<3xi64>, %m: tensor<3xi1>) -> tensor<3xi64> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.masked_fill' op expected 'value' to be an integer in [-9223372036854775808, 9223372036854775807] for element type i64, got 2.5
  %r = rlx.masked_fill %x, %m value 2.5 : (tensor<3xi64>, tensor<3xi1>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// clamp without bounds.
func.func @clamp_no_bounds(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.clamp' op expected at least one of 'min' and 'max' (ATen refuses a clamp without bounds)
  %r = rlx.clamp %x : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// clamp of bools (ATen refuses it).
func.func @clamp_bool(%x: tensor<3xi1>) -> tensor<3xi1> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.clamp' op expected a floating-point or signless integer (i8 or wider) element type, got i1
  %r = rlx.clamp %x min 0.0 : (tensor<3xi1>) -> tensor<3xi1>
  return %r : tensor<3xi1>
}

// -----

// A NaN bound (the generic form: the custom form's float literal has no NaN).
func.func @clamp_nan(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.clamp' op expected bounds that are not NaN, got min nan and max inf
  %r = "rlx.clamp"(%x) <{min = 0x7FF8000000000000 : f64, max = 0x7FF0000000000000 : f64}> : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// clamp_backward's gradient of another shape.
func.func @clamp_backward_shape(%dy: tensor<2x3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.clamp_backward' op expected the grad_output to have the input's shape, got tensor<2x3xf32> and tensor<3xf32>
  %r = rlx.clamp_backward %dy, %x max 1.0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// tril of a vector.
func.func @tril_vector(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}selection-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.tril' op expected the input to have rank at least 2 (a matrix, or a batch of them), got tensor<3xf32>
  %r = rlx.tril %x : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
