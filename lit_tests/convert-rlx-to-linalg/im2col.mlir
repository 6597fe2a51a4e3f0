// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// cols[(n, ho, wo), (c, kh, kw)] = xpad[n, c, ho*sh + kh*dh, wo*sw + kw*dw]
// One all-parallel gather builds [N, Ho, Wo, C, KH, KW] (a shape-only [KH, KW] operand
// gives the kh, kw ranges), then collapse_shape: rows (n, ho, wo), columns (c, kh, kw).

// Padding 1, 3x3, stride 1.
// CHECK-LABEL: func.func @im2col_padded
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       } : tensor<2x3x5x5xf32> to tensor<2x3x7x7xf32>
// CHECK:       %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:       %[[PATCHES_INIT:.*]] = tensor.empty() : tensor<2x5x5x3x3x3xf32>
// CHECK:       %[[PATCHES:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, (d1 + d4), (d2 + d5))>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[XPAD]], %[[WINDOW]] : tensor<2x3x7x7xf32>, tensor<3x3xf32>) outs(%[[PATCHES_INIT]] : tensor<2x5x5x3x3x3xf32>)
// CHECK-NEXT:  ^{{.*}}(%[[V:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:    linalg.yield %[[V]] : f32
// CHECK:       %[[COLS:.*]] = tensor.collapse_shape %[[PATCHES]] {{\[}}[0 : i64, 1 : i64, 2 : i64], [3 : i64, 4 : i64, 5 : i64]] : tensor<2x5x5x3x3x3xf32> into tensor<50x27xf32>
// CHECK:       return %[[COLS]]
// CHECK-NOT:   rlx.
func.func @im2col_padded(%x: tensor<2x3x5x5xf32>) -> tensor<50x27xf32> {
  %y = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x5x5xf32>) -> tensor<50x27xf32>
  return %y : tensor<50x27xf32>
}

// -----

// Stride, dilation and a rectangular kernel: the map reads ho*2 + kh*1, wo*1 + kw*2.
// CHECK-LABEL: func.func @im2col_strided_dilated
// CHECK:       tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, ((d1 * 2) + d4), (d2 + (d5 * 2)))>
// CHECK-SAME:    outs(%{{.*}} : tensor<1x3x7x2x2x3xf32>)
// CHECK:       tensor.collapse_shape {{.*}} : tensor<1x3x7x2x2x3xf32> into tensor<21x12xf32>
// CHECK-NOT:   rlx.
func.func @im2col_strided_dilated(%x: tensor<1x2x7x9xf32>) -> tensor<21x12xf32> {
  %y = rlx.im2col %x kernel_size [2, 3] stride [2, 1] padding [0, 1] dilation [1, 2] : (tensor<1x2x7x9xf32>) -> tensor<21x12xf32>
  return %y : tensor<21x12xf32>
}

// -----

// A dynamic batch: the patches read it from x, and the collapse makes the rows dynamic.
// CHECK-LABEL: func.func @im2col_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x2x6x5xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x3x2x3x3xf32>
// CHECK:       tensor.collapse_shape {{.*}} : tensor<?x3x3x2x3x3xf32> into tensor<?x18xf32>
// CHECK-NOT:   rlx.
func.func @im2col_dynamic_batch(%x: tensor<?x2x6x5xf32>) -> tensor<?x18xf32> {
  %y = rlx.im2col %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x2x6x5xf32>) -> tensor<?x18xf32>
  return %y : tensor<?x18xf32>
}

// -----

// f64 is kept.
// CHECK-LABEL: func.func @im2col_f64
// CHECK:       linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x2x1x2x2xf64>)
// CHECK:       tensor.collapse_shape {{.*}} into tensor<4x4xf64>
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @im2col_f64(%x: tensor<1x1x3x3xf64>) -> tensor<4x4xf64> {
  %y = rlx.im2col %x kernel_size [2, 2] stride [1, 1] padding [0, 0] : (tensor<1x1x3x3xf64>) -> tensor<4x4xf64>
  return %y : tensor<4x4xf64>
}
