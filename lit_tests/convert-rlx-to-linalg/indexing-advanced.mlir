// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// index with a dynamic batch: one generic over the indices makes the flat row (a negative
// index wraps by the input's run-time size, an outside one becomes -1), a second gathers
// the row, reading 0 where it is outside.
// CHECK-LABEL: func.func @index_dynamic
// CHECK:       %[[S:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3xf32>
// CHECK:       %[[ROWS:.*]] = linalg.generic
// CHECK-SAME:    ins(%i : tensor<?xi64>)
// CHECK:         %[[SIZE:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK:         %[[NEG:.*]] = arith.cmpi slt
// CHECK:         %[[UP:.*]] = arith.addi %{{.*}}, %[[SIZE]] : i64
// CHECK:         %[[T:.*]] = arith.select %[[NEG]], %[[UP]], %{{.*}} : i64
// CHECK:         arith.cmpi ult, %[[T]], %[[SIZE]] : i64
// CHECK:         arith.constant -1 : i64
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%[[ROWS]] : tensor<?xi64>)
// CHECK:         tensor.extract %x[%{{.*}}, %{{.*}}] : tensor<?x3xf32>
// CHECK-NOT:   rlx.
func.func @index_dynamic(%x: tensor<?x3xf32>, %i: tensor<?xi64>) -> tensor<?x3xf32> {
  %y = rlx.index %x[%i] : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// index at [6] and [2, 1]: the second index broadcasts (read at column 0); the flat row
// is t0 * 5 + t1 into the input seen as its [20, 3] table of rows.
// CHECK-LABEL: func.func @index_broadcast
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         arith.constant 5 : i64
// CHECK:         arith.muli
// CHECK:       tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<4x5x3xf32> into tensor<20x3xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-NOT:   rlx.
func.func @index_broadcast(%x: tensor<4x5x3xf32>, %i: tensor<6xi64>, %j: tensor<2x1xi64>) -> tensor<2x6x3xf32> {
  %y = rlx.index %x[%i, %j] : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<2x1xi64>) -> tensor<2x6x3xf32>
  return %y : tensor<2x6x3xf32>
}

// -----

// index_put without accumulate of a 0-d value: the value broadcast to one per position,
// then one ordered scf.for over the positions that writes (select, not add) the row it
// names, so the last write wins; the table is seen as the input's shape again.
// CHECK-LABEL: func.func @put_2d
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK:       %[[TABLE:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<4x5xf32> into tensor<20xf32>
// CHECK:       %[[LOOP:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[TABLE]]) -> (tensor<20xf32>)
// CHECK:         linalg.generic
// CHECK:           %[[W:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[W]] : f32
// CHECK:         tensor.insert_slice
// CHECK:       tensor.expand_shape %[[LOOP]] {{\[}}[0 : i64, 1 : i64]] output_shape [4, 5] : tensor<20xf32> into tensor<4x5xf32>
// CHECK-NOT:   rlx.
func.func @put_2d(%x: tensor<4x5xf32>, %i: tensor<6xi64>, %j: tensor<6xi64>, %v: tensor<f32>) -> tensor<4x5xf32> {
  %y = rlx.index_put %x[%i, %j], %v : (tensor<4x5xf32>, tensor<6xi64>, tensor<6xi64>, tensor<f32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// index_put with accumulate: the same loop adds the row (scatter_add_rows).
// CHECK-LABEL: func.func @add_at
// CHECK:       scf.for
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK-NOT:   rlx.
func.func @add_at(%x: tensor<4x5xf32>, %i: tensor<6xi64>, %v: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %y = rlx.index_put %x[%i], %v accumulate true : (tensor<4x5xf32>, tensor<6xi64>, tensor<6x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}
