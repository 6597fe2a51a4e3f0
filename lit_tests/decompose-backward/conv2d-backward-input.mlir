// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// Stride 1, padding 1, kernel 3: one phase, the whole adjoint conv. dy is padded by
// d*(k-1) - p = 1; the weight is flipped and its channels swapped by a small generic
// (w_ab[c, f, t, u] = w[f, c, 2-t, 2-u]), then dx is the upstream forward conv of the
// padded dy, stride 1, written straight into dx. The flip reads w with tensor.extract: no
// indexing map has a negative coefficient (MLIR tiling and IREE reject those).
// CHECK-LABEL: func.func @bwd_input_padded
// CHECK:       %[[DYP:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
// CHECK:       %[[WF:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    outs(%{{.*}} : tensor<3x4x3x3xf32>)
// CHECK:         %[[T:.*]] = linalg.index 2 : index
// CHECK:         %[[U:.*]] = linalg.index 3 : index
// CHECK:         %[[FT:.*]] = arith.subi %{{.*}}, %[[T]] : index
// CHECK:         %[[FU:.*]] = arith.subi %{{.*}}, %[[U]] : index
// CHECK:         %[[V:.*]] = tensor.extract %w[%{{.*}}, %{{.*}}, %[[FT]], %[[FU]]] : tensor<4x3x3x3xf32>
// CHECK-NEXT:    linalg.yield %[[V]] : f32
// CHECK:       %[[DX:.*]] = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK-SAME:    ins(%[[DYP]], %[[WF]] : tensor<2x4x10x10xf32>, tensor<3x4x3x3xf32>) outs(%{{.*}} : tensor<2x3x8x8xf32>)
// CHECK-NOT:   tensor.insert_slice
// CHECK:       return %[[DX]]
// CHECK-NOT:   rlx.
func.func @bwd_input_padded(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// -----

// Stride 2, and the last window does not reach the input's end (10 and 9 both give 4
// outputs): four phases, each a stride-1 conv of a window of dy padded by 1 (no zeros
// between dy cells). Rows 0, 2, .. take taps {0, 2} (read as 2 - 2t), rows 1, 3, .. tap 1.
// The phases' rows are short (5 and 4 columns), so each is computed on wrapped rows: the
// padded dy (one zero row more below, 7x6) flattened to one 42-long row per image, one
// 1-row conv per kernel row accumulating into a 5*6-long output row, which is reshaped to
// 5x6, cut to the phase's columns and inserted into dx with strides 2 at its offset.
// CHECK-LABEL: func.func @bwd_input_strided_unreached
// CHECK:       %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x3x10x9xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<3x4x2x2xf32>)
// CHECK:         %[[T:.*]] = linalg.index 2 : index
// CHECK:         %[[TT:.*]] = arith.muli %{{.*}}, %[[T]] : index
// CHECK:         arith.subi %{{.*}}, %[[TT]] : index
// CHECK:       %[[DYP:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK:       tensor.collapse_shape %[[DYP]] {{.*}} : tensor<1x4x7x6xf32> into tensor<1x4x42xf32>
// CHECK:       %[[FLAT:.*]] = tensor.expand_shape {{.*}} into tensor<1x4x1x42xf32>
// CHECK:       %[[X0:.*]] = tensor.extract_slice %[[FLAT]][0, 0, 0, 0] [1, 4, 1, 31] [1, 1, 1, 1]
// CHECK:       %[[R0:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[X0]], %{{.*}} : tensor<1x4x1x31xf32>, tensor<3x4x1x2xf32>) outs(%{{.*}} : tensor<1x3x1x30xf32>)
// CHECK:       %[[X1:.*]] = tensor.extract_slice %[[FLAT]][0, 0, 0, 6] [1, 4, 1, 31] [1, 1, 1, 1]
// CHECK:       %[[R1:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[X1]], %{{.*}} : tensor<1x4x1x31xf32>, tensor<3x4x1x2xf32>) outs(%[[R0]] : tensor<1x3x1x30xf32>)
// CHECK:       tensor.expand_shape {{.*}} into tensor<1x3x5x6xf32>
// CHECK:       %[[P00:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 3, 5, 5] [1, 1, 1, 1] : tensor<1x3x5x6xf32> to tensor<1x3x5x5xf32>
// CHECK:       %[[DX00:.*]] = tensor.insert_slice %[[P00]] into %[[Z]][0, 0, 0, 0] [1, 3, 5, 5] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %[[FLAT]][0, 0, 0, 1] [1, 4, 1, 30] [1, 1, 1, 1]
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    : tensor<1x4x1x30xf32>, tensor<3x4x1x1xf32>) outs(%{{.*}} : tensor<1x3x1x30xf32>)
// CHECK:       tensor.extract_slice %[[FLAT]][0, 0, 0, 7] [1, 4, 1, 30] [1, 1, 1, 1]
// CHECK:       %[[DX01:.*]] = tensor.insert_slice %{{.*}} into %[[DX00]][0, 0, 0, 1] [1, 3, 5, 4] [1, 1, 2, 2]
// CHECK:       %[[DX10:.*]] = tensor.insert_slice %{{.*}} into %[[DX01]][0, 0, 1, 0] [1, 3, 5, 5] [1, 1, 2, 2]
// CHECK:       tensor.insert_slice %{{.*}} into %[[DX10]][0, 0, 1, 1] [1, 3, 5, 4] [1, 1, 2, 2]
// CHECK-NOT:   rlx.
func.func @bwd_input_strided_unreached(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x10x9xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x9xf32>
  return %dx : tensor<1x3x10x9xf32>
}

// -----

// Dilation 2, rectangular kernel, stride 1: the flip is 2-t, 1-u on the weight; the conv
// keeps the forward dilation (dy read at h + 2*t); dy is padded by d*(k-1) = 4, 2.
// CHECK-LABEL: func.func @bwd_input_dilated
// CHECK:       tensor.pad %{{.*}} low[0, 0, 4, 2] high[0, 0, 4, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<3x4x3x2xf32>)
// CHECK:         tensor.extract %w[{{.*}}] : tensor<4x3x3x2xf32>
// CHECK:       linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
// CHECK-SAME:    outs(%{{.*}} : tensor<1x3x9x6xf32>)
// CHECK-NOT:   rlx.
func.func @bwd_input_dilated(%dy: tensor<1x4x5x4xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x3x9x6xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 2] stride [1, 1] padding [0, 0] dilation [2, 2] : (tensor<1x4x5x4xf32>, tensor<4x3x3x2xf32>) -> tensor<1x3x9x6xf32>
  return %dx : tensor<1x3x9x6xf32>
}

// -----

// Stride 3 > kernel 2: every phase that a tap reaches has a 1x1 sub-kernel reading dy
// itself, so it is convolved on dy's flattened rows [1, 3, 1, 9] (one view, shared);
// rows and columns 2, 5 get no tap: those phases are left out and stay zero.
// CHECK-LABEL: func.func @bwd_input_stride_gt_kernel
// CHECK:       %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x2x8x8xf32>
// CHECK:       %[[C:.*]] = tensor.collapse_shape %dy {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<1x3x3x3xf32> into tensor<1x3x9xf32>
// CHECK:       %[[FLAT:.*]] = tensor.expand_shape %[[C]] {{.*}} output_shape [1, 3, 1, 9]
// CHECK:       %[[P:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[FLAT]], %{{.*}} : tensor<1x3x1x9xf32>, tensor<2x3x1x1xf32>) outs(%{{.*}} : tensor<1x2x1x9xf32>)
// CHECK:       %[[PC:.*]] = tensor.collapse_shape %[[P]]
// CHECK:       %[[PE:.*]] = tensor.expand_shape %[[PC]] {{.*}} output_shape [1, 2, 3, 3]
// CHECK:       tensor.insert_slice %[[PE]] into %[[Z]][0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 3, 3]
// CHECK-NOT:   tensor.collapse_shape %dy
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[FLAT]],
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 0, 1] [1, 2, 3, 3] [1, 1, 3, 3]
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 1, 0] [1, 2, 3, 3] [1, 1, 3, 3]
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 3, 3]
// CHECK-NOT:   tensor.insert_slice
// CHECK-NOT:   rlx.
func.func @bwd_input_stride_gt_kernel(%dy: tensor<1x3x3x3xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x2x8x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [2, 2] stride [3, 3] padding [0, 0] : (tensor<1x3x3x3xf32>, tensor<3x2x2x2xf32>) -> tensor<1x2x8x8xf32>
  return %dx : tensor<1x2x8x8xf32>
}

// -----

// Padding 2 > d*(k-1) = 1: the adjoint padding is -1, so dy is cropped (extract_slice
// from offset 1) instead of padded.
// CHECK-LABEL: func.func @bwd_input_negative_adjoint_padding
// CHECK:       %[[CROP:.*]] = tensor.extract_slice %dy[0, 0, 1, 1] [1, 3, 6, 6] [1, 1, 1, 1] : tensor<1x3x8x8xf32> to tensor<1x3x6x6xf32>
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[CROP]], %{{.*}} : tensor<1x3x6x6xf32>, tensor<2x3x2x2xf32>) outs(%{{.*}} : tensor<1x2x5x5xf32>)
// CHECK-NOT:   rlx.
func.func @bwd_input_negative_adjoint_padding(%dy: tensor<1x3x8x8xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x2x5x5xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [2, 2] stride [1, 1] padding [2, 2] : (tensor<1x3x8x8xf32>, tensor<3x2x2x2xf32>) -> tensor<1x2x5x5xf32>
  return %dx : tensor<1x2x5x5xf32>
}

// -----

// Groups 2: the padded dy and w are split into (G, F/G); the sub-kernel is
// [G, C/G, F/G, KH, KW] (group axis kept in place), the conv is the grouped upstream
// conv_2d_ngchw_gfchw, and dx [N, G, C/G, H, W] is collapsed back to [N, C, H, W].
// CHECK-LABEL: func.func @bwd_input_groups
// CHECK:       %[[DY:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 2, 3, 8, 8]
// CHECK:       %[[W:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [2, 3, 2, 3, 3]
// CHECK:       %[[WF:.*]] = linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x3x3x3xf32>)
// CHECK:         tensor.extract %[[W]][{{.*}}] : tensor<2x3x2x3x3xf32>
// CHECK:       %[[DX:.*]] = linalg.conv_2d_ngchw_gfchw
// CHECK-SAME:    ins(%[[DY]], %[[WF]] : tensor<2x2x3x8x8xf32>, tensor<2x2x3x3x3xf32>)
// CHECK:       tensor.collapse_shape %[[DX]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] : tensor<2x2x2x6x6xf32> into tensor<2x4x6x6xf32>
// CHECK-NOT:   rlx.
func.func @bwd_input_groups(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [0, 0] groups 2 : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %dx : tensor<2x4x6x6xf32>
}

// -----

// Dynamic batch: zero tensors, dy's windows and views take the batch size from dy
// (tensor.dim); the phase of rows/columns 0, 2, .. (tap 1 of 3 with padding 1) reads dy
// itself, flattened; the other phases read the padded dy on wrapped rows (one row per image).
// CHECK-LABEL: func.func @bwd_input_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %dy, %{{.*}} : tensor<?x4x4x4xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x8x8xf32>
// CHECK:       tensor.collapse_shape %dy {{.*}} : tensor<?x4x4x4xf32> into tensor<?x4x16xf32>
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    outs(%{{.*}} : tensor<?x3x1x16xf32>)
// CHECK:       tensor.insert_slice {{.*}}[0, 0, 0, 0] [%{{.*}}, 3, 4, 4] [1, 1, 2, 2] : tensor<?x3x4x4xf32> into tensor<?x3x8x8xf32>
// CHECK:       tensor.pad %dy low[0, 0, 0, 0] high[0, 0, 2, 1]
// CHECK:       tensor.extract_slice {{.*}}[0, 0, 0, 0] [%{{.*}}, 4, 1, 21] [1, 1, 1, 1] : tensor<?x4x1x30xf32> to tensor<?x4x1x21xf32>
// CHECK-NOT:   rlx.
func.func @bwd_input_dynamic_batch(%dy: tensor<?x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %dx : tensor<?x3x8x8xf32>
}

// -----

// f64 stays f64.
// CHECK-LABEL: func.func @bwd_input_f64
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<2x3x3x3xf64>)
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    : tensor<1x3x7x7xf64>, tensor<2x3x3x3xf64>) outs(%{{.*}} : tensor<1x2x5x5xf64>)
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @bwd_input_f64(%dy: tensor<1x3x3x3xf64>, %w: tensor<3x2x3x3xf64>) -> tensor<1x2x5x5xf64> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<1x3x3x3xf64>, tensor<3x2x3x3xf64>) -> tensor<1x2x5x5xf64>
  return %dx : tensor<1x2x5x5xf64>
}

// -----

// Forward ops are convert-rlx-to-linalg's: rlx.conv2d stays, the backward op goes.
// CHECK-LABEL: func.func @forward_conv_untouched
// CHECK:       rlx.conv2d
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-NOT:   rlx.conv2d_backward_input
func.func @forward_conv_untouched(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %dy: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return %y, %dx : tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>
}
