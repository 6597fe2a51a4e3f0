// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// y[n, g*Fg + f, oh, ow] = sum_{c, kh, kw} xs[n, g*Cg + c, oh + (KH-1-kh)*d, ow + (KW-1-kw)*d] * w[g*Cg + c, f, kh, kw]
// xs is x with s-1 zeros between cells (a strided insert_slice into zeros) padded by
// d*(k-1) - p (+ output_padding at the high side). The kernel flip lives in xs's map.

// Stride 2, padding 1, output_padding 1: x [4x5] spreads to 7x9 at offset 1 (= 1*(3-1) - 1)
// of a 10x12 zero tensor (7 + 1 + 2, 9 + 1 + 2).
// CHECK-LABEL: func.func @convt_stride2_output_padding
// CHECK:       %[[ZEROS:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<1x2x10x12xf32>)
// CHECK:       %[[XS:.*]] = tensor.insert_slice %x into %[[ZEROS]][0, 0, 1, 1] [1, 2, 4, 5] [1, 1, 2, 2] : tensor<1x2x4x5xf32> into tensor<1x2x10x12xf32>
// CHECK-NOT:   tensor.extract_slice
// CHECK:       %[[XG:.*]] = tensor.expand_shape %[[XS]] {{.*}} : tensor<1x2x10x12xf32> into tensor<1x1x2x10x12xf32>
// CHECK:       %[[WG:.*]] = tensor.expand_shape %w {{.*}} : tensor<2x3x3x3xf32> into tensor<1x2x3x3x3xf32>
// CHECK:       %[[YG:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, ((d3 + (d6 * -1)) + 2), ((d4 + (d7 * -1)) + 2))>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[XG]], %[[WG]] : tensor<1x1x2x10x12xf32>, tensor<1x2x3x3x3xf32>) outs(%{{.*}} : tensor<1x1x3x8x10xf32>)
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       %[[Y:.*]] = tensor.collapse_shape %[[YG]] {{.*}} : tensor<1x1x3x8x10xf32> into tensor<1x3x8x10xf32>
// CHECK:       return %[[Y]]
// CHECK-NOT:   rlx.
func.func @convt_stride2_output_padding(%x: tensor<1x2x4x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x8x10xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x2x4x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x8x10xf32>
  return %y : tensor<1x3x8x10xf32>
}

// -----

// Padding 2 exceeds d*(k-1) = 1: the spread input is cropped by 1 at the low side
// (extract_slice) instead of padded; output_padding [1, 2] still pads the high side.
// CHECK-LABEL: func.func @convt_crop
// CHECK:       %[[XS:.*]] = tensor.insert_slice %x into %{{.*}}[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 3, 3] : tensor<1x2x4x4xf32> into tensor<1x2x10x11xf32>
// CHECK:       tensor.extract_slice %[[XS]][0, 0, 1, 1] [1, 2, 9, 10] [1, 1, 1, 1] : tensor<1x2x10x11xf32> to tensor<1x2x9x10xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    -> (d0, d1, d5, ((d3 + (d6 * -1)) + 1), ((d4 + (d7 * -1)) + 1))>
// CHECK-SAME:    outs(%{{.*}} : tensor<1x1x3x8x9xf32>)
// CHECK-NOT:   rlx.
func.func @convt_crop(%x: tensor<1x2x4x4xf32>, %w: tensor<2x3x2x2xf32>) -> tensor<1x3x8x9xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [3, 3] padding [2, 2] output_padding [1, 2] : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x9xf32>
  return %y : tensor<1x3x8x9xf32>
}

// -----

// Dilation (2, 3) scales the flipped kernel offsets: (KH-1-kh)*2 and (KW-1-kw)*3.
// CHECK-LABEL: func.func @convt_dilated
// CHECK:       tensor.insert_slice %x into %{{.*}}[0, 0, 3, 4] [1, 2, 5, 4] [1, 1, 2, 1]
// CHECK:       linalg.generic
// CHECK-SAME:    -> (d0, d1, d5, ((d3 + (d6 * -2)) + 4), ((d4 + (d7 * -3)) + 6))>
// CHECK-NOT:   rlx.
func.func @convt_dilated(%x: tensor<1x2x5x4xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x12x8xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [2, 1] padding [1, 2] dilation [2, 3] output_padding [1, 2] : (tensor<1x2x5x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x12x8xf32>
  return %y : tensor<1x3x12x8xf32>
}

// -----

// Groups: x [N, G*Cg, ...] -> [N, G, Cg, ...], w [G*Cg, Fg, KH, KW] -> [G, Cg, Fg, KH, KW],
// one contraction with the group as loop d1, the result collapsed to [N, G*Fg, Ho, Wo].
// CHECK-LABEL: func.func @convt_groups
// CHECK:       tensor.expand_shape {{.*}} : tensor<1x4x11x11xf32> into tensor<1x2x2x11x11xf32>
// CHECK:       tensor.expand_shape %w {{.*}} output_shape [2, 2, 3, 3, 3] : tensor<4x3x3x3xf32> into tensor<2x2x3x3x3xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<1x2x3x9x9xf32>)
// CHECK:       tensor.collapse_shape {{.*}} : tensor<1x2x3x9x9xf32> into tensor<1x6x9x9xf32>
// CHECK-NOT:   rlx.
func.func @convt_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x9x9xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] groups 2 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x9x9xf32>
  return %y : tensor<1x6x9x9xf32>
}

// -----

// A dynamic batch: the zero tensor and the init read it from x, the insert_slice from x
// (one tensor.dim of x serves all three), the expand from the spread tensor.
// CHECK-LABEL: func.func @convt_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x2x4x4xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x2x10x10xf32>
// CHECK-NOT:   tensor.dim %x
// CHECK:       tensor.insert_slice %x into %{{.*}}[0, 0, 1, 1] [%[[N]], 2, 4, 4] [1, 1, 2, 2] : tensor<?x2x4x4xf32> into tensor<?x2x10x10xf32>
// CHECK:       tensor.expand_shape {{.*}} : tensor<?x2x10x10xf32> into tensor<?x1x2x10x10xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<?x1x3x8x8xf32>)
// CHECK:       tensor.collapse_shape {{.*}} : tensor<?x1x3x8x8xf32> into tensor<?x3x8x8xf32>
// CHECK-NOT:   rlx.
func.func @convt_dynamic_batch(%x: tensor<?x2x4x4xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<?x3x8x8xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<?x2x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %y : tensor<?x3x8x8xf32>
}

// -----

// The element type is kept.
// CHECK-LABEL: func.func @convt_f64
// CHECK:       arith.constant 0.000000e+00 : f64
// CHECK:       linalg.generic
// CHECK:         arith.mulf {{.*}} : f64
// CHECK:         arith.addf {{.*}} : f64
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @convt_f64(%x: tensor<1x2x3x3xf64>, %w: tensor<2x2x2x2xf64>) -> tensor<1x2x4x4xf64> {
  %y = rlx.conv_transpose2d %x, %w stride [1, 1] padding [0, 0] : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>) -> tensor<1x2x4x4xf64>
  return %y : tensor<1x2x4x4xf64>
}
