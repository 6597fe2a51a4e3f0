// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward="conv-weight=im2col conv-input=transpose" --split-input-file | FileCheck %s --check-prefix=OPT
// RUN: rlx-opt %s --decompose-backward --split-input-file | mlir-opt --split-input-file > /dev/null

// Per-side padding [2, 0, 0, 1] (low h, low w, high h, high w): the channels-last copy of
// x is padded 2 rows low and 1 column high, written into the interior of a zero buffer.
// CHECK-LABEL: func.func @bwd_weight_per_side
// CHECK:       linalg.fill {{.*}} -> tensor<2x9x9x2xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 2, 0, 0] [2, 7, 8, 2]
// CHECK:       linalg.transpose ins(%x
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT:   rlx.
// OPT-LABEL:   func.func @bwd_weight_per_side
// OPT:         tensor.pad %x low[0, 0, 2, 0] high[0, 0, 0, 1]
// OPT:         linalg.matmul
func.func @bwd_weight_per_side(%x: tensor<2x2x7x8xf32>, %dy: tensor<2x3x7x7xf32>) -> tensor<3x2x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [2, 0, 0, 1] : (tensor<2x2x7x8xf32>, tensor<2x3x7x7xf32>) -> tensor<3x2x3x3xf32>
  return %dw : tensor<3x2x3x3xf32>
}

// -----

// The input gradient of the same conv: dy is padded by d*(k-1) - low = 0 rows and 2
// columns low, and 2 rows and 1 column high, so that the one stride-1 conv gives dx's
// declared 7x8.
// CHECK-LABEL: func.func @bwd_input_per_side
// CHECK:       %[[DYP:.*]] = tensor.pad %dy low[0, 0, 0, 2] high[0, 0, 2, 1]
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[DYP]], %{{.*}} : tensor<2x3x9x10xf32>, tensor<2x3x3x3xf32>) outs(%{{.*}} : tensor<2x2x7x8xf32>)
// CHECK-NOT:   rlx.
// RLX's route takes the low padding on both sides of the transposed conv, and gets the
// declared size back at the high side: the spread dy is padded 2 + 2 - 1 = 3 columns there.
// OPT-LABEL:   func.func @bwd_input_per_side
// OPT:         tensor.insert_slice %dy into %{{.*}}[0, 0, 0, 2] [2, 3, 7, 7] [1, 1, 1, 1] : tensor<2x3x7x7xf32> into tensor<2x3x9x10xf32>
func.func @bwd_input_per_side(%dy: tensor<2x3x7x7xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<2x2x7x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [2, 0, 0, 1] : (tensor<2x3x7x7xf32>, tensor<3x2x3x3xf32>) -> tensor<2x2x7x8xf32>
  return %dx : tensor<2x2x7x8xf32>
}

// -----

// 3-D, groups 2, dynamic batch: one gather-form contraction, the group loop and the six
// weight dims parallel, (n, od, oh, ow) reduced; x read at (od*2 + kd, oh + kh*2, ow*2 + kw).
// The options have no other 3-D form.
// CHECK-LABEL: func.func @bwd_weight_3d
// CHECK:       tensor.pad %x low[0, 0, 1, 0, 0] high[0, 0, 0, 1, 1]
// CHECK:       tensor.expand_shape {{.*}} into tensor<?x2x2x7x8x6xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    (d6, d0, d2, ((d7 * 2) + d3), (d8 + (d4 * 2)), ((d9 * 2) + d5))
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
// CHECK:       tensor.collapse_shape {{.*}} into tensor<6x2x3x2x2xf32>
// CHECK-NOT:   rlx.
// OPT-LABEL:   func.func @bwd_weight_3d
// OPT-NOT:     linalg.matmul
// OPT:         iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
func.func @bwd_weight_3d(%x: tensor<?x4x6x7x5xf32>, %dy: tensor<?x6x3x6x3xf32>) -> tensor<6x2x3x2x2xf32> {
  %dw = rlx.conv3d_backward_weight %x, %dy kernel_size [3, 2, 2] stride [2, 1, 2] padding [1, 0, 0, 0, 1, 1] dilation [1, 2, 1] groups 2 : (tensor<?x4x6x7x5xf32>, tensor<?x6x3x6x3xf32>) -> tensor<6x2x3x2x2xf32>
  return %dw : tensor<6x2x3x2x2xf32>
}

// -----

// 3-D input gradient, stride (2, 1, 2): 2 x 1 x 2 stride phases, each a stride-1 conv
// (dilation 2 along h) of a slice of one padded dy with its sub-kernel, inserted into dx
// with strides 2 at offsets (0|1, 0, 0|1). The weight is split by groups once.
// CHECK-LABEL: func.func @bwd_input_3d
// CHECK:       %[[DYP:.*]] = tensor.pad %dy low[0, 0, 0, 2, 0] high[0, 0, 1, 1, 0]
// CHECK:       tensor.expand_shape %w
// CHECK-NOT:   tensor.expand_shape %w
// CHECK:       tensor.extract_slice %[[DYP]]
// CHECK-NOT:   tensor.expand_shape %w
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d0, d6, (d3 + d7), (d4 + (d8 * 2)), (d5 + d9))>
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 0, 0, 0] [%{{.*}}, 4, 3, 7, 3] [1, 1, 2, 1, 2]
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 0, 0, 1] [%{{.*}}, 4, 3, 7, 2] [1, 1, 2, 1, 2]
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 1, 0, 0] [%{{.*}}, 4, 3, 7, 3] [1, 1, 2, 1, 2]
// CHECK:       %dx = tensor.insert_slice {{.*}}[0, 0, 1, 0, 1] [%{{.*}}, 4, 3, 7, 2] [1, 1, 2, 1, 2]
// CHECK-NOT:   rlx.
// OPT-LABEL:   func.func @bwd_input_3d
// OPT-COUNT-4: tensor.insert_slice
func.func @bwd_input_3d(%dy: tensor<?x6x3x6x3xf32>, %w: tensor<6x2x3x2x2xf32>) -> tensor<?x4x6x7x5xf32> {
  %dx = rlx.conv3d_backward_input %dy, %w kernel_size [3, 2, 2] stride [2, 1, 2] padding [1, 0, 0, 0, 1, 1] dilation [1, 2, 1] groups 2 : (tensor<?x6x3x6x3xf32>, tensor<6x2x3x2x2xf32>) -> tensor<?x4x6x7x5xf32>
  return %dx : tensor<?x4x6x7x5xf32>
}

// -----

// The transposed conv's input gradient for output_padding (2, 3) with stride (3, 2) and
// dilation 4 (x 4x5, dy 14x16): dx = conv(dy, w) on x's 4x5 cells only. The conv of dy
// would have 4 + floor(2/3) = 4 rows but 5 + floor(3/2) = 6 columns: dy's last row and
// column are cropped, and the padding low (1, 2) added.
// CHECK-LABEL: func.func @transpose_input_op_past_stride
// CHECK:       tensor.extract_slice %dy[0, 0, 0, 0] [2, 3, 13, 15]
// CHECK:       tensor.pad %{{.*}} low[0, 0, 1, 2] high[0, 0, 0, 0]
// CHECK:       linalg.generic
// CHECK-SAME:    (d0, d4, ((d2 * 3) + (d5 * 4)), ((d3 * 2) + (d6 * 4)))
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x4x5xf32>)
// CHECK-NOT:   rlx.
func.func @transpose_input_op_past_stride(%dy: tensor<2x3x14x16xf32>, %w: tensor<2x3x2x3xf32>) -> tensor<2x2x4x5xf32> {
  %dx = rlx.conv_transpose2d_backward_input %dy, %w stride [3, 2] padding [1, 2] dilation [4, 4] : (tensor<2x3x14x16xf32>, tensor<2x3x2x3xf32>) -> tensor<2x2x4x5xf32>
  return %dx : tensor<2x2x4x5xf32>
}

// -----

// Its weight gradient: the conv weight gradient with x and dy swapped, x's cells the
// reduced loops and dy read at (i*3 + kh*4, j*2 + kw*4) from the same cropped, padded dy.
// CHECK-LABEL: func.func @transpose_weight_op_past_stride
// CHECK:       tensor.extract_slice %dy[0, 0, 0, 0] [2, 3, 13, 15]
// CHECK:       tensor.pad %{{.*}} low[0, 0, 1, 2] high[0, 0, 0, 0]
// CHECK:       linalg.generic
// CHECK-SAME:    [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, ((d5 * 3) + (d2 * 4)), ((d6 * 2) + (d3 * 4)))>
// CHECK-SAME:    ins(%x, %{{.*}} : tensor<2x2x4x5xf32>, tensor<2x3x14x17xf32>) outs(%{{.*}} : tensor<2x3x2x3xf32>)
// CHECK-NOT:   rlx.
func.func @transpose_weight_op_past_stride(%x: tensor<2x2x4x5xf32>, %dy: tensor<2x3x14x16xf32>) -> tensor<2x3x2x3xf32> {
  %dw = rlx.conv_transpose2d_backward_weight %x, %dy kernel_size [2, 3] stride [3, 2] padding [1, 2] dilation [4, 4] : (tensor<2x2x4x5xf32>, tensor<2x3x14x16xf32>) -> tensor<2x3x2x3xf32>
  return %dw : tensor<2x3x2x3xf32>
}

// -----

// 3-D transposed conv, groups 2, dynamic batch, per-side padding: both gradients are one
// grouped gather each; dy [?, 4, 6, 6, 5] is padded low (0, 1, 0) and cropped or padded at
// the high side by what x's last cell reaches.
// CHECK-LABEL: func.func @transpose3d_grouped
// CHECK:       tensor.expand_shape %w {{.*}} into tensor<2x2x2x2x2x2xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<?x2x2x3x3x2xf32>)
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x2x2x2x2xf32>)
// CHECK-NOT:   rlx.
func.func @transpose3d_grouped(%x: tensor<?x4x3x3x2xf32>, %dy: tensor<?x4x6x6x5xf32>, %w: tensor<4x2x2x2x2xf32>) -> (tensor<?x4x3x3x2xf32>, tensor<4x2x2x2x2xf32>) {
  %dx = rlx.conv_transpose3d_backward_input %dy, %w stride [2, 2, 3] padding [0, 1, 0, 0, 0, 1] groups 2 : (tensor<?x4x6x6x5xf32>, tensor<4x2x2x2x2xf32>) -> tensor<?x4x3x3x2xf32>
  %dw = rlx.conv_transpose3d_backward_weight %x, %dy kernel_size [2, 2, 2] stride [2, 2, 3] padding [0, 1, 0, 0, 0, 1] groups 2 : (tensor<?x4x3x3x2xf32>, tensor<?x4x6x6x5xf32>) -> tensor<4x2x2x2x2xf32>
  return %dx, %dw : tensor<?x4x3x3x2xf32>, tensor<4x2x2x2x2xf32>
}
