// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The loss ops in their custom form. reduction "mean" and ignore_index -100 (PyTorch's
// defaults) are left out when printed; the generic form always carries them.

// CHECK-LABEL: func.func @softmaxes
// CHECK:       rlx.log_softmax %{{.*}} dim 1 : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK:       rlx.softmax %{{.*}} dim 0 : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK:       rlx.log_softmax_backward %{{.*}}, %{{.*}} dim 1 : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK:       rlx.softmax_backward %{{.*}}, %{{.*}} dim 0 : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
// GENERIC-LABEL: sym_name = "softmaxes"
// GENERIC:     "rlx.log_softmax"(%{{.*}}) <{dim = 1 : i64}> : (tensor<4x10xf32>) -> tensor<4x10xf32>
// GENERIC:     "rlx.softmax_backward"(%{{.*}}, %{{.*}}) <{dim = 0 : i64}>
func.func @softmaxes(%x: tensor<4x10xf32>, %dy: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %y = rlx.log_softmax %x dim 1 : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %p = rlx.softmax %x dim 0 : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %dx = rlx.log_softmax_backward %dy, %y dim 1 : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  %dp = rlx.softmax_backward %dy, %p dim 0 : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %dx, %dp : tensor<4x10xf32>, tensor<4x10xf32>
}

// Defaults: mean over every target, ignore_index -100.
// CHECK-LABEL: func.func @nll_loss_defaults
// CHECK:       rlx.nll_loss %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
// CHECK:       rlx.nll_loss_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>, tensor<f32>) -> tensor<4x10xf32>
// GENERIC-LABEL: sym_name = "nll_loss_defaults"
// GENERIC:     "rlx.nll_loss"(%{{.*}}, %{{.*}}, %{{.*}}) <{reduction = "mean", ignore_index = -100 : i64}>
// GENERIC:     "rlx.nll_loss_backward"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{reduction = "mean", ignore_index = -100 : i64}>
func.func @nll_loss_defaults(%logp: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>, %g: tensor<f32>) -> tensor<4x10xf32> {
  %l, %tw = rlx.nll_loss %logp, %t, %w reduction "mean" ignore_index -100 : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  %d = rlx.nll_loss_backward %g, %logp, %t, %w, %tw : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>, tensor<f32>) -> tensor<4x10xf32>
  return %d : tensor<4x10xf32>
}

// reduction "none" over [N, C, H, W] with a dynamic batch: the loss has the target's shape.
// CHECK-LABEL: func.func @nll_loss2d_none
// CHECK:       rlx.nll_loss %{{.*}}, %{{.*}}, %{{.*}} reduction "none" ignore_index 0 : (tensor<?x3x5x5xf64>, tensor<?x5x5xi64>, tensor<3xf64>) -> (tensor<?x5x5xf64>, tensor<f64>)
// CHECK:       rlx.nll_loss_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} reduction "none" ignore_index 0 : (
func.func @nll_loss2d_none(%logp: tensor<?x3x5x5xf64>, %t: tensor<?x5x5xi64>, %w: tensor<3xf64>, %g: tensor<?x5x5xf64>) -> tensor<?x3x5x5xf64> {
  %l, %tw = rlx.nll_loss %logp, %t, %w reduction "none" ignore_index 0 : (tensor<?x3x5x5xf64>, tensor<?x5x5xi64>, tensor<3xf64>) -> (tensor<?x5x5xf64>, tensor<f64>)
  %d = rlx.nll_loss_backward %g, %logp, %t, %w, %tw reduction "none" ignore_index 0 : (tensor<?x5x5xf64>, tensor<?x3x5x5xf64>, tensor<?x5x5xi64>, tensor<3xf64>, tensor<f64>) -> tensor<?x3x5x5xf64>
  return %d : tensor<?x3x5x5xf64>
}

// Unbatched: [C] log-probabilities, a 0-d target, a 0-d loss whatever the reduction.
// CHECK-LABEL: func.func @nll_loss_unbatched
// CHECK:       rlx.nll_loss %{{.*}}, %{{.*}}, %{{.*}} reduction "sum" : (tensor<10xf32>, tensor<i64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
// CHECK:       rlx.nll_loss %{{.*}}, %{{.*}}, %{{.*}} reduction "none" : (tensor<10xf32>, tensor<i64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
func.func @nll_loss_unbatched(%logp: tensor<10xf32>, %t: tensor<i64>, %w: tensor<10xf32>) -> (tensor<f32>, tensor<f32>) {
  %l, %tw = rlx.nll_loss %logp, %t, %w reduction "sum" : (tensor<10xf32>, tensor<i64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  %n, %tn = rlx.nll_loss %logp, %t, %w reduction "none" : (tensor<10xf32>, tensor<i64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %l, %n : tensor<f32>, tensor<f32>
}
