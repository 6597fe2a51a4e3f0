// RUN: rlx-opt %s --autodiff="func=where,masked_fill,clamp,clamp_backward,triu" | FileCheck %s

// where: each branch gets the cotangent where it was chosen (masked_fill for the other),
// the broadcast one summed back to its shape; the condition gets none.
// CHECK-LABEL: func.func @where_vjp
// CHECK-SAME:    -> (tensor<3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.+]] = rlx.where %c, %y_bar, %[[Z]] : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[B:.+]] = rlx.masked_fill %y_bar, %c value 0.000000e+00 : (tensor<4x3xf32>, tensor<4x1xi1>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[S:.+]] = rlx.sum %[[A]] dims [0] keepdim true : (tensor<4x3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[R:.+]] = rlx.reshape %[[S]] : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %[[R]], %[[B]]
func.func @where(%c: tensor<4x1xi1>, %a: tensor<3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %y = rlx.where %c, %a, %b : (tensor<4x1xi1>, tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// masked_fill: the filled places get no gradient.
// CHECK-LABEL: func.func @masked_fill_vjp
// CHECK-NEXT:    %[[G:.+]] = rlx.masked_fill %y_bar, %m value 0.000000e+00 : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @masked_fill(%x: tensor<2x3xf32>, %m: tensor<3xi1>) -> tensor<2x3xf32> {
  %y = rlx.masked_fill %x, %m value -1.0e9 : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// clamp: its gradient op, with the bounds.
// CHECK-LABEL: func.func @clamp_vjp
// CHECK-NEXT:    %[[G:.+]] = rlx.clamp_backward %y_bar, %x max 2.000000e+00 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @clamp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.clamp %x max 2.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// clamp_backward is linear in dy with the same mask, and constant in x (no gradient).
// CHECK-LABEL: func.func @clamp_backward_vjp
// CHECK-SAME:    -> (tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-DAG:     %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:     %[[G:.+]] = rlx.clamp_backward %dx_bar, %x min -1.000000e+00 max 2.000000e+00
// CHECK:         func.return %[[G]], %[[Z]]
func.func @clamp_backward(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.clamp_backward %dy, %x min -1.0 max 2.0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// triu: the same triangle of the cotangent, for a dynamic batch too.
// CHECK-LABEL: func.func @triu_vjp
// CHECK-NEXT:    %[[G:.+]] = rlx.triu %y_bar diagonal 1 : (tensor<?x3x3xf32>) -> tensor<?x3x3xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @triu(%x: tensor<?x3x3xf32>) -> tensor<?x3x3xf32> {
  %y = rlx.triu %x diagonal 1 : (tensor<?x3x3xf32>) -> tensor<?x3x3xf32>
  return %y : tensor<?x3x3xf32>
}
