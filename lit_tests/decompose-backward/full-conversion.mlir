// RUN: rlx-opt %s --disable-verify --decompose-backward --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not rlx-opt %s --disable-verify --decompose-backward --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// decompose-backward owns every RLX backward op: one it cannot rewrite fails the pass at
// the op, as MLIR's applyFullConversion does. Its patterns assume verified ops, so an op
// read with --disable-verify that does not verify is the input's error, with the
// verifier's reason. Forward ops are not its own and stay.

// dy does not come from an input of the declared size.
func.func @input_size_inconsistent(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x12x12xf32> {
  // CHECK: {{.*}}full-conversion.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: failed to legalize operation 'rlx.conv2d_backward_input': an input height of 12 does not give 4 outputs; expected an input height of 7..8
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x12x12xf32>
  return %dx : tensor<1x3x12x12xf32>
}

// EXIT: full-conversion.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: failed to legalize operation 'rlx.conv2d_backward_input'
// EXIT-NOT: Traceback

// -----

// A result of rank 3.
func.func @pool_result_rank(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8xf32> {
  // CHECK: {{.*}}full-conversion.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: failed to legalize operation 'rlx.max_pool2d_backward': expected the result to have rank 4, got tensor<1x4x8xf32>
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8xf32>
  return %dx : tensor<1x4x8xf32>
}

// -----

// A forward op is convert-rlx-to-linalg's: decompose-backward leaves it, valid or not.
// CHECK-LABEL: func.func @forward_op_is_not_owned
// CHECK:       rlx.conv2d
func.func @forward_op_is_not_owned(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}
