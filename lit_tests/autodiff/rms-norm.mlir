// RUN: rlx-opt %s --autodiff="func=rms,rms_grad,rms_grad_no_weight" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=rms,rms_grad,rms_grad_no_weight" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// The forward op's VJP is the gradient op on its saved rstd (with the weight: dweight too),
// plus rstd's own cotangent carried to x.
// CHECK-LABEL: func.func @rms_vjp
// CHECK-SAME:    -> (tensor<2x3x4xf32>, tensor<3x4xf32>)
// CHECK:         %y, %r = rlx.rms_norm %x weight %w normalized_rank 2 eps 1.000000e-05
// CHECK:         rlx.rms_norm_backward %y_bar, %x, %r weight %w normalized_rank 2 : {{.*}} -> (tensor<2x3x4xf32>, tensor<3x4xf32>)
// CHECK:         func.return
func.func @rms(%x: tensor<2x3x4xf32>, %w: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>) {
  %y, %r = rlx.rms_norm %x weight %w normalized_rank 2 eps 1.0e-05 : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
  return %y, %r : tensor<2x3x4xf32>, tensor<2x1x1xf32>
}

// The gradient op's VJP is elementwise products and per-row sums in RLX ops (no gradient
// op is needed for it), so it differentiates again; every operand gets a cotangent.
// CHECK-LABEL: func.func @rms_grad_vjp
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<4xf32>)
// CHECK-NOT:     rlx.rms_norm_backward
// CHECK:         rlx.sum %{{.*}} dims [1] keepdim true : (tensor<2x4xf32>) -> tensor<2x1xf32>
// CHECK:         rlx.sum %{{.*}} dims [0] keepdim true : (tensor<2x4xf32>) -> tensor<1x4xf32>
// CHECK:         func.return
func.func @rms_grad(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %r: tensor<2x1xf32>, %w: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %dx, %dw = rlx.rms_norm_backward %dy, %x, %r weight %w : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>)
  return %dx, %dw : tensor<2x4xf32>, tensor<4xf32>
}

// Without a weight: cotangents of dy, x and rstd only.
// CHECK-LABEL: func.func @rms_grad_no_weight_vjp
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>)
// CHECK-NOT:     rlx.rms_norm_backward
// CHECK:         func.return
func.func @rms_grad_no_weight(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %r: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %dx = rlx.rms_norm_backward %dy, %x, %r : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %dx : tensor<2x4xf32>
}
