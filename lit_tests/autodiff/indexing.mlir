// RUN: rlx-opt %s --autodiff="func=lookup,lookup_grad,plain_grad" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=lookup,lookup_grad,plain_grad" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// embedding: w_bar = embedding_backward(y_bar, t) with the same padding_idx and scaling;
// the indices get no cotangent.
// CHECK-LABEL: func.func @lookup_vjp
// CHECK-SAME:    (%w: tensor<10x4xf32>, %t: tensor<2x3xi64>, %y_bar: tensor<2x3x4xf32>) -> tensor<10x4xf32>
// CHECK:         rlx.embedding_backward %y_bar, %t padding_idx 0 scale_grad_by_freq true : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
func.func @lookup(%w: tensor<10x4xf32>, %t: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %y = rlx.embedding %w, %t padding_idx 0 scale_grad_by_freq true : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// embedding_backward is linear in dy: dy_bar = embedding(q * gw_bar, t), the row factor
// q = [v != padding_idx] / count(v) built from embedding_backward of ones.
// CHECK-LABEL: func.func @lookup_grad_vjp
// CHECK-SAME:    -> tensor<2x3x4xf32>
// CHECK:         %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<2x3x1xf32>
// CHECK:         %[[NAMED:.*]] = rlx.embedding_backward %[[ONES]], %t padding_idx 0 scale_grad_by_freq true : (tensor<2x3x1xf32>, tensor<2x3xi64>) -> tensor<10x1xf32>
// CHECK:         %[[COUNTS:.*]] = rlx.embedding_backward %[[ONES]], %t : (tensor<2x3x1xf32>, tensor<2x3xi64>) -> tensor<10x1xf32>
// CHECK:         %[[SAFE:.*]] = rlx.maximum %{{.*}}, %[[COUNTS]]
// CHECK:         %[[Q:.*]] = rlx.div %[[NAMED]], %[[SAFE]]
// CHECK:         %[[SCALED:.*]] = rlx.mul %[[Q]], %dw_bar : (tensor<10x1xf32>, tensor<10x4xf32>) -> tensor<10x4xf32>
// CHECK:         rlx.embedding %[[SCALED]], %t : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
func.func @lookup_grad(%dy: tensor<2x3x4xf32>, %t: tensor<2x3xi64>) -> tensor<10x4xf32> {
  %dw = rlx.embedding_backward %dy, %t padding_idx 0 scale_grad_by_freq true : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return %dw : tensor<10x4xf32>
}

// Without padding or scaling the adjoint is the plain gather, for a dynamic batch too.
// CHECK-LABEL: func.func @plain_grad_vjp
// CHECK-NEXT:    %[[Y:.*]] = rlx.embedding %dw_bar, %t : (tensor<10x4xf32>, tensor<?x3xi64>) -> tensor<?x3x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @plain_grad(%dy: tensor<?x3x4xf32>, %t: tensor<?x3xi64>) -> tensor<10x4xf32> {
  %dw = rlx.embedding_backward %dy, %t : (tensor<?x3x4xf32>, tensor<?x3xi64>) -> tensor<10x4xf32>
  return %dw : tensor<10x4xf32>
}
