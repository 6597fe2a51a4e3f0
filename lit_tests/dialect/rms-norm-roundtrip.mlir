// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// RMS norm over the last 2 dims with a weight: rstd is [N, 1, 1] (ATen's shape).
// CHECK-LABEL: func.func @rms_norm_weight
// CHECK:       rlx.rms_norm %x weight %w normalized_rank 2 eps 1.000000e-05 : (tensor<?x3x5xf32>, tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>)
// GENERIC:     "rlx.rms_norm"(%{{.*}}, %{{.*}}) <{normalized_rank = 2 : i64, eps = 1.000000e-05 : f64}>
func.func @rms_norm_weight(%x: tensor<?x3x5xf32>, %w: tensor<3x5xf32>) -> tensor<?x3x5xf32> {
  %y, %rstd = rlx.rms_norm %x weight %w normalized_rank 2 eps 1.0e-05 : (tensor<?x3x5xf32>, tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>)
  return %y : tensor<?x3x5xf32>
}

// Without a weight, over the last dim (the default); eps is always written.
// CHECK-LABEL: func.func @rms_norm_no_weight
// CHECK:       rlx.rms_norm %x eps 2.2204460492503131e-16 : (tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<4x1xf64>)
// GENERIC:     "rlx.rms_norm"(%{{[^,]*}}) <{normalized_rank = 1 : i64, eps = 2.2204460492503131e-16 : f64}>
func.func @rms_norm_no_weight(%x: tensor<4x6xf64>) -> tensor<4x6xf64> {
  %y, %rstd = rlx.rms_norm %x eps 2.2204460492503131e-16 : (tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<4x1xf64>)
  return %y : tensor<4x6xf64>
}

// The gradient with a weight: dx and dweight.
// CHECK-LABEL: func.func @rms_norm_backward_weight
// CHECK:       rlx.rms_norm_backward %dy, %x, %r weight %w normalized_rank 2 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>)
// GENERIC:     "rlx.rms_norm_backward"(%{{.*}}) <{normalized_rank = 2 : i64}> : (
func.func @rms_norm_backward_weight(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %r: tensor<2x1x1xf32>, %w: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %dx, %dw = rlx.rms_norm_backward %dy, %x, %r weight %w normalized_rank 2 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>)
  return %dw : tensor<3x4xf32>
}

// Without a weight: dx only (ATen's output mask).
// CHECK-LABEL: func.func @rms_norm_backward_no_weight
// CHECK:       rlx.rms_norm_backward %dy, %x, %r : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
func.func @rms_norm_backward_no_weight(%dy: tensor<?x4xf32>, %x: tensor<?x4xf32>, %r: tensor<?x1xf32>) -> tensor<?x4xf32> {
  %dx = rlx.rms_norm_backward %dy, %x, %r : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
  return %dx : tensor<?x4xf32>
}
