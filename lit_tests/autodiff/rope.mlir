// RUN: rlx-opt %s --autodiff="func=rotate,rotate_grad,constant_tables" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=rotate,rotate_grad,constant_tables" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// rope: x_bar = rope_backward(y_bar) in the same layout; the tables' cotangents are the
// products they multiply, summed over the broadcast: cos_bar = sum_B(y_bar * x),
// sin_bar = sum_B(y_bar * rot(x)), rot(x) = rope(x, 0, 1).
// CHECK-LABEL: func.func @rotate_vjp
// CHECK-SAME:    -> (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:         %[[DX:.*]] = rlx.rope_backward %y_bar, %cos, %sin layout "interleaved"
// CHECK:         %[[XY:.*]] = rlx.mul %y_bar, %x
// CHECK:         %[[CS:.*]] = rlx.sum %[[XY]] dims [0] keepdim true
// CHECK:         %[[DCOS:.*]] = rlx.reshape %[[CS]]
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[ROT:.*]] = rlx.rope %x, %[[ZERO]], %[[ONE]] layout "interleaved"
// CHECK:         %[[RY:.*]] = rlx.mul %[[ROT]], %y_bar
// CHECK:         %[[SS:.*]] = rlx.sum %[[RY]] dims [0] keepdim true
// CHECK:         %[[DSIN:.*]] = rlx.reshape %[[SS]]
// CHECK:         func.return %[[DX]], %[[DCOS]], %[[DSIN]]
func.func @rotate(%x: tensor<2x4x8xf32>, %cos: tensor<4x8xf32>, %sin: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %y = rlx.rope %x, %cos, %sin layout "interleaved" : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// rope_backward is rope's transpose: dy_bar = rope(dx_bar); cos_bar = sum_B(dx_bar * dy),
// sin_bar = sum_B(rot(dx_bar) * dy).
// CHECK-LABEL: func.func @rotate_grad_vjp
// CHECK:         %[[DY:.*]] = rlx.rope %dx_bar, %cos, %sin : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
// CHECK:         rlx.mul %dx_bar, %dy
// CHECK:         %[[ROT:.*]] = rlx.rope %dx_bar, %{{.*}}, %{{.*}} :
// CHECK:         rlx.mul %[[ROT]], %dy
// CHECK:         func.return %[[DY]],
func.func @rotate_grad(%dy: tensor<2x4x8xf32>, %cos: tensor<4x8xf32>, %sin: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %dx = rlx.rope_backward %dy, %cos, %sin : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %dx : tensor<2x4x8xf32>
}

// Constant tables (the usual case) get no cotangent: the VJP is the one rope_backward.
// CHECK-LABEL: func.func @constant_tables_vjp
// CHECK-SAME:    (%x: tensor<?x4x8xf32>, %y_bar: tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK:         %[[DX:.*]] = rlx.rope_backward %y_bar, %{{.*}}, %{{.*}} : (tensor<?x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<?x4x8xf32>
// CHECK-NEXT:    func.return %[[DX]]
func.func @constant_tables(%x: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %cos = arith.constant dense<0.5> : tensor<4x8xf32>
  %sin = arith.constant dense<0.25> : tensor<4x8xf32>
  %y = rlx.rope %x, %cos, %sin : (tensor<?x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<?x4x8xf32>
  return %y : tensor<?x4x8xf32>
}
