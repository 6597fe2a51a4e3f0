// RUN: rlx-opt %s --decompose-backward | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --decompose-backward | mlir-opt > /dev/null

// transforms/unit_height.py rewrites every 1-D op as its 2-D twin and expands each operand
// [N, C, L] -> [N, C, 1, L]; col2im's operand is the columns matrix [N*out, C*K], which
// (like im2col1d's result) is the same matrix in 1-D and 2-D and passes through unchanged.

// out = (9 + 2 - 3) / 2 + 1 = 5: the columns are [2 * 5, 3 * 3]; the 2-D col2im over a
// unit height takes them as they are, and its [2, 3, 1, 9] result is collapsed to [2, 3, 9].
// CHECK-LABEL: func.func @col2im1d
// CHECK-NOT:   tensor.expand_shape %cols
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<1x3xf32>) outs(%{{.*}} : tensor<2x3x1x9xf32>)
// CHECK:         tensor.extract %cols[%{{.*}}, %{{.*}}] : tensor<10x9xf32>
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<2x3x1x9xf32> into tensor<2x3x9xf32>
// CHECK-NOT:   rlx.
func.func @col2im1d(%cols: tensor<10x9xf32>) -> tensor<2x3x9xf32> {
  %x = rlx.col2im1d %cols kernel_size [3] stride [2] padding [1] : (tensor<10x9xf32>) -> tensor<2x3x9xf32>
  return %x : tensor<2x3x9xf32>
}
