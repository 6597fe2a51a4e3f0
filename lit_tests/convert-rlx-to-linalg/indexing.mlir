// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// embedding: y[b, s, d] = 0 <= t < V ? weight[t, d] : 0,   t = indices[b, s].
// One all-parallel generic over the result; the row is the index clamped into [0, V),
// read by tensor.extract, and an out-of-range index yields 0.
// CHECK-LABEL: func.func @embedding_2d
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%t : tensor<2x3xi64>)
// CHECK:       ^bb0(%[[T:.*]]: i64, %{{.*}}: f32):
// CHECK:         %[[ROW:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK:         %[[V:.*]] = arith.constant 10 : index
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[ROW]], %[[V]] : index
// CHECK:         %[[SAFE:.*]] = arith.select %[[INSIDE]], %[[ROW]], %{{.*}} : index
// CHECK:         %[[D:.*]] = linalg.index 2 : index
// CHECK:         %[[X:.*]] = tensor.extract %w[%[[SAFE]], %[[D]]] : tensor<10x4xf32>
// CHECK:         %[[Y:.*]] = arith.select %[[INSIDE]], %[[X]], %{{.*}} : f32
// CHECK:         linalg.yield %[[Y]] : f32
// CHECK-NOT:   rlx.
func.func @embedding_2d(%w: tensor<10x4xf32>, %t: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %y = rlx.embedding %w, %t padding_idx 1 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// A dynamic batch of indices: the result's batch is read from them.
// CHECK-LABEL: func.func @embedding_dynamic
// CHECK:       %[[N:.*]] = tensor.dim %t, %{{.*}} : tensor<?xi64>
// CHECK:       %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf64>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%t : tensor<?xi64>) outs(%[[E]] : tensor<?x4xf64>)
// CHECK:         tensor.extract %w
func.func @embedding_dynamic(%w: tensor<10x4xf64>, %t: tensor<?xi64>) -> tensor<?x4xf64> {
  %y = rlx.embedding %w, %t : (tensor<10x4xf64>, tensor<?xi64>) -> tensor<?x4xf64>
  return %y : tensor<?x4xf64>
}
