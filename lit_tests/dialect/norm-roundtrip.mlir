// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The norm ops in their custom form. Properties at their PyTorch default (momentum 0.1,
// eps 1e-05, normalized_rank 1) are left out when printed; the generic form carries them all.

// BatchNorm2d, training, defaults: five results.
// CHECK-LABEL: func.func @batch_norm_defaults
// CHECK:       %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// GENERIC-LABEL: sym_name = "batch_norm_defaults"
// GENERIC:     "rlx.batch_norm"(%{{.*}}) <{momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64}>
func.func @batch_norm_defaults(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c momentum 0.1 eps 1.0e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<2x3x4x4xf32>
}

// BatchNorm1d on [N, C], a dynamic batch, momentum and eps given.
// CHECK-LABEL: func.func @batch_norm_1d_dynamic
// CHECK:       rlx.batch_norm %x, %c, %c, %c, %c momentum 3.000000e-01 eps 1.000000e-03 : (tensor<?x3xf64>,
// GENERIC-LABEL: sym_name = "batch_norm_1d_dynamic"
// GENERIC:     <{momentum = 3.000000e-01 : f64, eps = 1.000000e-03 : f64}>
func.func @batch_norm_1d_dynamic(%x: tensor<?x3xf64>, %c: tensor<3xf64>) -> tensor<?x3xf64> {
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c momentum 0.3 eps 1.0e-03 : (tensor<?x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<?x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %y : tensor<?x3xf64>
}

// Eval mode, BatchNorm3d: one result.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK:       rlx.batch_norm_inference %x, %c, %c, %c, %c eps 2.000000e-05 : (tensor<1x2x3x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3x3xf32>
// GENERIC:     "rlx.batch_norm_inference"(%{{.*}}) <{eps = 2.000000e-05 : f64}>
func.func @batch_norm_inference(%x: tensor<1x2x3x3x3xf32>, %c: tensor<2xf32>) -> tensor<1x2x3x3x3xf32> {
  %y = rlx.batch_norm_inference %x, %c, %c, %c, %c eps 2.0e-05 : (tensor<1x2x3x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3x3xf32>
  return %y : tensor<1x2x3x3x3xf32>
}

// The gradient: eps at its default is left out.
// CHECK-LABEL: func.func @batch_norm_backward
// CHECK:       rlx.batch_norm_backward %dy, %x, %c, %c, %c : (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
// GENERIC:     "rlx.batch_norm_backward"(%{{.*}}) <{eps = 1.000000e-05 : f64}>
func.func @batch_norm_backward(%dy: tensor<2x3x5xf32>, %x: tensor<2x3x5xf32>, %c: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %dx, %dw, %db = rlx.batch_norm_backward %dy, %x, %c, %c, %c : (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x3x5xf32>
}

// Layer norm over the last 2 dims: mean and rstd are [N, 1, 1] (ATen's shape).
// CHECK-LABEL: func.func @layer_norm_two_dims
// CHECK:       rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<?x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
// GENERIC:     "rlx.layer_norm"(%{{.*}}) <{normalized_rank = 2 : i64, eps = 1.000000e-05 : f64}>
func.func @layer_norm_two_dims(%x: tensor<?x3x5xf32>, %w: tensor<3x5xf32>) -> tensor<?x3x5xf32> {
  %y, %mean, %rstd = rlx.layer_norm %x, %w, %w normalized_rank 2 eps 1.0e-05 : (tensor<?x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
  return %y : tensor<?x3x5xf32>
}

// Layer norm over the last dim at its defaults.
// CHECK-LABEL: func.func @layer_norm_defaults
// CHECK:       rlx.layer_norm %x, %w, %w : (tensor<4x6xf64>, tensor<6xf64>, tensor<6xf64>) -> (tensor<4x6xf64>, tensor<4x1xf64>, tensor<4x1xf64>)
// GENERIC:     <{normalized_rank = 1 : i64, eps = 1.000000e-05 : f64}>
func.func @layer_norm_defaults(%x: tensor<4x6xf64>, %w: tensor<6xf64>) -> tensor<4x6xf64> {
  %y, %mean, %rstd = rlx.layer_norm %x, %w, %w : (tensor<4x6xf64>, tensor<6xf64>, tensor<6xf64>) -> (tensor<4x6xf64>, tensor<4x1xf64>, tensor<4x1xf64>)
  return %y : tensor<4x6xf64>
}

// The gradient: the normalized rank is the weight's.
// CHECK-LABEL: func.func @layer_norm_backward
// CHECK:       rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
// GENERIC:     "rlx.layer_norm_backward"(%{{.*}}) : (
func.func @layer_norm_backward(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %m: tensor<2x1x1xf32>, %r: tensor<2x1x1xf32>, %w: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %dx, %dw, %db = rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  return %dx : tensor<2x3x4xf32>
}

// Eval-mode batch norm's gradient (frozen statistics), with its weight and eps.
// CHECK-LABEL: func.func @batch_norm_inference_backward
// CHECK:       rlx.batch_norm_inference_backward %dy, %x, %c, %c weight %c eps 1.000000e-03 : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
// GENERIC:     "rlx.batch_norm_inference_backward"(%{{.*}}) <{eps = 1.000000e-03 : f64}>
func.func @batch_norm_inference_backward(%dy: tensor<?x3x4xf32>, %x: tensor<?x3x4xf32>, %c: tensor<3xf32>) -> tensor<?x3x4xf32> {
  %dx, %dw, %db = rlx.batch_norm_inference_backward %dy, %x, %c, %c weight %c eps 1.0e-03 : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<?x3x4xf32>
}

// Without a weight (affine=False), at the default eps.
// CHECK-LABEL: func.func @batch_norm_inference_backward_no_weight
// CHECK:       rlx.batch_norm_inference_backward %dy, %x, %c, %c : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>)
func.func @batch_norm_inference_backward_no_weight(%dy: tensor<2x3xf64>, %x: tensor<2x3xf64>, %c: tensor<3xf64>) -> tensor<2x3xf64> {
  %dx, %dw, %db = rlx.batch_norm_inference_backward %dy, %x, %c, %c : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %dx : tensor<2x3xf64>
}

// Group norm, 3 groups of 2 channels, the weight and bias given; mean and rstd are [N, groups].
// CHECK-LABEL: func.func @group_norm_affine
// CHECK:       rlx.group_norm %x affine %w, %w groups 3 eps 1.000000e-03 : (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<?x6x4x4xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
// GENERIC:     "rlx.group_norm"(%{{.*}}) <{groups = 3 : i64, eps = 1.000000e-03 : f64}>
func.func @group_norm_affine(%x: tensor<?x6x4x4xf32>, %w: tensor<6xf32>) -> tensor<?x6x4x4xf32> {
  %y, %mean, %rstd = rlx.group_norm %x affine %w, %w groups 3 eps 1.0e-03 : (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<?x6x4x4xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
  return %y : tensor<?x6x4x4xf32>
}

// Without the affine operands, on [N, C] (no spatial axis), at the default eps.
// CHECK-LABEL: func.func @group_norm_plain
// CHECK:       rlx.group_norm %x groups 1 : (tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x1xf64>, tensor<2x1xf64>)
// GENERIC:     <{groups = 1 : i64, eps = 1.000000e-05 : f64}>
func.func @group_norm_plain(%x: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %y, %mean, %rstd = rlx.group_norm %x groups 1 : (tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x1xf64>, tensor<2x1xf64>)
  return %y : tensor<2x4xf64>
}

// The gradient, with and without the weight: always dx, dweight and dbias.
// CHECK-LABEL: func.func @group_norm_backward
// CHECK:       rlx.group_norm_backward %dy, %x, %m, %r weight %w groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:       rlx.group_norm_backward %dy, %x, %m, %r groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
// GENERIC:     "rlx.group_norm_backward"(%{{.*}}) <{groups = 2 : i64}>
func.func @group_norm_backward(%dy: tensor<2x4x3xf32>, %x: tensor<2x4x3xf32>, %m: tensor<2x2xf32>, %r: tensor<2x2xf32>, %w: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %dx, %dw, %db = rlx.group_norm_backward %dy, %x, %m, %r weight %w groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %dx2, %dw2, %db2 = rlx.group_norm_backward %dy, %x, %m, %r groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx, %dx2 : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}
