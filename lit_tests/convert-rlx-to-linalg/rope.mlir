// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// rope: y[..., k, i] = x[k, i] * cos[k, i] + (k == 0 ? -x[1 - k, i] : x[1 - k, i]) * sin[k, i]
// with the last axis viewed as pairs: [..., 2, D/2] for rotate_half (j with j + D/2). Each
// point reads both members of its pair (k fixed to 0 and 1 in the maps) and selects its
// own and its partner; the [T, D] tables are read at the loops' trailing dims. One
// all-parallel generic, then the view is collapsed back.
// CHECK-LABEL: func.func @rope_rotate_half
// CHECK:       %[[X:.*]] = tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64], [3 : i64, 4 : i64]] output_shape [2, 3, 4, 2, 4]
// CHECK:       %[[C:.*]] = tensor.expand_shape %cos {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [4, 2, 4]
// CHECK:       %[[S:.*]] = tensor.expand_shape %sin
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, 1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[X]], %[[X]], %[[C]], %[[S]], %[[S]] :
// CHECK:       ^bb0(%[[X0:.*]]: f32, %[[X1:.*]]: f32, %[[CV:.*]]: f32, %[[S0:.*]]: f32, %[[S1:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[K:.*]] = linalg.index 3 : index
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK:         %[[OWN:.*]] = arith.select %[[FIRST]], %[[X0]], %[[X1]] : f32
// CHECK:         %[[PARTNER:.*]] = arith.select %[[FIRST]], %[[X1]], %[[X0]] : f32
// CHECK:         %[[SV:.*]] = arith.select %[[FIRST]], %[[S0]], %[[S1]] : f32
// CHECK:         %[[NEG:.*]] = arith.negf %[[PARTNER]] : f32
// CHECK:         %[[ROT:.*]] = arith.select %[[FIRST]], %[[NEG]], %[[PARTNER]] : f32
// CHECK:         %[[A:.*]] = arith.mulf %[[OWN]], %[[CV]] : f32
// CHECK:         %[[B:.*]] = arith.mulf %[[ROT]], %[[SV]] : f32
// CHECK:         %[[Y:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:         linalg.yield %[[Y]] : f32
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64], [2 : i64], [3 : i64, 4 : i64]] : tensor<2x3x4x2x4xf32> into tensor<2x3x4x8xf32>
// CHECK-NOT:   rlx.
func.func @rope_rotate_half(%x: tensor<2x3x4x8xf32>, %cos: tensor<4x8xf32>, %sin: tensor<4x8xf32>) -> tensor<2x3x4x8xf32> {
  %y = rlx.rope %x, %cos, %sin : (tensor<2x3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x3x4x8xf32>
  return %y : tensor<2x3x4x8xf32>
}

// -----

// interleaved: pairs (2i, 2i + 1), the view [..., D/2, 2], k the last loop. A dynamic
// batch sizes the view and the result; the broadcast [1, T, D] tables are read at 0.
// CHECK-LABEL: func.func @rope_interleaved
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4x6xf64>
// CHECK:       tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[N]], 4, 3, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1)>, affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:         linalg.index 3 : index
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<?x4x3x2xf64> into tensor<?x4x6xf64>
// CHECK-NOT:   rlx.
func.func @rope_interleaved(%x: tensor<?x4x6xf64>, %cos: tensor<1x4x6xf64>, %sin: tensor<1x4x6xf64>) -> tensor<?x4x6xf64> {
  %y = rlx.rope %x, %cos, %sin layout "interleaved" : (tensor<?x4x6xf64>, tensor<1x4x6xf64>, tensor<1x4x6xf64>) -> tensor<?x4x6xf64>
  return %y : tensor<?x4x6xf64>
}
