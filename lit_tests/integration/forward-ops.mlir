// Lower, compile and run forward ops; the expected values are worked out by hand.
// RUN: rlx-run %s -e conv_counts_window_cells | FileCheck %s --check-prefix=CONV
// RUN: rlx-run %s -e max_pool_ignores_padding | FileCheck %s --check-prefix=MAXPOOL
// RUN: rlx-run %s -e im2col_rows_are_windows | FileCheck %s --check-prefix=IM2COL

// ones(1,1,3,3) convolved with ones(1,1,2,2), stride 1, padding 1: each output sums the
// real cells under its window.
// CONV: result 0: tensor<1x1x4x4xf32>
// CONV-NEXT: {{\[\[\[\[}}1, 2, 2, 1],
// CONV-NEXT: {{\[}}2, 4, 4, 2],
// CONV-NEXT: {{\[}}2, 4, 4, 2],
// CONV-NEXT: {{\[}}1, 2, 2, 1]]]]
func.func @conv_counts_window_cells() -> tensor<1x1x4x4xf32> {
  %x = arith.constant dense<1.0> : tensor<1x1x3x3xf32>
  %w = arith.constant dense<1.0> : tensor<1x1x2x2xf32>
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1]
      : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// All inputs negative, kernel 3, stride 2, padding 1: a padded cell (PyTorch pads with
// -inf) never wins, so the maxima are real inputs, never 0.
// MAXPOOL: result 0: tensor<1x1x2x2xf32>
// MAXPOOL-NEXT: {{\[\[\[\[}}-1, -2],
// MAXPOOL-NEXT: {{\[}}-3, -4]]]]
func.func @max_pool_ignores_padding() -> tensor<1x1x2x2xf32> {
  %x = arith.constant dense<[[[[-1.0, -9.0, -2.0], [-9.0, -9.0, -9.0], [-3.0, -9.0, -4.0]]]]> : tensor<1x1x3x3xf32>
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1]
      : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// A 1x1x2x3 input, kernel 2x2: two windows, rows (n, ho, wo), columns (c, kh, kw).
// IM2COL: result 0: tensor<2x4xf32>
// IM2COL-NEXT: {{\[\[}}1, 2, 4, 5],
// IM2COL-NEXT: {{\[}}2, 3, 5, 6]]
func.func @im2col_rows_are_windows() -> tensor<2x4xf32> {
  %x = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]]> : tensor<1x1x2x3xf32>
  %cols = rlx.im2col %x kernel_size [2, 2] stride [1, 1] padding [0, 0]
      : (tensor<1x1x2x3xf32>) -> tensor<2x4xf32>
  return %cols : tensor<2x4xf32>
}
