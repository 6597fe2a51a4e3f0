// Lower, compile and run; the expected values are worked out by hand.
// RUN: rlx-run %s -e first_max_takes_gradient | FileCheck %s --check-prefix=FIRST
// RUN: rlx-run %s -e overlapping_windows_accumulate | FileCheck %s --check-prefix=OVERLAP

// Window [[1, 5], [5, 2]] ties at 5: only the first maximum in row-major order, (0, 1),
// gets dy = 10; the tied 5 at (1, 0) gets nothing. Window [[7, 0], [0, 0]]: (0, 0) gets 20.
// FIRST: result 0: tensor<1x1x2x4xf32>
// FIRST-NEXT: {{\[\[\[\[}}0, 10, 20, 0],
// FIRST-NEXT: {{\[}}0, 0, 0, 0]]]]
func.func @first_max_takes_gradient() -> tensor<1x1x2x4xf32> {
  %x = arith.constant dense<[[[[1.0, 5.0, 7.0, 0.0], [5.0, 2.0, 0.0, 0.0]]]]> : tensor<1x1x2x4xf32>
  %dy = arith.constant dense<[[[[10.0, 20.0]]]]> : tensor<1x1x1x2xf32>
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0]
      : (tensor<1x1x2x4xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x2x4xf32>
  return %dx : tensor<1x1x2x4xf32>
}

// A 1x3 row, windows of 2 at stride 1: [3, 9] and [9, 1] both pick the 9, which gets 1 + 2.
// OVERLAP: result 0: tensor<1x1x1x3xf32>
// OVERLAP-NEXT: {{\[\[\[\[}}0, 3, 0]]]]
func.func @overlapping_windows_accumulate() -> tensor<1x1x1x3xf32> {
  %x = arith.constant dense<[[[[3.0, 9.0, 1.0]]]]> : tensor<1x1x1x3xf32>
  %dy = arith.constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [1, 2] stride [1, 1] padding [0, 0]
      : (tensor<1x1x1x3xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x3xf32>
  return %dx : tensor<1x1x1x3xf32>
}
