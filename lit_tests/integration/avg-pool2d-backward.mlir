// Lower, compile and run; the expected values are worked out by hand.
// RUN: rlx-run %s -e count_include_pad | FileCheck %s --check-prefix=INCLUDE
// RUN: rlx-run %s -e count_exclude_pad | FileCheck %s --check-prefix=EXCLUDE

// A 1x2 input, kernel 1x2, padding (0, 1), stride 2: windows [pad, x0] and [x1, pad].
// With count_include_pad every window divides by 2.
// INCLUDE: result 0: tensor<1x1x1x2xf32>
// INCLUDE-NEXT: {{\[\[\[\[}}4, 5]]]]
func.func @count_include_pad() -> tensor<1x1x1x2xf32> {
  %dy = arith.constant dense<[[[[8.0, 10.0]]]]> : tensor<1x1x1x2xf32>
  %dx = rlx.avg_pool2d_backward %dy kernel_size [1, 2] stride [1, 2] padding [0, 1]
      : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  return %dx : tensor<1x1x1x2xf32>
}

// Without it each window divides by its one real cell.
// EXCLUDE: result 0: tensor<1x1x1x2xf32>
// EXCLUDE-NEXT: {{\[\[\[\[}}8, 10]]]]
func.func @count_exclude_pad() -> tensor<1x1x1x2xf32> {
  %dy = arith.constant dense<[[[[8.0, 10.0]]]]> : tensor<1x1x1x2xf32>
  %dx = rlx.avg_pool2d_backward %dy kernel_size [1, 2] stride [1, 2] padding [0, 1] count_include_pad false
      : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  return %dx : tensor<1x1x1x2xf32>
}
