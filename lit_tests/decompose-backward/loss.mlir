// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// log_softmax_backward: dx = dy - exp(y) * sum_dim dy.
// CHECK-LABEL: func.func @log_softmax_backward
// CHECK:       %[[S:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%dy : tensor<4x10xf32>)
// CHECK:         arith.addf
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %y, %[[S]] : tensor<4x10xf32>, tensor<4x10xf32>, tensor<4xf32>)
// CHECK:         ^bb0(%[[DY:.*]]: f32, %[[Y:.*]]: f32, %[[SUM:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[E:.*]] = math.exp %[[Y]]
// CHECK:         %[[P:.*]] = arith.mulf %[[E]], %[[SUM]]
// CHECK:         arith.subf %[[DY]], %[[P]]
// CHECK-NOT:   rlx.
func.func @log_softmax_backward(%dy: tensor<4x10xf32>, %y: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %dx = rlx.log_softmax_backward %dy, %y dim 1 : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %dx : tensor<4x10xf32>
}

// -----

// softmax_backward along dim 0: dx = y * (dy - sum_dim dy * y).
// CHECK-LABEL: func.func @softmax_backward_dim0
// CHECK:       %[[S:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["reduction", "parallel"]
// CHECK-SAME:    ins(%dy, %y : tensor<5x3xf64>, tensor<5x3xf64>)
// CHECK:         %[[PROD:.*]] = arith.mulf
// CHECK:         arith.addf %{{.*}}, %[[PROD]]
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%dy, %y, %[[S]] : tensor<5x3xf64>, tensor<5x3xf64>, tensor<3xf64>)
// CHECK:         ^bb0(%[[DY:.*]]: f64, %[[Y:.*]]: f64, %[[SUM:.*]]: f64, %{{.*}}: f64):
// CHECK:         %[[D:.*]] = arith.subf %[[DY]], %[[SUM]]
// CHECK:         arith.mulf %[[Y]], %[[D]]
// CHECK-NOT:   rlx.
func.func @softmax_backward_dim0(%dy: tensor<5x3xf64>, %y: tensor<5x3xf64>) -> tensor<5x3xf64> {
  %dx = rlx.softmax_backward %dy, %y dim 0 : (tensor<5x3xf64>, tensor<5x3xf64>) -> tensor<5x3xf64>
  return %dx : tensor<5x3xf64>
}

// -----

// nll_loss_backward "mean": one parallel generic over (n, c); the class loop index is
// compared with the target (and the target with ignore_index); the weight is read at c,
// the gradient is weight[c] * -(g / total_weight) there, 0 elsewhere.
// CHECK-LABEL: func.func @nll_loss_backward_mean
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%g, %t, %w, %tw : tensor<f32>, tensor<4xi64>, tensor<10xf32>, tensor<f32>)
// CHECK:         ^bb0(%[[G:.*]]: f32, %[[T:.*]]: i64, %[[W:.*]]: f32, %[[TW:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[C:.*]] = linalg.index 1 : index
// CHECK:         %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK:         %[[HIT:.*]] = arith.cmpi eq, %[[T]], %[[CI]] : i64
// CHECK:         %[[II:.*]] = arith.constant 3 : i64
// CHECK:         %[[KEEP:.*]] = arith.cmpi ne, %[[T]], %[[II]] : i64
// CHECK:         %[[BOTH:.*]] = arith.andi %[[HIT]], %[[KEEP]] : i1
// CHECK:         %[[SHARE:.*]] = arith.divf %[[G]], %[[TW]] : f32
// CHECK:         %[[NEG:.*]] = arith.negf %[[SHARE]] : f32
// CHECK:         %[[GRAD:.*]] = arith.mulf %[[W]], %[[NEG]] : f32
// CHECK:         arith.select %[[BOTH]], %[[GRAD]], %{{.*}} : f32
// CHECK-NOT:   rlx.
func.func @nll_loss_backward_mean(%g: tensor<f32>, %logp: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>, %tw: tensor<f32>) -> tensor<4x10xf32> {
  %d = rlx.nll_loss_backward %g, %logp, %t, %w, %tw ignore_index 3 : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>, tensor<f32>) -> tensor<4x10xf32>
  return %d : tensor<4x10xf32>
}

// -----

// "none" over [N, C, H, W]: grad_output is read per target element, (n, h, w); no division.
// CHECK-LABEL: func.func @nll_loss2d_backward_none
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-NOT:     arith.divf
// CHECK:         linalg.yield
// CHECK-NOT:   rlx.
func.func @nll_loss2d_backward_none(%g: tensor<2x5x5xf32>, %logp: tensor<2x3x5x5xf32>, %t: tensor<2x5x5xi64>, %w: tensor<3xf32>, %tw: tensor<f32>) -> tensor<2x3x5x5xf32> {
  %d = rlx.nll_loss_backward %g, %logp, %t, %w, %tw reduction "none" : (tensor<2x5x5xf32>, tensor<2x3x5x5xf32>, tensor<2x5x5xi64>, tensor<3xf32>, tensor<f32>) -> tensor<2x3x5x5xf32>
  return %d : tensor<2x3x5x5xf32>
}

// -----

// Unbatched: loops over the class only; target, grad_output and total weight are 0-d.
// CHECK-LABEL: func.func @nll_loss_backward_unbatched
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK:         linalg.index 0 : index
// CHECK-NOT:   rlx.
func.func @nll_loss_backward_unbatched(%g: tensor<f32>, %logp: tensor<10xf32>, %t: tensor<i64>, %w: tensor<10xf32>, %tw: tensor<f32>) -> tensor<10xf32> {
  %d = rlx.nll_loss_backward %g, %logp, %t, %w, %tw reduction "sum" : (tensor<f32>, tensor<10xf32>, tensor<i64>, tensor<10xf32>, tensor<f32>) -> tensor<10xf32>
  return %d : tensor<10xf32>
}
