// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// embedding_backward: gw[v, d] = sum_{b, s} (t[b, s] == v) ? dy[b, s, d] : 0.
// A gather-form generic over [V, D] reducing over the index positions in a fixed order
// (deterministic: no scatter); an out-of-range index matches no row.
// CHECK-LABEL: func.func @embedding_backward_2d
// CHECK:       %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<10x4xf32>)
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%t, %dy : tensor<2x3xi64>, tensor<2x3x4xf32>) outs(%[[Z]] : tensor<10x4xf32>)
// CHECK:       ^bb0(%[[T:.*]]: i64, %[[DY:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:         %[[V:.*]] = linalg.index 0 : index
// CHECK:         %[[V64:.*]] = arith.index_cast %[[V]] : index to i64
// CHECK:         %[[MATCH:.*]] = arith.cmpi eq, %[[T]], %[[V64]] : i64
// CHECK:         %[[TERM:.*]] = arith.select %[[MATCH]], %[[DY]], %{{.*}} : f32
// CHECK:         arith.addf %[[ACC]], %[[TERM]] fastmath<reassoc> : f32
// CHECK-NOT:   rlx.
func.func @embedding_backward_2d(%dy: tensor<2x3x4xf32>, %t: tensor<2x3xi64>) -> tensor<10x4xf32> {
  %dw = rlx.embedding_backward %dy, %t : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return %dw : tensor<10x4xf32>
}

// -----

// padding_idx and scale_grad_by_freq: counts[v] = sum (t == v), s = 1 / counts, then each
// contribution is dy * s[v], and an index equal to padding_idx contributes nothing.
// CHECK-LABEL: func.func @embedding_backward_padding_scaled
// CHECK:       %[[COUNTS:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%t : tensor<?xi64>) outs(%{{.*}} : tensor<10xf64>)
// CHECK:       %[[INV:.*]] = linalg.generic
// CHECK-SAME:    ins(%[[COUNTS]] : tensor<10xf64>)
// CHECK:         arith.divf
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%t, %dy, %[[INV]] : tensor<?xi64>, tensor<?x4xf64>, tensor<10xf64>)
// CHECK:       ^bb0(%[[T:.*]]: i64, %[[DY:.*]]: f64, %[[S:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK:         %[[MATCH:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i64
// CHECK:         %[[PAD:.*]] = arith.constant 3 : i64
// CHECK:         %[[KEEP:.*]] = arith.cmpi ne, %[[T]], %[[PAD]] : i64
// CHECK:         %[[BOTH:.*]] = arith.andi %[[MATCH]], %[[KEEP]] : i1
// CHECK:         %[[SCALED:.*]] = arith.mulf %[[DY]], %[[S]] : f64
// CHECK:         arith.select %[[BOTH]], %[[SCALED]], %{{.*}} : f64
func.func @embedding_backward_padding_scaled(%dy: tensor<?x4xf64>, %t: tensor<?xi64>) -> tensor<10x4xf64> {
  %dw = rlx.embedding_backward %dy, %t padding_idx 3 scale_grad_by_freq true : (tensor<?x4xf64>, tensor<?xi64>) -> tensor<10x4xf64>
  return %dw : tensor<10x4xf64>
}
