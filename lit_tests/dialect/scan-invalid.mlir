// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the scan ops: the exact message and its file:line:col.

// A scan needs an axis.
func.func @scan_rank0(%a: tensor<f32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected the result to have rank at least 1 (a scan needs an axis), got tensor<f32>
  %h = rlx.linear_scan %a, %a dim 0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// dim within the rank.
func.func @scan_dim(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected 'dim' to be in [0, 2) for a rank-2 result, got 2
  %h = rlx.linear_scan %a, %a dim 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// The scanned axis is static (the gradient shifts along it with static slices).
func.func @scan_dynamic_axis(%a: tensor<?x3xf32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected the scanned dim 0 to be static (only a batch dim other than the scanned one may be dynamic), got tensor<?x3xf32>
  %h = rlx.linear_scan %a, %a dim 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

// At least one step.
func.func @scan_empty(%a: tensor<2x0xf32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected the scanned dim 1 to have at least one step, got tensor<2x0xf32>
  %h = rlx.linear_scan %a, %a dim 1 : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x0xf32>
  return
}

// -----

// The coefficients, the input and the result share one shape.
func.func @scan_shape(%a: tensor<2x3xf32>, %x: tensor<2x4xf32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected the input to have the result's shape 2x3, got tensor<2x4xf32>
  %h = rlx.linear_scan %a, %x dim 1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// One float element type.
func.func @scan_element(%a: tensor<2x3xf32>, %x: tensor<2x3xf64>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected all operands and the result to have one element type, got f32 and f64
  %h = rlx.linear_scan %a, %x dim 1 : (tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return
}

// -----

// reverse is a bool.
func.func @scan_reverse_attr(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.linear_scan' op expected 'reverse' to be true or false, got 1 : i64
  %h = "rlx.linear_scan"(%a, %a) <{dim = 1 : i64, reverse = 1 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// cumsum: the result has the input's shape.
func.func @cumsum_shape(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.cumsum' op expected the input to have the result's shape 3x2, got tensor<2x3xf32>
  %y = rlx.cumsum %x dim 1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// cumsum: float element types (ATen's integer cumsum is not an RLX op).
func.func @cumsum_integer(%x: tensor<2x3xi64>) {
  // CHECK: {{.*}}scan-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.cumsum' op expected a floating-point element type, got i64
  %y = rlx.cumsum %x dim 1 : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return
}
