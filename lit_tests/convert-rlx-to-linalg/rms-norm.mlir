// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// RMS norm over the last 2 dims: one reduction, the sum of squares (a reassociable sum in
// the element type), then rstd = 1 / sqrt(sum / 15 + eps), then y = x * rstd * w; rstd
// leaves in ATen's shape [N, 1, 1].
// CHECK-LABEL: func.func @rms_norm_two_dims
// CHECK:       %[[SUM:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:         arith.mulf
// CHECK:         arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:       %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>)
// CHECK:         arith.constant 1.500000e+01 : f32
// CHECK:         arith.constant 1.000000e-05 : f32
// CHECK:         math.sqrt
// CHECK:       %y = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%x, %[[RSTD]], %w :
// CHECK:       tensor.expand_shape %[[RSTD]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] output_shape [%{{.*}}, 1, 1] : tensor<?xf32> into tensor<?x1x1xf32>
// CHECK-NOT:   rlx.
func.func @rms_norm_two_dims(%x: tensor<?x3x5xf32>, %w: tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>) {
  %y, %rstd = rlx.rms_norm %x weight %w normalized_rank 2 eps 1.0e-05 : (tensor<?x3x5xf32>, tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>)
  return %y, %rstd : tensor<?x3x5xf32>, tensor<?x1x1xf32>
}

// -----

// Without a weight, y = x * rstd reads two inputs.
// CHECK-LABEL: func.func @rms_norm_no_weight
// CHECK:       %y = linalg.generic
// CHECK-SAME:    ins(%x, %{{.*}} : tensor<4x6xf64>, tensor<4xf64>)
// CHECK:         arith.mulf
// CHECK-NEXT:    linalg.yield
func.func @rms_norm_no_weight(%x: tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<4x1xf64>) {
  %y, %rstd = rlx.rms_norm %x eps 2.0e-16 : (tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<4x1xf64>)
  return %y, %rstd : tensor<4x6xf64>, tensor<4x1xf64>
}
