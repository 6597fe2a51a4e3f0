// Lower, compile and run; the expected values are worked out by hand.
// RUN: rlx-run %s -e weight_gradient_counts_overlaps | FileCheck %s --check-prefix=WEIGHT
// RUN: rlx-run %s -e input_gradient_counts_overlaps | FileCheck %s --check-prefix=INPUT
// RUN: rlx-run %s -e weight_gradient_sums_the_batch | FileCheck %s --check-prefix=BATCH

// x = dy = ones(1,1,3,3), kernel 3, padding 1: dw[kh][kw] counts the output positions at
// which tap (kh, kw) reads a real (unpadded) input cell.
// WEIGHT: result 0: tensor<1x1x3x3xf32>
// WEIGHT-NEXT: {{\[\[\[\[}}4, 6, 4],
// WEIGHT-NEXT: {{\[}}6, 9, 6],
// WEIGHT-NEXT: {{\[}}4, 6, 4]]]]
func.func @weight_gradient_counts_overlaps() -> tensor<1x1x3x3xf32> {
  %ones = arith.constant dense<1.0> : tensor<1x1x3x3xf32>
  %dw = rlx.conv2d_backward_weight %ones, %ones kernel_size [3, 3] stride [1, 1] padding [1, 1]
      : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %dw : tensor<1x1x3x3xf32>
}

// dy = w = ones: dx[h][w] counts the outputs whose window covers input cell (h, w).
// INPUT: result 0: tensor<1x1x3x3xf32>
// INPUT-NEXT: {{\[\[\[\[}}4, 6, 4],
// INPUT-NEXT: {{\[}}6, 9, 6],
// INPUT-NEXT: {{\[}}4, 6, 4]]]]
func.func @input_gradient_counts_overlaps() -> tensor<1x1x3x3xf32> {
  %ones = arith.constant dense<1.0> : tensor<1x1x3x3xf32>
  %dx = rlx.conv2d_backward_input %ones, %ones kernel_size [3, 3] stride [1, 1] padding [1, 1]
      : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %dx : tensor<1x1x3x3xf32>
}

// Batch 2 with a 1x1 kernel: dw = sum over n of x[n] * dy[n] = 1*3 + 2*4 = 11 (RLX's
// reference got batch > 1 wrong; this is the case it missed).
// BATCH: result 0: tensor<1x1x1x1xf32>
// BATCH-NEXT: {{\[\[\[\[}}11]]]]
func.func @weight_gradient_sums_the_batch() -> tensor<1x1x1x1xf32> {
  %x = arith.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %dy = arith.constant dense<[[[[3.0]]], [[[4.0]]]]> : tensor<2x1x1x1xf32>
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [1, 1] stride [1, 1] padding [0, 0]
      : (tensor<2x1x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %dw : tensor<1x1x1x1xf32>
}
