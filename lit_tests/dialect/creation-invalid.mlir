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
