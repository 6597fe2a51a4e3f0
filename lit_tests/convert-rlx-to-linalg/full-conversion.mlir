// RUN: rlx-opt %s --disable-verify --convert-rlx-to-linalg --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not rlx-opt %s --disable-verify --convert-rlx-to-linalg --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// convert-rlx-to-linalg owns every forward RLX op: one it cannot rewrite fails the pass
// at the op, as MLIR's applyFullConversion does. An op read with --disable-verify that
// does not verify is the input's error, with the verifier's reason. Backward ops are not
// its own and stay.

// The declared result is not the conv's output size.
func.func @conv_result_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}full-conversion.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: failed to legalize operation 'rlx.conv2d': expected the result type to be tensor<1x4x6x6xf32> as the geometry implies, got tensor<1x4x8x8xf32>
  %y = rlx.conv2d %x, %w stride [1, 1] padding [0, 0] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// EXIT: full-conversion.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: failed to legalize operation 'rlx.conv2d'
// EXIT-NOT: Traceback

// -----

// An lhs of rank 1.
func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: {{.*}}full-conversion.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: failed to legalize operation 'rlx.matmul': expected the lhs to have rank 2 or 3, got tensor<4xf32>
  %y = rlx.matmul %a, %b : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A backward op is decompose-backward's: convert-rlx-to-linalg leaves it.
// CHECK-LABEL: func.func @backward_op_is_not_owned
// CHECK:       rlx.conv2d_backward_weight
func.func @backward_op_is_not_owned(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
