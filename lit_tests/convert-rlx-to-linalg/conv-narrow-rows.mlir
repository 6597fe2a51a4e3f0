// RUN: rlx-opt %s --convert-rlx-to-linalg=strided-conv=phases --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s --check-prefix=DIRECT

// y[n, f, o, p] = sum_{c, kh, kw} w[f, (c, kh, kw)] * cols[(c, kh, kw), (n, o, p)]
// A 4x4 stride-2 conv to 4-column rows: the patches channels-first, one matmul
// [8, 64] x [64, 32], the result [F, N, Ho, Wo] transposed to NCHW; no stride phases.
// CHECK-LABEL: func.func @conv_s2_to_4_columns
// CHECK:       tensor.pad
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, ((d4 * 2) + d1), ((d5 * 2) + d2))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME:    outs(%{{.*}} : tensor<4x4x4x2x4x4xf32>)
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64, 2 : i64], [3 : i64, 4 : i64, 5 : i64]] : tensor<4x4x4x2x4x4xf32> into tensor<64x32xf32>
// CHECK:       tensor.collapse_shape %w {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] : tensor<8x4x4x4xf32> into tensor<8x64xf32>
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x32xf32>)
// CHECK:       tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] output_shape [8, 2, 4, 4] : tensor<8x32xf32> into tensor<8x2x4x4xf32>
// CHECK:       linalg.transpose ins(%{{.*}}:tensor<8x2x4x4xf32>) outs(%{{.*}}:tensor<2x8x4x4xf32>) permutation = [1, 0, 2, 3]
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// The default keeps the strided named op.
// DIRECT-LABEL: func.func @conv_s2_to_4_columns
// DIRECT:       linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
func.func @conv_s2_to_4_columns(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x4x4xf32>) -> tensor<2x8x4x4xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<8x4x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %y : tensor<2x8x4x4xf32>
}

// -----

// Stride 3 with dilation 2 to 3-column rows: the same matmul, the taps at o*3 + kh*2.
// CHECK-LABEL: func.func @conv_s3_dilated_to_3_columns
// CHECK:       affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, ((d4 * 3) + (d1 * 2)), ((d5 * 3) + (d2 * 2)))>
// CHECK:       linalg.matmul
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @conv_s3_dilated_to_3_columns(%x: tensor<3x2x11x11xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<3x5x3x3xf32> {
  %y = rlx.conv2d %x, %w stride [3, 3] padding [0, 0] dilation [2, 2] : (tensor<3x2x11x11xf32>, tensor<5x2x3x3xf32>) -> tensor<3x5x3x3xf32>
  return %y : tensor<3x5x3x3xf32>
}

// -----

// Rows of 5 columns, or a dynamic batch, keep the stride phases; a stride-1 conv to
// 4-column rows keeps the named conv.
// CHECK-LABEL: func.func @conv_s2_to_5_columns
// CHECK-NOT:   linalg.matmul
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>
// CHECK-LABEL: func.func @conv_s2_dynamic_batch
// CHECK-NOT:   linalg.matmul
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>
func.func @conv_s2_to_5_columns(%x: tensor<2x4x10x10xf32>, %w: tensor<8x4x4x4xf32>) -> tensor<2x8x5x5xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] : (tensor<2x4x10x10xf32>, tensor<8x4x4x4xf32>) -> tensor<2x8x5x5xf32>
  return %y : tensor<2x8x5x5xf32>
}
func.func @conv_s2_dynamic_batch(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x4x4xf32>) -> tensor<?x8x4x4xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] : (tensor<?x4x8x8xf32>, tensor<8x4x4x4xf32>) -> tensor<?x8x4x4xf32>
  return %y : tensor<?x8x4x4xf32>
}

// CHECK-LABEL: func.func @conv_dilated_stride_1_to_4_columns
// CHECK-NOT:   linalg.matmul
// CHECK:       linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
func.func @conv_dilated_stride_1_to_4_columns(%x: tensor<3x2x8x8xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<3x5x4x4xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [2, 2] : (tensor<3x2x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<3x5x4x4xf32>
  return %y : tensor<3x5x4x4xf32>
}
