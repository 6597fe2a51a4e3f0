// RUN: rlx-opt %s --autodiff="func=widen,to_int,offset" | FileCheck %s

// A float cast's VJP casts the cotangent back to the input's type.
// CHECK-LABEL: func.func @widen_vjp
// CHECK-NEXT:    %[[G:.+]] = rlx.cast %y_bar : (tensor<2x3xf64>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @widen(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %y = rlx.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}

// To an integer: no gradient flows (the input's is zero).
// CHECK-LABEL: func.func @to_int_vjp
// CHECK:         %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Z]]
func.func @to_int(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>) -> (tensor<2x3xi64>, tensor<2x3xf32>) {
  %y = rlx.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return %y, %w : tensor<2x3xi64>, tensor<2x3xf32>
}

// arange and full have no differentiable operand: x's gradient is the cotangent alone.
// CHECK-LABEL: func.func @offset_vjp
// CHECK-NEXT:    func.return %y_bar
func.func @offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = rlx.arange end 4.0 : tensor<4xf32>
  %f = rlx.full value 2.0 : () -> tensor<4xf32>
  %s = rlx.add %r, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = rlx.add %x, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
