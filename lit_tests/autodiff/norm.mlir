// RUN: rlx-opt %s --autodiff="func=bn_grad,ln_grad" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=bn_grad,ln_grad" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// The gradient ops' VJPs are elementwise products and per-channel (per-row) sums in RLX
// ops: no gradient op is needed for them, and every operand gets a cotangent.
// CHECK-LABEL: func.func @bn_grad_vjp
// CHECK-SAME:    -> (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NOT:     rlx.batch_norm_backward
// CHECK:         rlx.sum %{{.*}} dims [0, 2, 3] keepdim true : (tensor<2x3x2x2xf32>) -> tensor<1x3x1x1xf32>
// CHECK:         func.return
func.func @bn_grad(%dy: tensor<2x3x2x2xf32>, %x: tensor<2x3x2x2xf32>, %w: tensor<3xf32>, %m: tensor<3xf32>, %s: tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dw, %db = rlx.batch_norm_backward %dy, %x, %w, %m, %s : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw, %db : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @ln_grad_vjp
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<4xf32>)
// CHECK-NOT:     rlx.layer_norm_backward
// CHECK:         rlx.sum %{{.*}} dims [1] keepdim true : (tensor<2x4xf32>) -> tensor<2x1xf32>
// CHECK:         func.return
func.func @ln_grad(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %m: tensor<2x1xf32>, %r: tensor<2x1xf32>, %w: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dx, %dw, %db = rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx, %dw, %db : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}
