// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per diagnostic of the creation family: the exact message and its file:line:col.

// A cast that changes the shape.
func.func @cast_shape(%x: tensor<2x3xf32>) -> tensor<3x2xf64> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.cast' op expected the result type to be tensor<2x3xf64> as the geometry implies, got tensor<3x2xf64>
  %r = rlx.cast %x : (tensor<2x3xf32>) -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}

// -----

// An element type PyTorch has no dtype for here (an unsigned integer).
func.func @cast_unsigned(%x: tensor<3xf32>) -> tensor<3xui8> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.cast' op expected the result to have a floating-point, signless integer (i8 or wider) or i1 element type, got ui8
  %r = rlx.cast %x : (tensor<3xf32>) -> tensor<3xui8>
  return %r : tensor<3xui8>
}

// -----

// An arange whose declared length is not PyTorch's ceil((end - start) / step).
func.func @arange_length() -> tensor<11xf32> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.arange' op expected the result type to be tensor<10xf32> as the geometry implies, got tensor<11xf32>
  %r = rlx.arange end 1.0 step 0.1 : tensor<11xf32>
  return %r : tensor<11xf32>
}

// -----

// A step against the direction from start to end.
func.func @arange_sign() -> tensor<0xf32> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.arange' op expected end - start to have the sign of step (ATen's 'upper bound and larger bound inconsistent with step sign'), got start 0.0, end 1.0, step -1.0
  %r = rlx.arange end 1.0 step -1.0 : tensor<0xf32>
  return %r : tensor<0xf32>
}

// -----

// A zero step.
func.func @arange_zero_step() -> tensor<0xf32> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.arange' op expected a non-zero step
  %r = rlx.arange end 1.0 step 0.0 : tensor<0xf32>
  return %r : tensor<0xf32>
}

// -----

// A fractional arange of integers.
func.func @arange_fraction() -> tensor<2xi64> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.arange' op expected 'step' to be an integer in [-9223372036854775808, 9223372036854775807] for element type i64, got 0.5
  %r = rlx.arange end 1.0 step 0.5 : tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// full without a size for its dynamic dimension.
func.func @full_missing_size() -> tensor<?x3xf32> {
  // CHECK: {{.*}}creation-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.full' op expected one index operand per dynamic dimension of the result (1), got 0
  %r = rlx.full value 0.0 : () -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
