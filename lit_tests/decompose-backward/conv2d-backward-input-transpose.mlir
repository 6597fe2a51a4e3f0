// RUN: rlx-opt %s --decompose-backward=conv-input=transpose --split-input-file | FileCheck %s

// RLX's route: a transposed conv of dy with w as [C_in = F, C_out/G = C/G, KH, KW]; the
// shared conv_transpose2d lowering always carries a group loop (here of extent 1).
// CHECK-LABEL: func.func @transpose_padded
// CHECK:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [2, 4, 8, 8] [1, 1, 1, 1]
// CHECK:       tensor.expand_shape {{.*}} output_shape [2, 1, 4, 10, 10]
// CHECK:       tensor.expand_shape {{.*}} output_shape [1, 4, 3, 3, 3]
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, (d3 + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK:       tensor.collapse_shape {{.*}} : tensor<2x1x3x8x8xf32> into tensor<2x3x8x8xf32>
// CHECK-NOT:   rlx.
func.func @transpose_padded(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// -----

// The solved output_padding (1, 0) sizes the result: 10 x 9 from a 4 x 4 dy at stride 2.
// CHECK-LABEL: func.func @transpose_solved_output_padding
// CHECK:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x12x11xf32>
// CHECK:       linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x3x10x9xf32>)
// CHECK:       tensor.collapse_shape {{.*}} into tensor<1x3x10x9xf32>
// CHECK-NOT:   rlx.
func.func @transpose_solved_output_padding(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x10x9xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x9xf32>
  return %dx : tensor<1x3x10x9xf32>
}

// -----

// Negative adjoint padding (padding 2 > d*(k-1) = 1): cropped, not padded.
// CHECK-LABEL: func.func @transpose_negative_adjoint_padding
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 3, 6, 6] [1, 1, 1, 1] : tensor<1x3x8x8xf32> to tensor<1x3x6x6xf32>
// CHECK:       linalg.generic
// CHECK-NOT:   rlx.
func.func @transpose_negative_adjoint_padding(%dy: tensor<1x3x8x8xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x2x5x5xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [2, 2] stride [1, 1] padding [2, 2] : (tensor<1x3x8x8xf32>, tensor<3x2x2x2xf32>) -> tensor<1x2x5x5xf32>
  return %dx : tensor<1x2x5x5xf32>
}

// -----

// Groups 3 (depthwise with multiplier 2): w [6, 1, 3, 3] is split into [G=3, F/G=2, 1, 3, 3].
// CHECK-LABEL: func.func @transpose_depthwise
// CHECK:       tensor.expand_shape {{.*}} output_shape [1, 3, 2, 6, 6]
// CHECK:       tensor.expand_shape {{.*}} output_shape [3, 2, 1, 3, 3]
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<1x3x1x4x4xf32>)
// CHECK:       tensor.collapse_shape {{.*}} : tensor<1x3x1x4x4xf32> into tensor<1x3x4x4xf32>
// CHECK-NOT:   rlx.
func.func @transpose_depthwise(%dy: tensor<1x6x2x2xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [0, 0] groups 3 : (tensor<1x6x2x2xf32>, tensor<6x1x3x3xf32>) -> tensor<1x3x4x4xf32>
  return %dx : tensor<1x3x4x4xf32>
}

// -----

// Dynamic batch and f64.
// CHECK-LABEL: func.func @transpose_dynamic_batch_f64
// CHECK:       tensor.dim %{{.*}}, %{{.*}} : tensor<?x4x4x4xf64>
// CHECK:       linalg.generic
// CHECK:         arith.mulf {{.*}} : f64
// CHECK:       tensor.collapse_shape {{.*}} into tensor<?x3x8x8xf64>
// CHECK-NOT:   rlx.
func.func @transpose_dynamic_batch_f64(%dy: tensor<?x4x4x4xf64>, %w: tensor<4x3x3x3xf64>) -> tensor<?x3x8x8xf64> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x4x4xf64>, tensor<4x3x3x3xf64>) -> tensor<?x3x8x8xf64>
  return %dx : tensor<?x3x8x8xf64>
}
