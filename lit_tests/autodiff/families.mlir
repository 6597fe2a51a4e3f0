// RUN: rlx-opt %s --autodiff="func=mul,relu,permute,logsm,fanout" | FileCheck %s

// A broadcast operand's cotangent is summed back to its shape.
// CHECK-LABEL: func.func @mul_vjp
// CHECK-SAME:    (%a: tensor<2x3xf32>, %b: tensor<3xf32>, %z_bar: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[DA:.+]] = rlx.mul %z_bar, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[P:.+]] = rlx.mul %z_bar, %a
// CHECK-NEXT:    %[[S:.+]] = rlx.sum %[[P]] dims [0] keepdim true : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[DB:.+]] = rlx.reshape %[[S]] : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %[[DA]], %[[DB]]
func.func @mul(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %z = rlx.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// ReLU's VJP is ATen's threshold_backward on its output, computed once in the VJP function.
// CHECK-LABEL: func.func @relu_vjp
// CHECK-NEXT:    %[[Y:.+]] = rlx.relu %x
// CHECK-NEXT:    rlx.threshold_backward %y_bar, %[[Y]] :
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// A permute's VJP is the inverse permute.
// CHECK-LABEL: func.func @permute_vjp
// CHECK-NEXT:    rlx.permute %y_bar dims [1, 2, 0] : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = rlx.permute %x dims [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %y : tensor<4x2x3xf32>
}

// log_softmax's VJP is its ATen gradient, on its output.
// CHECK-LABEL: func.func @logsm_vjp
// CHECK-NEXT:    %[[Y:.+]] = rlx.log_softmax %x dim 1
// CHECK-NEXT:    rlx.log_softmax_backward %y_bar, %[[Y]] dim 1 :
func.func @logsm(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = rlx.log_softmax %x dim 1 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// A value used twice sums its cotangents (rlx.add); the two equal products are one op.
// CHECK-LABEL: func.func @fanout_vjp
// CHECK-NEXT:    %[[P:.+]] = rlx.mul %y_bar, %x
// CHECK-NEXT:    %[[S:.+]] = rlx.add %[[P]], %[[P]]
// CHECK-NEXT:    func.return %[[S]]
func.func @fanout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.mul %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

