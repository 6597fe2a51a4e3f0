// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// clipped: dx = quant_min <= roundeven(x * inv) + zp <= quant_max ? dy : 0 (ordered: a NaN x gives 0).
// CHECK-LABEL: func.func @ste_clipped
// CHECK:       ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[R:.*]] = math.roundeven
// CHECK:         %[[Q:.*]] = arith.addf %[[R]], %{{.*}} : f32
// CHECK:         %[[LOW:.*]] = arith.cmpf ole, %{{.*}}, %[[Q]] : f32
// CHECK:         %[[HIGH:.*]] = arith.cmpf ole, %[[Q]], %{{.*}} : f32
// CHECK:         %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK:         %[[DX:.*]] = arith.select %[[IN]], %[[DY]], %{{.*}} : f32
// CHECK:         linalg.yield %[[DX]] : f32
// CHECK-NOT:   rlx.
func.func @ste_clipped(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.ste_backward %dy, %x scale 0.1 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// -----

// identity: dx = dy, no kernel at all.
// CHECK-LABEL: func.func @ste_identity
// CHECK-NEXT:    func.return %dy
func.func @ste_identity(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.ste_backward %dy, %x kind "identity" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// -----

// tanh: dx = dy * (1 - t * t), t = tanh(x).
// CHECK-LABEL: func.func @ste_tanh
// CHECK:       ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK:         %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK:         %[[D:.*]] = arith.subf %{{.*}}, %[[T2]] : f32
// CHECK:         %[[DX:.*]] = arith.mulf %[[DY]], %[[D]] : f32
// CHECK:         linalg.yield %[[DX]] : f32
func.func @ste_tanh(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.ste_backward %dy, %x kind "tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// -----

// hard_tanh: dx = -1 <= x <= 1 ? dy : 0 (both bounds pass dy).
// CHECK-LABEL: func.func @ste_hard_tanh
// CHECK:       ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[LOW:.*]] = arith.cmpf ole, %{{.*}}, %[[X]] : f32
// CHECK:         %[[HIGH:.*]] = arith.cmpf ole, %[[X]], %{{.*}} : f32
// CHECK:         %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK:         arith.select %[[IN]], %[[DY]], %{{.*}} : f32
func.func @ste_hard_tanh(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.ste_backward %dy, %x kind "hard_tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// -----

// Per channel: dx = quant_min <= q <= quant_max ? dy : 0, q on x's channel's grid.
// CHECK-LABEL: func.func @per_channel_backward
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:       ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: i32, %{{.*}}: f32):
// CHECK:         math.roundeven
// CHECK:         %[[Q:.*]] = arith.addf
// CHECK:         %[[LOW:.*]] = arith.cmpf ole, %{{.*}}, %[[Q]] : f32
// CHECK:         %[[HIGH:.*]] = arith.cmpf ole, %[[Q]], %{{.*}} : f32
// CHECK:         %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK:         arith.select %[[IN]], %[[DY]], %{{.*}} : f32
func.func @per_channel_backward(%dy: tensor<4x3xf32>, %x: tensor<4x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<4x3xf32> {
  %dx = rlx.fake_quantize_per_channel_backward %dy, %x, %s, %z axis 1 quant_min -8 quant_max 7 : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  return %dx : tensor<4x3xf32>
}
