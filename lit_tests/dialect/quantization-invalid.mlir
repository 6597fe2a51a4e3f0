// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the quantization ops: the exact message and its file:line:col.

// fake_quantize: ATen's scale is an f32 value; it must be positive.
func.func @fake_quantize_scale(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize' op expected 'scale' to be positive and finite as an f32 value, got 0.0
  %y = rlx.fake_quantize %x scale 0.0 quant_min 0 quant_max 255 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// fake_quantize: quant_min <= quant_max (ATen's check).
func.func @fake_quantize_range(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize' op expected quant_min <= quant_max, got quant_min 5 and quant_max 4
  %y = rlx.fake_quantize %x scale 0.5 zero_point 4 quant_min 5 quant_max 4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// fake_quantize: the zero point lies in the grid (ATen's check).
func.func @fake_quantize_zero_point(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize' op expected zero_point to be between quant_min -8 and quant_max 7, got 8
  %y = rlx.fake_quantize %x scale 0.5 zero_point 8 quant_min -8 quant_max 7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// ste_backward: the kind is one of RLX's SteKinds.
func.func @ste_kind(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.ste_backward' op expected 'kind' to be one of "identity", "clipped", "tanh", "hard_tanh", got "sigmoid"
  %dx = rlx.ste_backward %dy, %x kind "sigmoid" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// ste_backward: dy and x have the result's shape.
func.func @ste_shape(%dy: tensor<2x3xf32>, %x: tensor<3x2xf32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.ste_backward' op expected the input to have the shape of the result tensor<2x3xf32>, got tensor<3x2xf32>
  %dx = rlx.ste_backward %dy, %x : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

// fake_quantize_per_channel: ATen's scale is f32 (whatever x's type), one per channel.
func.func @per_channel_scale(%x: tensor<2x3xf64>, %s: tensor<3xf64>, %z: tensor<3xi32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize_per_channel' op expected the scale to be tensor<3xf32> (one per index of the input's axis 1, ATen's type), got tensor<3xf64>
  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min 0 quant_max 255 : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xi32>) -> tensor<2x3xf64>
  return
}

// -----

// fake_quantize_per_channel: one zero point per index of the axis.
func.func @per_channel_zero_point(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %z: tensor<2xi32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize_per_channel' op expected the scale to be tensor<3xf32> (one per index of the input's axis 1, ATen's type), got tensor<2xf32>
  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min 0 quant_max 255 : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return
}

// -----

// fake_quantize_per_channel_backward: the axis is a dim of x.
func.func @per_channel_axis(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize_per_channel_backward' op expected axis to be a dim of the input tensor<2x3xf32>, got 2
  %dx = rlx.fake_quantize_per_channel_backward %dy, %x, %s, %z axis 2 quant_min 0 quant_max 255 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return
}

// -----

// fake_quantize_tensor_qparams: one grid, scale tensor<1xf32> (ATen's type).
func.func @tensor_qparams_scale(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<1xi32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.fake_quantize_tensor_qparams' op expected the scale to be tensor<1xf32> (one grid for the whole tensor, ATen's type), got tensor<3xf32>
  %y = rlx.fake_quantize_tensor_qparams %x, %s, %z quant_min 0 quant_max 255 : (tensor<2x3xf32>, tensor<3xf32>, tensor<1xi32>) -> tensor<2x3xf32>
  return
}

// -----

// moving_average_min_max: per channel, one running value per row of x.
func.func @observer_statistics(%x: tensor<4x3xf32>, %m: tensor<3xf32>, %on: tensor<1xi64>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.moving_average_min_max' op expected the running_min to be tensor<4xf32>, got tensor<3xf32>
  %a, %b = rlx.moving_average_min_max %x, %m, %m, %on averaging_constant 0.01 axis 0 : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1xi64>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// moving_average_min_max: the observer reads x as f32, as ATen's kernel.
func.func @observer_f64(%x: tensor<4x3xf64>, %m: tensor<f32>, %on: tensor<1xi64>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.moving_average_min_max' op expected an f32 input (ATen's fused observer reads floats), got tensor<4x3xf64>
  %a, %b = rlx.moving_average_min_max %x, %m, %m, %on averaging_constant 0.01 : (tensor<4x3xf64>, tensor<f32>, tensor<f32>, tensor<1xi64>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// choose_qparams: one zero point per running min and max.
func.func @choose_qparams_channels(%m: tensor<4xf32>) {
  // CHECK: {{.*}}quantization-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.choose_qparams' op expected the zero_point to be tensor<4xi32> (one grid per running min and max, ATen's type), got tensor<1xi32>
  %s, %z = rlx.choose_qparams %m, %m quant_min 0 quant_max 255 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<1xi32>)
  return
}
