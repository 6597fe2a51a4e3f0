// RUN: rlx-opt %s --convert-rlx-to-linalg=strided-conv=phases --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s --check-prefix=DIRECT

// y[n, f, o, p] = sum_{c, kh, kw} rows[(n, o, p), (c, kh, kw)] * w[f, (c, kh, kw)]
// A 4x8 kernel at stride [4, 8], a patch embedding: every tap its own stride phase. The
// patches channels-last, one matmul [48, 96] x w^T [96, 16], the result [N, Ho, Wo, F]
// transposed to NCHW; no stride phases.
// CHECK-LABEL: func.func @patch_embedding
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, ((d1 * 4) + d4), ((d2 * 8) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x4x6x3x4x8xf32>)
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64, 2 : i64], [3 : i64, 4 : i64, 5 : i64]] : tensor<2x4x6x3x4x8xf32> into tensor<48x96xf32>
// CHECK:       tensor.collapse_shape %w {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] : tensor<16x3x4x8xf32> into tensor<16x96xf32>
// CHECK:       linalg.transpose ins(%{{.*}}:tensor<16x96xf32>) outs(%{{.*}}:tensor<96x16xf32>) permutation = [1, 0]
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<48x96xf32>, tensor<96x16xf32>)
// CHECK:       tensor.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64, 2 : i64], [3 : i64]] output_shape [2, 4, 6, 16] : tensor<48x16xf32> into tensor<2x4x6x16xf32>
// CHECK:       linalg.transpose ins(%{{.*}}:tensor<2x4x6x16xf32>) outs(%{{.*}}:tensor<2x16x4x6xf32>) permutation = [0, 3, 1, 2]
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// The default keeps the strided named op.
// DIRECT-LABEL: func.func @patch_embedding
// DIRECT:       linalg.conv_2d_nchw_fchw {strides = dense<[4, 8]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
func.func @patch_embedding(%x: tensor<2x3x16x48xf32>, %w: tensor<16x3x4x8xf32>) -> tensor<2x16x4x6xf32> {
  %y = rlx.conv2d %x, %w stride [4, 8] padding [0, 0] : (tensor<2x3x16x48xf32>, tensor<16x3x4x8xf32>) -> tensor<2x16x4x6xf32>
  return %y : tensor<2x16x4x6xf32>
}

// -----

// A dynamic batch is the product's dynamic M, and the result's batch is x's.
// CHECK-LABEL: func.func @patch_embedding_dynamic_batch
// CHECK:       %[[B:.+]] = tensor.dim %x, %{{.*}} : tensor<?x3x64x64xf32>
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<?x8x8x3x8x8xf32> into tensor<?x192xf32>
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x192xf32>, tensor<192x16xf32>)
// CHECK:       tensor.expand_shape %{{.*}} output_shape [%[[B]], 8, 8, 16] : tensor<?x16xf32> into tensor<?x8x8x16xf32>
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @patch_embedding_dynamic_batch(%x: tensor<?x3x64x64xf32>, %w: tensor<16x3x8x8xf32>) -> tensor<?x16x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [8, 8] padding [0, 0] : (tensor<?x3x64x64xf32>, tensor<16x3x8x8xf32>) -> tensor<?x16x8x8xf32>
  return %y : tensor<?x16x8x8xf32>
}
