// RUN: rlx-opt %s --autodiff="func=bn_grad,ln_grad,gn,gn_grad,bn_eval,bn_eval_grad" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=bn_grad,ln_grad,gn,gn_grad,bn_eval,bn_eval_grad" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

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

// Group norm's VJP is its gradient op, rlx.group_norm_backward, with the weight.
// CHECK-LABEL: func.func @gn_vjp
// CHECK:         rlx.group_norm_backward %y_bar, %x, %m, %r weight %w groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         func.return
func.func @gn(%x: tensor<2x4x3xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x3xf32> {
  %y, %m, %r = rlx.group_norm %x affine %w, %b groups 2 : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %y : tensor<2x4x3xf32>
}

// Its gradient's VJP is layer norm's, on the grouped view [N, G, C/G, prod(spatial)]: the
// row sums are over (C/G, spatial), the weight's over (N, spatial); every operand gets a
// cotangent, read back in its own shape.
// CHECK-LABEL: func.func @gn_grad_vjp
// CHECK-SAME:    -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>)
// CHECK-NOT:     rlx.group_norm_backward
// CHECK:         rlx.reshape %x : (tensor<2x4x3xf32>) -> tensor<2x2x2x3xf32>
// CHECK:         rlx.sum %{{.*}} dims [2, 3] keepdim true : (tensor<2x2x2x3xf32>) -> tensor<2x2x1x1xf32>
// CHECK:         rlx.sum %{{.*}} dims [0, 3] keepdim true : (tensor<2x2x2x3xf32>) -> tensor<1x2x2x1xf32>
// CHECK:         func.return
func.func @gn_grad(%dy: tensor<2x4x3xf32>, %x: tensor<2x4x3xf32>, %m: tensor<2x2xf32>, %r: tensor<2x2xf32>, %w: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dx, %dw, %db = rlx.group_norm_backward %dy, %x, %m, %r weight %w groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx, %dw, %db : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// Eval-mode batch norm's VJP is ATen's eval-mode gradient, frozen statistics.
// CHECK-LABEL: func.func @bn_eval_vjp
// CHECK:         rlx.batch_norm_inference_backward %y_bar, %x, %rm, %rv weight %w : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
func.func @bn_eval(%x: tensor<2x3x4xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %y = rlx.batch_norm_inference %x, %w, %b, %rm, %rv : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// And that gradient's VJP: linear in dy, per-channel sums, every operand a cotangent
// (the running statistics too: the op reads them as plain operands); no weight here.
// CHECK-LABEL: func.func @bn_eval_grad_vjp
// CHECK-SAME:    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
// CHECK-NOT:     rlx.batch_norm_inference_backward
// CHECK:         rlx.rsqrt
// CHECK:         rlx.sum %{{.*}} dims [0, 2] keepdim true : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// CHECK:         func.return
func.func @bn_eval_grad(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dw, %db = rlx.batch_norm_inference_backward %dy, %x, %rm, %rv : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw, %db : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}
