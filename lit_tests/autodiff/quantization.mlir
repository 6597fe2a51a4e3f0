// RUN: rlx-opt %s --autodiff="func=quantize,clipped,smooth" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=quantize,clipped,smooth" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// fake_quantize: PyTorch's straight-through estimator, ste_backward kind "clipped" (the
// default kind, left out) on the op's grid.
// CHECK-LABEL: func.func @quantize_vjp
// CHECK-NEXT:    %[[DX:.*]] = rlx.ste_backward %y_bar, %x scale 1.000000e-01 zero_point 3 quant_min -128 quant_max 127
// CHECK-NEXT:    func.return %[[DX]]
func.func @quantize(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.fake_quantize %x scale 0.1 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// A mask's gradient: linear in dy (the same op on dx_bar), zero in x.
// CHECK-LABEL: func.func @clipped_vjp
// CHECK-NEXT:    %[[DY:.*]] = rlx.ste_backward %dx_bar, %x scale 1.000000e-01 zero_point 3 quant_min -128 quant_max 127
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[DY]], %[[ZERO]]
func.func @clipped(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.ste_backward %dy, %x scale 0.1 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// tanh: dy_bar = ste_backward(dx_bar, x) kind "tanh"; x_bar = dx_bar dy (-2 t (1 - t^2)), t = tanh(x).
// CHECK-LABEL: func.func @smooth_vjp
// CHECK-NEXT:    %[[DY:.*]] = rlx.ste_backward %dx_bar, %x kind "tanh"
// CHECK-NEXT:    %[[T:.*]] = rlx.tanh %x
// CHECK:         %[[T2:.*]] = rlx.mul %[[T]], %[[T]]
// CHECK:         %[[SLOPE:.*]] = rlx.sub %{{.*}}, %[[T2]]
// CHECK:         %[[G:.*]] = rlx.mul %dx_bar, %dy
// CHECK:         %[[TS:.*]] = rlx.mul %[[SLOPE]], %[[T]]
// CHECK:         %[[P:.*]] = rlx.mul %[[TS]], %[[G]]
// CHECK:         %[[TWO:.*]] = arith.constant dense<-2.000000e+00> : tensor<f32>
// CHECK:         %[[DX:.*]] = rlx.mul %[[TWO]], %[[P]]
// CHECK:         func.return %[[DY]], %[[DX]]
func.func @smooth(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.ste_backward %dy, %x kind "tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}
