// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// Depthwise weight gradient: row partials rows[g, f, c, kh, kw, wo] summed over (n, ho)
// with wo parallel (the schedule vectorizes along it), then a sum over wo.
// CHECK-LABEL: func.func @bwd_weight_depthwise
// CHECK:       %[[XPAD:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       %[[X:.*]] = tensor.expand_shape %[[XPAD]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 4, 1, 10, 10]
// CHECK:       %[[DY:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 4, 1, 8, 8]
// CHECK:       %[[ROWS:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d0, d1, d7, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d0, d2, (d7 + d3), (d5 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[DY]], %[[X]] : tensor<2x4x1x8x8xf32>, tensor<2x4x1x10x10xf32>) outs(%{{.*}} : tensor<4x1x1x3x3x8xf32>)
// CHECK:       arith.mulf
// CHECK:       arith.addf
// CHECK:       %[[DW:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%[[ROWS]] : tensor<4x1x1x3x3x8xf32>) outs(%{{.*}} : tensor<4x1x1x3x3xf32>)
// CHECK:       tensor.collapse_shape %[[DW]] {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] : tensor<4x1x1x3x3xf32> into tensor<4x1x3x3xf32>
// CHECK-NOT:   rlx.
func.func @bwd_weight_depthwise(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 4 : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32>
  return %dw : tensor<4x1x3x3xf32>
}

// -----

// Row stride 2, dilation (2, 1), channel multiplier 2: x is read at ho*2 + kh*2 and
// wo + kw; the partials are [G, F/G, C/G, KH, KW, Wo]. Unpadded: no tensor.pad.
// CHECK-LABEL: func.func @bwd_weight_multiplier_row_stride
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d0, d2, ((d7 * 2) + (d3 * 2)), (d5 + d4))>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<3x2x1x2x3x5xf32>)
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<3x2x1x2x3xf32>)
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<3x2x1x2x3xf32> into tensor<6x1x2x3xf32>
func.func @bwd_weight_multiplier_row_stride(%x: tensor<1x3x9x7xf32>, %dy: tensor<1x6x4x5xf32>) -> tensor<6x1x2x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [2, 3] stride [2, 1] padding [0, 0] dilation [2, 1] groups 3 : (tensor<1x3x9x7xf32>, tensor<1x6x4x5xf32>) -> tensor<6x1x2x3xf32>
  return %dw : tensor<6x1x2x3xf32>
}

// -----

// Column stride 2: x is split into its two column phases (a zero fill and a strided slice
// of x each), x_0 = columns 0, 2, 4 for the taps kw = 0, 2 and x_1 = columns 1, 3 for
// kw = 1; each phase is a stride-1 row-partials gradient, and its dw columns are inserted
// at kw = 0, 2 (stride 2) and kw = 1.
// CHECK-LABEL: func.func @bwd_weight_depthwise_column_stride
// CHECK:       %[[DY:.*]] = tensor.expand_shape %dy
// CHECK:       %[[DW0:.*]] = linalg.fill {{.*}} -> tensor<2x1x1x3x3xf32>
// CHECK:       %[[Z0:.*]] = linalg.fill {{.*}} -> tensor<1x2x6x3xf32>
// CHECK:       %[[C0:.*]] = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 6, 3] [1, 1, 1, 2]
// CHECK:       %[[P0:.*]] = tensor.insert_slice %[[C0]] into %[[Z0]][0, 0, 0, 0] [1, 2, 6, 3] [1, 1, 1, 1]
// CHECK:       %[[X0:.*]] = tensor.expand_shape %[[P0]]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d0, d2, (d7 + d3), (d5 + d4))>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[DY]], %[[X0]] : tensor<1x2x1x4x2xf32>, tensor<1x2x1x6x3xf32>) outs(%{{.*}} : tensor<2x1x1x3x2x2xf32>)
// CHECK:       %[[SUM0:.*]] = linalg.generic
// CHECK:       %[[DW1:.*]] = tensor.insert_slice %[[SUM0]] into %[[DW0]][0, 0, 0, 0, 0] [2, 1, 1, 3, 2] [1, 1, 1, 1, 2]
// CHECK:       tensor.extract_slice %x[0, 0, 0, 1] [1, 2, 6, 2] [1, 1, 1, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<2x1x1x3x1x2xf32>)
// CHECK:       %[[SUM1:.*]] = linalg.generic
// CHECK:       tensor.insert_slice %[[SUM1]] into %[[DW1]][0, 0, 0, 0, 1] [2, 1, 1, 3, 1] [1, 1, 1, 1, 1]
// CHECK-NOT:   rlx.
func.func @bwd_weight_depthwise_column_stride(%x: tensor<1x2x6x6xf32>, %dy: tensor<1x2x4x2xf32>) -> tensor<2x1x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 2] padding [0, 0] groups 2 : (tensor<1x2x6x6xf32>, tensor<1x2x4x2xf32>) -> tensor<2x1x3x3xf32>
  return %dw : tensor<2x1x3x3xf32>
}

// -----

// Wide groups (C/G x F/G = 9 x 8 > 64 channel pairs): the partials would be Wo times a large
// dw, so the row form declines; the general contraction vectorizes along channels.
// CHECK-LABEL: func.func @bwd_weight_wide_groups
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT:   linalg.generic
func.func @bwd_weight_wide_groups(%x: tensor<1x18x4x4xf32>, %dy: tensor<1x16x2x2xf32>) -> tensor<16x9x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] groups 2 : (tensor<1x18x4x4xf32>, tensor<1x16x2x2xf32>) -> tensor<16x9x3x3xf32>
  return %dw : tensor<16x9x3x3xf32>
}

// -----

// Dynamic batch: the batch is a reduction of the partials, read from the operands.
// CHECK-LABEL: func.func @bwd_weight_depthwise_dynamic_batch
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<?x4x1x8x8xf32>, tensor<?x4x1x10x10xf32>) outs(%{{.*}} : tensor<4x1x1x3x3x8xf32>)
func.func @bwd_weight_depthwise_dynamic_batch(%x: tensor<?x4x8x8xf32>, %dy: tensor<?x4x8x8xf32>) -> tensor<4x1x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 4 : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<4x1x3x3xf32>
  return %dw : tensor<4x1x3x3xf32>
}
