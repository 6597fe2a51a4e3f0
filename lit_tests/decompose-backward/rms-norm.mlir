// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// _fused_rms_norm_backward: one single-sum row reduction, sum(dy * w * x * rstd); its mean
// (m = 4); one parallel generic for dx = rstd * (dy * w - xhat * mean); dweight sums
// dy * xhat over the rows, in x's loop order (rows reduced outside the columns).
// CHECK-LABEL: func.func @rms_norm_backward
// CHECK:       %[[SUM:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%dy, %x, %r, %w :
// CHECK:         arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>)
// CHECK:         arith.constant 4.000000e+00 : f32
// CHECK:       %dx = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %x, %r, %[[MEAN]], %w :
// CHECK:       %dw = linalg.generic
// CHECK-SAME:    iterator_types = ["reduction", "parallel"]
// CHECK-SAME:    ins(%dy, %x, %r :
// CHECK-NOT:   rlx.
func.func @rms_norm_backward(%dy: tensor<?x4xf32>, %x: tensor<?x4xf32>, %r: tensor<?x1xf32>, %w: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>) {
  %dx, %dw = rlx.rms_norm_backward %dy, %x, %r weight %w : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x1xf32>, tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>)
  return %dx, %dw : tensor<?x4xf32>, tensor<4xf32>
}

// -----

// Without a weight: g = dy, and no dweight generic.
// CHECK-LABEL: func.func @rms_norm_backward_no_weight
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d0, 0, 0)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%dy, %x, %r :
// CHECK:       arith.constant 1.200000e+01 : f32
// CHECK:       %dx = linalg.generic
// CHECK-NOT:   linalg.generic
// CHECK:       return %dx
func.func @rms_norm_backward_no_weight(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %r: tensor<2x1x1xf32>) -> tensor<2x3x4xf32> {
  %dx = rlx.rms_norm_backward %dy, %x, %r normalized_rank 2 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  return %dx : tensor<2x3x4xf32>
}
