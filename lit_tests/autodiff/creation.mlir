// RUN: rlx-opt %s --autodiff="func=widen,to_int" | FileCheck %s

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
