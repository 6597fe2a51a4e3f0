// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the activation ops, with its file:line:col.

// The result must have the operand's shape.
func.func @result_shape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.relu' op expected the input to have the shape of the result tensor<3x2xf32>, got tensor<2x3xf32>
  %y = rlx.relu %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// dy and x of a gradient must have one shape.
func.func @gradient_shapes(%dy: tensor<2x3xf32>, %x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.threshold_backward' op expected the input to have the shape of the result tensor<2x3xf32>, got tensor<2x4xf32>
  %y = rlx.threshold_backward %dy, %x : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A 0-d operand with a 1-d result is a shape mismatch too.
func.func @zero_d_mismatch(%x: tensor<f32>) -> tensor<1xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sigmoid' op expected the input to have the shape of the result tensor<1xf32>, got tensor<f32>
  %y = rlx.sigmoid %x : (tensor<f32>) -> tensor<1xf32>
  return %y : tensor<1xf32>
}

// -----

// A dynamic leading dimension must be dynamic in every operand and the result.
func.func @dynamic_mismatch(%dy: tensor<?x3xf32>, %x: tensor<2x3xf32>) -> tensor<?x3xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.silu_backward' op expected the input to have the shape of the result tensor<?x3xf32>, got tensor<2x3xf32>
  %y = rlx.silu_backward %dy, %x : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// Only the leading dimension may be dynamic.
func.func @dynamic_inner(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gelu' op expected only the leading (batch) dimension of the input to be dynamic, got tensor<2x?xf32>
  %y = rlx.gelu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}

// -----

// hardtanh's range must not be empty.
func.func @hardtanh_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.hardtanh' op expected min_val <= max_val, got min_val 2.0 and max_val 1.0
  %y = rlx.hardtanh %x min_val 2.0 : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @hardtanh_backward_range(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.hardtanh_backward' op expected min_val <= max_val, got min_val 6.0 and max_val 0.0
  %y = rlx.hardtanh_backward %dy, %x min_val 6.0 max_val 0.0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// gelu's approximate is "none" or "tanh".
func.func @gelu_approximate(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gelu' op expected 'approximate' to be one of "none", "tanh", got "erf"
  %y = rlx.gelu %x approximate "erf" : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @gelu_backward_approximate(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.gelu_backward' op expected 'approximate' to be one of "none", "tanh", got "Tanh"
  %y = rlx.gelu_backward %dy, %x approximate "Tanh" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A float property holds an f64.
func.func @slope_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.leaky_relu' op expected 'negative_slope' to be an f64 float, got 2.000000e-01 : f32
  %y = "rlx.leaky_relu"(%x) <{negative_slope = 0.2 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// One float element type.
func.func @mixed_types(%dy: tensor<4xf64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.sigmoid_backward' op expected all operands and the result to have one element type, got f64 and f32
  %y = rlx.sigmoid_backward %dy, %x : (tensor<4xf64>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @integer_type(%x: tensor<4xi64>) -> tensor<4xi64> {
  // CHECK: {{.*}}activation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.relu' op expected a floating-point element type, got i64
  %y = rlx.relu %x : (tensor<4xi64>) -> tensor<4xi64>
  return %y : tensor<4xi64>
}
