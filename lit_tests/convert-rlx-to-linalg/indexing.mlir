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

// -----

// gather along a middle dim: y[a, b, c] = 0 <= t < 5 ? x[a, t, c] : 0,   t = index[a, b, c].
// One all-parallel generic over the index; the input is read by tensor.extract at the
// position clamped into [0, 5) in dim 1, and an out-of-range (or negative) index yields 0.
// CHECK-LABEL: func.func @gather_middle
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%t : tensor<2x4x2xi64>)
// CHECK:       ^bb0(%[[T:.*]]: i64, %{{.*}}: f32):
// CHECK:         %[[P:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK:         %[[S:.*]] = arith.constant 5 : index
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[P]], %[[S]] : index
// CHECK:         %[[SAFE:.*]] = arith.select %[[INSIDE]], %[[P]], %{{.*}} : index
// CHECK:         %[[A:.*]] = linalg.index 0 : index
// CHECK:         %[[C:.*]] = linalg.index 2 : index
// CHECK:         %[[X:.*]] = tensor.extract %x[%[[A]], %[[SAFE]], %[[C]]] : tensor<2x5x3xf32>
// CHECK:         %[[Y:.*]] = arith.select %[[INSIDE]], %[[X]], %{{.*}} : f32
// CHECK:         linalg.yield %[[Y]] : f32
// CHECK-NOT:   rlx.
func.func @gather_middle(%x: tensor<2x5x3xf32>, %t: tensor<2x4x2xi64>) -> tensor<2x4x2xf32> {
  %y = rlx.gather %x, %t dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x4x2xf32>
  return %y : tensor<2x4x2xf32>
}

// -----

// gather along a dynamic dim: the bound is the input's size, read once outside the body.
// CHECK-LABEL: func.func @gather_dynamic
// CHECK:       %[[B:.*]] = tensor.dim %t, %{{.*}} : tensor<?x4xi64>
// CHECK:       %[[E:.*]] = tensor.empty(%[[B]]) : tensor<?x4xf64>
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf64>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%t : tensor<?x4xi64>) outs(%[[E]] : tensor<?x4xf64>)
// CHECK:         arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:         tensor.extract %x
func.func @gather_dynamic(%x: tensor<?x4xf64>, %t: tensor<?x4xi64>) -> tensor<?x4xf64> {
  %y = rlx.gather %x, %t dim 0 : (tensor<?x4xf64>, tensor<?x4xi64>) -> tensor<?x4xf64>
  return %y : tensor<?x4xf64>
}

// -----

// scatter_add along a middle dim, the index [2, 4, 2] smaller than the input [2, 5, 3] and src [2, 4, 3]:
//   y = x;  for p in the index's shape (row-major):  y[p with p[1] := t] += 0 <= t < 5 ? src[p] : 0,   t = index[p]
// One ordered scf.for over the index's 16 elements (linear in it; no atomics), p
// delinearized from the loop index: the terms of one y element meet in ascending p[1], and
// the loop-carried y is updated through one-element slices.
// CHECK-LABEL: func.func @scatter_add_middle
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %x) -> (tensor<2x5x3xf32>)
// CHECK:         %[[C:.*]] = arith.remui %[[I]], %{{.*}} : index
// CHECK:         %[[IM:.*]] = arith.divui %[[I]], %{{.*}} : index
// CHECK:         %[[M:.*]] = arith.remui %[[IM]], %{{.*}} : index
// CHECK:         %[[A:.*]] = arith.divui %[[IM]], %{{.*}} : index
// CHECK:         %[[T:.*]] = tensor.extract %t[%[[A]], %[[M]], %[[C]]] : tensor<2x4x2xi64>
// CHECK:         %[[P:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[P]], %{{.*}} : index
// CHECK:         %[[SAFE:.*]] = arith.select %[[INSIDE]], %[[P]], %{{.*}} : index
// CHECK:         %[[CELL:.*]] = tensor.extract_slice %[[ACC]][%[[A]], %[[SAFE]], %[[C]]] [1, 1, 1] [1, 1, 1]
// CHECK:         %[[CUR:.*]] = tensor.extract %[[CELL]]
// CHECK:         %[[V:.*]] = tensor.extract %s[%[[A]], %[[M]], %[[C]]] : tensor<2x4x3xf32>
// CHECK:         %[[TERM:.*]] = arith.select %[[INSIDE]], %[[V]], %{{.*}} : f32
// CHECK:         %[[SUM:.*]] = arith.addf %[[CUR]], %[[TERM]] : f32
// CHECK:         %[[NEW:.*]] = tensor.from_elements %[[SUM]] : tensor<1x1x1xf32>
// CHECK:         %[[Y:.*]] = tensor.insert_slice %[[NEW]] into %[[ACC]][%[[A]], %[[SAFE]], %[[C]]] [1, 1, 1] [1, 1, 1]
// CHECK:         scf.yield %[[Y]] : tensor<2x5x3xf32>
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   rlx.
func.func @scatter_add_middle(%x: tensor<2x5x3xf32>, %t: tensor<2x4x2xi64>, %s: tensor<2x4x3xf32>) -> tensor<2x5x3xf32> {
  %z = rlx.scatter_add %x, %t, %s dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %z : tensor<2x5x3xf32>
}

// -----

// Along dim 0: one loop over the index's 9 * 5 elements, from x itself.
// CHECK-LABEL: func.func @scatter_add_rows
// CHECK:       %[[N:.*]] = arith.muli
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %x) -> (tensor<4x5xf32>)
// CHECK:         tensor.extract %t[%{{.*}}, %{{.*}}] : tensor<9x5xi64>
// CHECK:         tensor.insert_slice
// CHECK-NOT:   scf.for
func.func @scatter_add_rows(%x: tensor<4x5xf32>, %t: tensor<9x5xi64>, %s: tensor<9x5xf32>) -> tensor<4x5xf32> {
  %z = rlx.scatter_add %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<9x5xi64>, tensor<9x5xf32>) -> tensor<4x5xf32>
  return %z : tensor<4x5xf32>
}

// -----

// A dynamic batch: the loop runs to the index's batch (read once with tensor.dim) times 6.
// CHECK-LABEL: func.func @scatter_add_dynamic
// CHECK:       %[[B:.*]] = tensor.dim %t, %{{.*}} : tensor<?x6xi64>
// CHECK:       %[[N:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %x) -> (tensor<?x4xf64>)
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] [1, 1] [1, 1] : tensor<1x1xf64> into tensor<?x4xf64>
func.func @scatter_add_dynamic(%x: tensor<?x4xf64>, %t: tensor<?x6xi64>, %s: tensor<?x6xf64>) -> tensor<?x4xf64> {
  %z = rlx.scatter_add %x, %t, %s dim 1 : (tensor<?x4xf64>, tensor<?x6xi64>, tensor<?x6xf64>) -> tensor<?x4xf64>
  return %z : tensor<?x4xf64>
}

// -----

// index_select along a middle dim: y[a, b, c] = 0 <= t < 5 ? x[a, t, c] : 0,   t = index[b].
// gather's body, with the 1-D index read at the selected dim alone.
// CHECK-LABEL: func.func @index_select_middle
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%t : tensor<4xi64>)
// CHECK:         %[[P:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[P]], %{{.*}} : index
// CHECK:         %[[SAFE:.*]] = arith.select %[[INSIDE]], %[[P]], %{{.*}} : index
// CHECK:         tensor.extract %x[%{{.*}}, %[[SAFE]], %{{.*}}] : tensor<2x5x3xf32>
// CHECK-NOT:   rlx.
func.func @index_select_middle(%x: tensor<2x5x3xf32>, %t: tensor<4xi64>) -> tensor<2x4x3xf32> {
  %y = rlx.index_select %x, %t dim 1 : (tensor<2x5x3xf32>, tensor<4xi64>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// -----

// A dynamic number of rows selected: the result's rows are the index's length.
// CHECK-LABEL: func.func @index_select_rows
// CHECK:       %[[N:.*]] = tensor.dim %t, %{{.*}} : tensor<?xi64>
// CHECK:       %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%t : tensor<?xi64>) outs(%[[E]] : tensor<?x3xf32>)
func.func @index_select_rows(%x: tensor<?x3xf32>, %t: tensor<?xi64>) -> tensor<?x3xf32> {
  %y = rlx.index_select %x, %t dim 0 : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// scatter along a middle dim, the index [2, 4, 2] smaller than the input [2, 5, 3]:
// scatter_add's loop, writing src[p] where the index is inside (select, no add), so the
// last write along dim 1 wins:
//   y = x;  for p (row-major):  y[p with p[1] := t] = 0 <= t < 5 ? src[p] : y[...]
// CHECK-LABEL: func.func @scatter_middle
// CHECK:       scf.for %{{.*}} iter_args(%[[ACC:.*]] = %x)
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult
// CHECK:         %[[SAFE:.*]] = arith.select %[[INSIDE]]
// CHECK:         %[[CELL:.*]] = tensor.extract_slice %[[ACC]][%{{.*}}, %[[SAFE]], %{{.*}}] [1, 1, 1] [1, 1, 1]
// CHECK:         %[[CUR:.*]] = tensor.extract %[[CELL]]
// CHECK:         %[[V:.*]] = tensor.extract %s
// CHECK:         %[[W:.*]] = arith.select %[[INSIDE]], %[[V]], %[[CUR]] : f32
// CHECK:         %[[NEW:.*]] = tensor.from_elements %[[W]]
// CHECK:         tensor.insert_slice %[[NEW]] into %[[ACC]][%{{.*}}, %[[SAFE]], %{{.*}}] [1, 1, 1] [1, 1, 1]
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   rlx.
func.func @scatter_middle(%x: tensor<2x5x3xf32>, %t: tensor<2x4x2xi64>, %s: tensor<2x4x3xf32>) -> tensor<2x5x3xf32> {
  %y = rlx.scatter %x, %t, %s dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}

// -----

// scatter_value writes the constant where the index is inside; no src is read.
// CHECK-LABEL: func.func @scatter_value_rows
// CHECK:       scf.for %{{.*}} iter_args(%{{.*}} = %x) -> (tensor<4x5xf32>)
// CHECK:         %[[C:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         %[[W:.*]] = arith.select %{{.*}}, %[[C]], %{{.*}} : f32
// CHECK:         tensor.from_elements %[[W]]
// CHECK-NOT:   rlx.
func.func @scatter_value_rows(%x: tensor<4x5xf32>, %t: tensor<6x5xi64>) -> tensor<4x5xf32> {
  %y = rlx.scatter_value %x, %t dim 0 value 1.5 : (tensor<4x5xf32>, tensor<6x5xi64>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}
