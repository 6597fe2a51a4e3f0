// RUN: rlx-opt %s --decompose-backward=conv-weight=im2col --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward="conv-weight=im2col im2col-max-elements=864" --split-input-file | FileCheck %s --check-prefix=CHUNK

// Ungrouped, one chunk: im2col is one gather-form generic over (n, ho, wo, c, kh, kw) with
// plain affine maps; dy's batch axis is moved next to (ho, wo) by a transposing generic
// (dyT[f, n, ho, wo] = dy[n, f, ho, wo], not a reshape of [N, F, Ho, Wo], RLX's N = 1 bug);
// the rows m = (n, ho, wo) are a collapse_shape of both (no floordiv/mod map, which IREE
// cannot tile), then linalg.matmul [F, M] x [M, K].
// CHECK-LABEL: func.func @im2col_matmul
// CHECK:       %[[XPAD:.*]] = tensor.pad
// CHECK:       %[[COL:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, (d1 + d4), (d2 + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[XPAD]] : tensor<2x3x10x10xf32>) outs(%{{.*}} : tensor<2x8x8x3x3x3xf32>)
// CHECK:       %[[DYT:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x4x8x8xf32>) outs(%{{.*}} : tensor<4x2x8x8xf32>)
// CHECK:       %[[COLM:.*]] = tensor.collapse_shape %[[COL]] {{\[}}[0 : i64, 1 : i64, 2 : i64], [3 : i64, 4 : i64, 5 : i64]] : tensor<2x8x8x3x3x3xf32> into tensor<128x27xf32>
// CHECK:       %[[DYM:.*]] = tensor.collapse_shape %[[DYT]] {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] : tensor<4x2x8x8xf32> into tensor<4x128xf32>
// CHECK:       %[[DW:.*]] = linalg.matmul ins(%[[DYM]], %[[COLM]] : tensor<4x128xf32>, tensor<128x27xf32>) outs(%{{.*}} : tensor<4x27xf32>)
// CHECK:       tensor.expand_shape %[[DW]] {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] output_shape [4, 3, 3, 3]
// CHECK-NOT:   rlx.
func.func @im2col_matmul(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// Stride (3, 2) and dilation 2, no padding: im2col reads x at ho*3 + kh*2, wo*2 + kw*2.
// CHECK-LABEL: func.func @im2col_strided_dilated
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, ((d1 * 3) + (d4 * 2)), ((d2 * 2) + (d5 * 2)))>
// CHECK:       linalg.matmul
// CHECK-NOT:   rlx.
func.func @im2col_strided_dilated(%x: tensor<1x2x12x9xf32>, %dy: tensor<1x3x4x3xf32>) -> tensor<3x2x2x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [2, 3] stride [3, 2] padding [0, 0] dilation [2, 2] : (tensor<1x2x12x9xf32>, tensor<1x3x4x3xf32>) -> tensor<3x2x2x3xf32>
  return %dw : tensor<3x2x2x3xf32>
}

// -----

// Groups 2: im2col and dyT carry a group axis (loop d0); their rows become one chunk
// (collapse, then expand to [.., 1, 32, ..]); the product is one batched matmul-like
// generic over g, not a matmul per group.
// CHECK-LABEL: func.func @im2col_groups
// CHECK:       tensor.expand_shape %{{.*}} output_shape [2, 2, 2, 6, 6]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d0, d4, (d2 + d5), (d3 + d6))>
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x4x4x2x3x3xf32>)
// CHECK:       tensor.expand_shape %{{.*}} output_shape [2, 2, 3, 4, 4]
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<2x3x2x4x4xf32>)
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<2x2x4x4x2x3x3xf32> into tensor<2x32x2x3x3xf32>
// CHECK:       tensor.expand_shape %{{.*}} output_shape [2, 1, 32, 2, 3, 3]
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<2x3x2x4x4xf32> into tensor<2x3x32xf32>
// CHECK:       tensor.expand_shape %{{.*}} output_shape [2, 3, 1, 32]
// CHECK-NOT:   linalg.matmul
// CHECK:       %[[DW:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d6, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK:       tensor.collapse_shape %[[DW]] {{.*}} : tensor<2x3x2x3x3xf32> into tensor<6x2x3x3xf32>
// CHECK-NOT:   rlx.
func.func @im2col_groups(%x: tensor<2x4x6x6xf32>, %dy: tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] groups 2 : (tensor<2x4x6x6xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

// -----

// Dynamic batch: the row count is unknown, so rows are chunked by sample (R = Ho*Wo = 64);
// the chunk count is the batch size (the expand_shape's dynamic size) and the contraction
// reduces over (chunk, row).
// CHECK-LABEL: func.func @im2col_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3x8x8xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x8x8x3x3x3xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, (d1 + d4), (d2 + d5))>
// CHECK:       tensor.empty(%[[N]]) : tensor<4x?x8x8xf32>
// CHECK:       linalg.generic
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<?x8x8x3x3x3xf32> into tensor<?x3x3x3xf32>
// CHECK:       tensor.expand_shape %{{.*}} output_shape [%[[N]], 64, 3, 3, 3] : tensor<?x3x3x3xf32> into tensor<?x64x3x3x3xf32>
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<4x?x8x8xf32> into tensor<4x?xf32>
// CHECK:       tensor.expand_shape %{{.*}} output_shape [4, %[[N]], 64] : tensor<4x?xf32> into tensor<4x?x64xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<4x?x64xf32>, tensor<?x64x3x3x3xf32>) outs(%{{.*}} : tensor<4x3x3x3xf32>)
// CHECK-NOT:   rlx.
func.func @im2col_dynamic_batch(%x: tensor<?x3x8x8xf32>, %dy: tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x3x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// f64 stays f64 through im2col and the matmul.
// CHECK-LABEL: func.func @im2col_f64
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x9xf64>, tensor<9x18xf64>) outs(%{{.*}} : tensor<3x18xf64>)
// CHECK-NOT:   rlx.
func.func @im2col_f64(%x: tensor<1x2x5x5xf64>, %dy: tensor<1x3x3x3xf64>) -> tensor<3x2x3x3xf64> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<1x2x5x5xf64>, tensor<1x3x3x3xf64>) -> tensor<3x2x3x3xf64>
  return %dw : tensor<3x2x3x3xf64>
}

// -----

// Above im2col-max-elements (second RUN line, 864 = 32 rows x K 27): the 128 rows become
// 4 chunks of 32, m = t*32 + r (a collapse then an expand of the rows), and the product
// reduces over (t, r). The IR has one im2col generic whatever the number of chunks (RLX
// unrolls one gather per chunk row).
// CHECK-LABEL: func.func @im2col_chunked
// CHECK:       linalg.matmul
// CHUNK-LABEL: func.func @im2col_chunked
// CHUNK:       linalg.generic
// CHUNK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, (d1 + d4), (d2 + d5))>
// CHUNK-SAME:    outs(%{{.*}} : tensor<2x8x8x3x3x3xf32>)
// CHUNK:       linalg.generic
// CHUNK-SAME:    outs(%{{.*}} : tensor<4x2x8x8xf32>)
// CHUNK:       tensor.collapse_shape %{{.*}} : tensor<2x8x8x3x3x3xf32> into tensor<128x3x3x3xf32>
// CHUNK:       %[[COL:.*]] = tensor.expand_shape %{{.*}} output_shape [4, 32, 3, 3, 3] : tensor<128x3x3x3xf32> into tensor<4x32x3x3x3xf32>
// CHUNK:       tensor.collapse_shape %{{.*}} : tensor<4x2x8x8xf32> into tensor<4x128xf32>
// CHUNK:       %[[DYT:.*]] = tensor.expand_shape %{{.*}} output_shape [4, 4, 32] : tensor<4x128xf32> into tensor<4x4x32xf32>
// CHUNK-NOT:   linalg.matmul
// CHUNK:       linalg.generic
// CHUNK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]
// CHUNK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHUNK-SAME:    ins(%[[DYT]], %[[COL]] : tensor<4x4x32xf32>, tensor<4x32x3x3x3xf32>)
// CHUNK-NOT:   rlx.
func.func @im2col_chunked(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
