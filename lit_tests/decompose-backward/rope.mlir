// RUN: rlx-opt %s --decompose-backward | FileCheck %s

// rope_backward: dx = dy * cos - rot(dy * sin), rot's transpose being -rot; in the pair
// view dx[k, i] = dy[k, i] * cos[k, i] + (k == 0 ? dy[p] * sin[p] : -(dy[p] * sin[p])),
// p = (1 - k, i): sin is selected at the partner too.
// CHECK-LABEL: func.func @rope_backward
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:       ^bb0(%[[DY0:.*]]: f32, %[[DY1:.*]]: f32, %[[C:.*]]: f32, %[[S0:.*]]: f32, %[[S1:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq
// CHECK:         %[[DY:.*]] = arith.select %[[FIRST]], %[[DY0]], %[[DY1]] : f32
// CHECK:         %[[DYP:.*]] = arith.select %[[FIRST]], %[[DY1]], %[[DY0]] : f32
// CHECK:         %[[SP:.*]] = arith.select %[[FIRST]], %[[S1]], %[[S0]] : f32
// CHECK:         %[[T:.*]] = arith.mulf %[[DYP]], %[[SP]] : f32
// CHECK:         %[[A:.*]] = arith.mulf %[[DY]], %[[C]] : f32
// CHECK:         %[[NEG:.*]] = arith.negf %[[T]] : f32
// CHECK:         %[[R:.*]] = arith.select %[[FIRST]], %[[T]], %[[NEG]] : f32
// CHECK:         arith.addf %[[A]], %[[R]] : f32
// CHECK:       tensor.collapse_shape
// CHECK-NOT:   rlx.
func.func @rope_backward(%dy: tensor<2x4x8xf32>, %cos: tensor<4x8xf32>, %sin: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %dx = rlx.rope_backward %dy, %cos, %sin : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %dx : tensor<2x4x8xf32>
}
