// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// embedding_backward: gw = 0; for each index position i in order: gw[t_i, :] += dy[i, :].
// The index axes flatten to one; one scf.for visits the positions in order (deterministic,
// O(N * D)) and adds a row with an all-parallel generic. An out-of-range index writes row
// 0 with a zero term: nothing is addressed outside the table.
// CHECK-LABEL: func.func @embedding_backward_2d
// CHECK-DAG:   %[[V:.*]] = arith.constant 10 : index
// CHECK-DAG:   %[[T:.*]] = tensor.collapse_shape %t {{\[}}[0 : i64, 1 : i64]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK-DAG:   %[[DY:.*]] = tensor.collapse_shape %dy {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-DAG:   %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<10x4xf32>)
// CHECK:       %[[GW:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<10x4xf32>) {
// CHECK:         %[[TI:.*]] = tensor.extract %[[T]][%[[I]]] : tensor<6xi64>
// CHECK:         %[[ROW:.*]] = arith.index_cast %[[TI]] : i64 to index
// CHECK:         %[[KEEP:.*]] = arith.cmpi ult, %[[ROW]], %[[V]] : index
// CHECK:         %[[SAFE:.*]] = arith.select %[[KEEP]], %[[ROW]], %{{.*}} : index
// CHECK:         %[[SRC:.*]] = tensor.extract_slice %[[DY]][%[[I]], 0] [1, 4] [1, 1]
// CHECK:         %[[DST:.*]] = tensor.extract_slice %[[ACC]][%[[SAFE]], 0] [1, 4] [1, 1]
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[SRC]] : tensor<1x4xf32>) outs(%[[DST]] : tensor<1x4xf32>)
// CHECK:         ^bb0(%[[D:.*]]: f32, %[[G:.*]]: f32):
// CHECK:           %[[TERM:.*]] = arith.select %[[KEEP]], %[[D]], %{{.*}} : f32
// CHECK:           arith.addf %[[G]], %[[TERM]] : f32
// CHECK:         %[[NEXT:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[SAFE]], 0] [1, 4] [1, 1]
// CHECK:         scf.yield %[[NEXT]] : tensor<10x4xf32>
// CHECK:       return %[[GW]]
// CHECK-NOT:   rlx.
func.func @embedding_backward_2d(%dy: tensor<2x3x4xf32>, %t: tensor<2x3xi64>) -> tensor<10x4xf32> {
  %dw = rlx.embedding_backward %dy, %t : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return %dw : tensor<10x4xf32>
}

// -----

// padding_idx and scale_grad_by_freq: counts = the same ordered scatter-add of ones,
// s = 1 / counts, then each contribution is dy * s[t], and an index equal to padding_idx
// contributes nothing. A dynamic number of positions is the loop's upper bound.
// CHECK-LABEL: func.func @embedding_backward_padding_scaled
// CHECK:       %[[N:.*]] = tensor.dim %t, %{{.*}} : tensor<?xi64>
// CHECK:       %[[COUNTS:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<10xf64>)
// CHECK:       %[[INV:.*]] = linalg.generic {{.*}} ins(%[[COUNTS]] : tensor<10xf64>)
// CHECK:         arith.divf
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<10x4xf64>)
// CHECK:         %[[TI:.*]] = tensor.extract %t
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult
// CHECK:         %[[PAD:.*]] = arith.constant 3 : i64
// CHECK:         %[[NOTPAD:.*]] = arith.cmpi ne, %[[TI]], %[[PAD]] : i64
// CHECK:         %[[KEEP:.*]] = arith.andi %[[INSIDE]], %[[NOTPAD]] : i1
// CHECK:         %[[SAFE:.*]] = arith.select %[[KEEP]]
// CHECK:         %[[S:.*]] = tensor.extract %[[INV]][%[[SAFE]]] : tensor<10xf64>
// CHECK:         linalg.generic
// CHECK:           %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[S]] : f64
// CHECK:           arith.select %[[KEEP]], %[[SCALED]], %{{.*}} : f64
func.func @embedding_backward_padding_scaled(%dy: tensor<?x4xf64>, %t: tensor<?xi64>) -> tensor<10x4xf64> {
  %dw = rlx.embedding_backward %dy, %t padding_idx 3 scale_grad_by_freq true : (tensor<?x4xf64>, tensor<?xi64>) -> tensor<10x4xf64>
  return %dw : tensor<10x4xf64>
}
