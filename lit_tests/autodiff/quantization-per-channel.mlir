// RUN: rlx-opt %s --autodiff="func=constant_grid" | FileCheck %s
// RUN: rlx-opt %s --autodiff="func=argument_grid" --verify-diagnostics | FileCheck %s --check-prefix=ARGUMENT
// RUN: not rlx-opt %s --autodiff="func=argument_grid" 2>&1 | FileCheck %s --check-prefix=EXIT

// A constant grid: x_bar = fake_quantize_per_channel_backward(y_bar, x) on it.
// CHECK-LABEL: func.func @constant_grid_vjp
// CHECK-SAME:    (%x: tensor<2x3xf32>, %y_bar: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[DX:.*]] = rlx.fake_quantize_per_channel_backward %y_bar, %x, %{{.*}}, %{{.*}} axis 1 quant_min -8 quant_max 7
// CHECK:         func.return %[[DX]]
func.func @constant_grid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = arith.constant dense<[0.25, 0.5, 0.1]> : tensor<3xf32>
  %z = arith.constant dense<[0, 1, -1]> : tensor<3xi32>
  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min -8 quant_max 7 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// A scale that is an argument has a gradient PyTorch refuses to give: a located error, exit 1.
// ARGUMENT: quantization-per-channel.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: 'rlx.fake_quantize_per_channel' op is not differentiable with respect to its scale (as in PyTorch): autodiff needs it to be a constant (arith.constant)
// EXIT:     error: 'rlx.fake_quantize_per_channel' op is not differentiable with respect to its scale
func.func @argument_grid(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<2x3xf32> {
  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min -8 quant_max 7 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
