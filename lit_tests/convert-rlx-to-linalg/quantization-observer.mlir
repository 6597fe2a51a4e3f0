// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// fake_quantize_tensor_qparams: fake_quantize's arithmetic with scale[0] and zero_point[0]
// read at every element (the map (d0, d1) -> (0)), inv = 1 / scale in f32.
// CHECK-LABEL: func.func @tensor_qparams
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK:       ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: i32, %{{.*}}: f32):
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK:         %[[ZP:.*]] = arith.sitofp %[[Z]] : i32 to f32
// CHECK:         %[[R:.*]] = math.roundeven %{{.*}} : f32
// CHECK:         %[[Q:.*]] = arith.addf %[[R]], %[[ZP]] : f32
// CHECK:         arith.maxnumf %[[Q]]
// CHECK:         arith.minnumf
// CHECK:         %[[L:.*]] = arith.subf %{{.*}}, %[[ZP]] : f32
// CHECK:         %[[Y:.*]] = arith.mulf %[[L]], %[[S]] : f32
// CHECK:         linalg.yield %[[Y]] : f32
// CHECK-NOT:   rlx.
func.func @tensor_qparams(%x: tensor<2x3xf32>, %s: tensor<1xf32>, %z: tensor<1xi32>) -> tensor<2x3xf32> {
  %y = rlx.fake_quantize_tensor_qparams %x, %s, %z quant_min 0 quant_max 127 : (tensor<2x3xf32>, tensor<1xf32>, tensor<1xi32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// The per-tensor observer: one reduction of x into 0-d min and max (+-inf initial), then
// the moving average, skipped where observer_on is 0, and the first call taking the batch's.
// CHECK-LABEL: func.func @observer_per_tensor
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>]
// CHECK-SAME:    iterator_types = ["reduction", "reduction"]
// CHECK:         arith.minimumf
// CHECK:         arith.maximumf
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = []
// CHECK:         %[[ON:.*]] = arith.cmpi ne
// CHECK:         %[[ABS:.*]] = math.absf %[[M:.*]] : f32
// CHECK:         %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK:         %[[FIRST:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK:         %[[K:.*]] = arith.constant 1.000000e-02 : f32
// CHECK:         %[[D:.*]] = arith.subf %[[B:.*]], %[[M]] : f32
// CHECK:         %[[KD:.*]] = arith.mulf %[[K]], %[[D]] : f32
// CHECK:         %[[EMA:.*]] = arith.addf %[[M]], %[[KD]] : f32
// CHECK:         %[[NEW:.*]] = arith.select %[[FIRST]], %[[B]], %[[EMA]] : f32
// CHECK:         arith.select %[[ON]], %[[NEW]], %[[M]] : f32
// CHECK-NOT:   rlx.
func.func @observer_per_tensor(%x: tensor<?x3xf32>, %m: tensor<f32>, %M: tensor<f32>, %on: tensor<1xi64>) -> (tensor<f32>, tensor<f32>) {
  %m2, %M2 = rlx.moving_average_min_max %x, %m, %M, %on averaging_constant 0.01 : (tensor<?x3xf32>, tensor<f32>, tensor<f32>, tensor<1xi64>) -> (tensor<f32>, tensor<f32>)
  return %m2, %M2 : tensor<f32>, tensor<f32>
}

// -----

// Per channel (axis 0): the reduction keeps the rows.
// CHECK-LABEL: func.func @observer_per_channel
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction", "reduction"]
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel"]
// CHECK-NOT:   rlx.
func.func @observer_per_channel(%w: tensor<4x3x3x3xf32>, %m: tensor<4xf32>, %on: tensor<1xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %m2, %M2 = rlx.moving_average_min_max %w, %m, %m, %on averaging_constant 0.01 axis 0 : (tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  return %m2, %M2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// choose_qparams: one loop over the grids, reading a 0-d min and max at every one; the
// scale in f32 from a double quotient, the zero point nudged in double, then to i32.
// CHECK-LABEL: func.func @choose_qparams
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:    iterator_types = ["parallel"]
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:         arith.truncf %{{.*}} : f64 to f32
// CHECK:         math.roundeven %{{.*}} : f64
// CHECK:         arith.fptosi %{{.*}} : f64 to i32
// CHECK:         linalg.yield %{{.*}}, %{{.*}} : f32, i32
// CHECK-NOT:   rlx.
func.func @choose_qparams(%m: tensor<f32>, %M: tensor<f32>) -> (tensor<1xf32>, tensor<1xi32>) {
  %s, %z = rlx.choose_qparams %m, %M quant_min 0 quant_max 127 : (tensor<f32>, tensor<f32>) -> (tensor<1xf32>, tensor<1xi32>)
  return %s, %z : tensor<1xf32>, tensor<1xi32>
}
