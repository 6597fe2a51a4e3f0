// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// fake_quantize's grid in its custom form (zero_point 0 left out); ste_backward's kind
// "clipped" and its default grid (scale 1, zero_point 0, 0..255) are left out when printed.

// CHECK-LABEL: func.func @fake_quantize
// CHECK:       rlx.fake_quantize %{{.*}} scale 1.000000e-01 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.fake_quantize %{{.*}} scale 2.500000e-01 quant_min 0 quant_max 255 : (tensor<?x3xf64>) -> tensor<?x3xf64>
// GENERIC-LABEL: sym_name = "fake_quantize"
// GENERIC:     "rlx.fake_quantize"(%{{.*}}) <{scale = 1.000000e-01 : f64, zero_point = 3 : i64, quant_min = -128 : i64, quant_max = 127 : i64}>
func.func @fake_quantize(%x: tensor<2x3xf32>, %z: tensor<?x3xf64>) -> (tensor<2x3xf32>, tensor<?x3xf64>) {
  %y = rlx.fake_quantize %x scale 0.1 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %w = rlx.fake_quantize %z scale 0.25 quant_min 0 quant_max 255 : (tensor<?x3xf64>) -> tensor<?x3xf64>
  return %y, %w : tensor<2x3xf32>, tensor<?x3xf64>
}

// CHECK-LABEL: func.func @ste_backward
// CHECK:       rlx.ste_backward %{{.*}}, %{{.*}} scale 1.000000e-01 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.ste_backward %{{.*}}, %{{.*}} kind "tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.ste_backward %{{.*}}, %{{.*}} kind "hard_tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.ste_backward %{{.*}}, %{{.*}} kind "identity" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-LABEL: sym_name = "ste_backward"
// GENERIC:     "rlx.ste_backward"(%{{.*}}, %{{.*}}) <{kind = "clipped", scale = 1.000000e-01 : f64, zero_point = 3 : i64, quant_min = -128 : i64, quant_max = 127 : i64}>
// GENERIC:     "rlx.ste_backward"(%{{.*}}, %{{.*}}) <{kind = "tanh", scale = 1.000000e+00 : f64, zero_point = 0 : i64, quant_min = 0 : i64, quant_max = 255 : i64}>
func.func @ste_backward(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = rlx.ste_backward %dy, %x kind "clipped" scale 0.1 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = rlx.ste_backward %dy, %x kind "tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = rlx.ste_backward %dy, %x kind "hard_tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = rlx.ste_backward %dy, %x kind "identity" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c, %d : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Per-channel: scale [C] f32 and zero_point [C] i32 operands, C the size of x's axis.
// CHECK-LABEL: func.func @per_channel
// CHECK:       rlx.fake_quantize_per_channel %{{.*}}, %{{.*}}, %{{.*}} axis 1 quant_min -8 quant_max 7 : (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<?x3x4xf32>
// CHECK:       rlx.fake_quantize_per_channel_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} axis 1 quant_min -8 quant_max 7 : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<?x3x4xf32>
// GENERIC-LABEL: sym_name = "per_channel"
// GENERIC:     "rlx.fake_quantize_per_channel"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 1 : i64, quant_min = -8 : i64, quant_max = 7 : i64}>
func.func @per_channel(%x: tensor<?x3x4xf32>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> (tensor<?x3x4xf32>, tensor<?x3x4xf32>) {
  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min -8 quant_max 7 : (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<?x3x4xf32>
  %dx = rlx.fake_quantize_per_channel_backward %y, %x, %s, %z axis 1 quant_min -8 quant_max 7 : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<?x3x4xf32>
  return %y, %dx : tensor<?x3x4xf32>, tensor<?x3x4xf32>
}

// The grid as operands (an observer's): scale tensor<1xf32>, zero_point tensor<1xi32>.
// CHECK-LABEL: func.func @tensor_qparams
// CHECK:       rlx.fake_quantize_tensor_qparams %{{.*}}, %{{.*}}, %{{.*}} quant_min 0 quant_max 127 : (tensor<?x3xf32>, tensor<1xf32>, tensor<1xi32>) -> tensor<?x3xf32>
// CHECK:       rlx.fake_quantize_tensor_qparams_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} quant_min 0 quant_max 127 : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<1xf32>, tensor<1xi32>) -> tensor<?x3xf32>
// GENERIC-LABEL: sym_name = "tensor_qparams"
// GENERIC:     "rlx.fake_quantize_tensor_qparams"(%{{.*}}, %{{.*}}, %{{.*}}) <{quant_min = 0 : i64, quant_max = 127 : i64}>
func.func @tensor_qparams(%x: tensor<?x3xf32>, %dy: tensor<?x3xf32>, %s: tensor<1xf32>, %z: tensor<1xi32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %y = rlx.fake_quantize_tensor_qparams %x, %s, %z quant_min 0 quant_max 127 : (tensor<?x3xf32>, tensor<1xf32>, tensor<1xi32>) -> tensor<?x3xf32>
  %dx = rlx.fake_quantize_tensor_qparams_backward %dy, %x, %s, %z quant_min 0 quant_max 127 : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<1xf32>, tensor<1xi32>) -> tensor<?x3xf32>
  return %y, %dx : tensor<?x3xf32>, tensor<?x3xf32>
}

// The fused observer: per tensor (axis -1, the default, left out) its running values are
// 0-d; per channel (axis 0) one per row. choose_qparams's symmetric false is left out.
// CHECK-LABEL: func.func @observer
// CHECK:       rlx.moving_average_min_max %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} averaging_constant 1.000000e-02 : (tensor<?x3xf32>, tensor<f32>, tensor<f32>, tensor<1xi64>) -> (tensor<f32>, tensor<f32>)
// CHECK:       rlx.choose_qparams %{{.*}}, %{{.*}} quant_min 0 quant_max 127 : (tensor<f32>, tensor<f32>) -> (tensor<1xf32>, tensor<1xi32>)
// CHECK:       rlx.moving_average_min_max %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} averaging_constant 1.000000e-02 axis 0 : (tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xi64>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:       rlx.choose_qparams %{{.*}}, %{{.*}} quant_min -128 quant_max 127 symmetric true : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
// GENERIC-LABEL: sym_name = "observer"
// GENERIC:     "rlx.moving_average_min_max"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{averaging_constant = 1.000000e-02 : f64, axis = -1 : i64}>
// GENERIC:     "rlx.choose_qparams"(%{{.*}}, %{{.*}}) <{quant_min = 0 : i64, quant_max = 127 : i64, symmetric = false}>
func.func @observer(%x: tensor<?x3xf32>, %m: tensor<f32>, %on: tensor<1xi64>, %w: tensor<4x3xf32>, %c: tensor<4xf32>) -> (tensor<1xf32>, tensor<1xi32>, tensor<4xf32>, tensor<4xi32>) {
  %m2, %M2 = rlx.moving_average_min_max %x, %m, %m, %on averaging_constant 0.01 : (tensor<?x3xf32>, tensor<f32>, tensor<f32>, tensor<1xi64>) -> (tensor<f32>, tensor<f32>)
  %s, %z = rlx.choose_qparams %m2, %M2 quant_min 0 quant_max 127 : (tensor<f32>, tensor<f32>) -> (tensor<1xf32>, tensor<1xi32>)
  %c2, %C2 = rlx.moving_average_min_max %w, %c, %c, %on averaging_constant 0.01 axis 0 : (tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  %t, %u = rlx.choose_qparams %c2, %C2 quant_min -128 quant_max 127 symmetric true : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %s, %z, %t, %u : tensor<1xf32>, tensor<1xi32>, tensor<4xf32>, tensor<4xi32>
}
