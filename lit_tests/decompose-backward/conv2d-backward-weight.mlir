// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// Padding 1: x is transposed to channels-last straight into the interior of a zero-filled
// padded tensor (no tensor.pad, no second copy), dy is transposed to channels-last, one
// contraction over (n, ho, wo) gives dwl[kh, kw, c, f] (the wider channel axis, f,
// innermost), and a weight-sized transpose gives dw[f, c, kh, kw].
// CHECK-LABEL: func.func @bwd_weight_padded
// CHECK-NOT:   tensor.pad
// CHECK:       %[[PADDED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x10x10x3xf32>)
// CHECK:       %[[INTERIOR:.*]] = tensor.extract_slice %[[PADDED]][0, 1, 1, 0] [2, 8, 8, 3] [1, 1, 1, 1]
// CHECK:       %[[XT:.*]] = linalg.transpose ins(%x:tensor<2x3x8x8xf32>) outs(%[[INTERIOR]]:tensor<2x8x8x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:       %[[XL:.*]] = tensor.insert_slice %[[XT]] into %[[PADDED]][0, 1, 1, 0] [2, 8, 8, 3] [1, 1, 1, 1]
// CHECK:       %[[DYL:.*]] = linalg.transpose ins(%dy:tensor<2x4x8x8xf32>) outs(%{{.*}}:tensor<2x8x8x4xf32>) permutation = [0, 2, 3, 1]
// CHECK:       %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x3x3x4xf32>)
// CHECK:       %[[DWL:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, (d5 + d0), (d6 + d1), d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[DYL]], %[[XL]] : tensor<2x8x8x4xf32>, tensor<2x10x10x3xf32>) outs(%[[ZERO]] : tensor<3x3x3x4xf32>)
// CHECK:         arith.mulf
// CHECK-NEXT:    arith.addf
// CHECK:       linalg.transpose ins(%[[DWL]]:tensor<3x3x3x4xf32>) outs(%{{.*}}:tensor<4x3x3x3xf32>) permutation = [3, 2, 0, 1]
// CHECK-NOT:   rlx.
func.func @bwd_weight_padded(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// More input than output channels: c is the inner axis, dwl[kh, kw, f, c].
// CHECK-LABEL: func.func @bwd_weight_wide_input
// CHECK:       %[[DWL:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, (d5 + d0), (d6 + d1), d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    outs(%{{.*}} : tensor<1x1x2x8xf32>)
// CHECK:       linalg.transpose ins(%[[DWL]]:tensor<1x1x2x8xf32>) outs(%{{.*}}:tensor<2x8x1x1xf32>) permutation = [2, 3, 0, 1]
func.func @bwd_weight_wide_input(%x: tensor<1x8x4x4xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<2x8x1x1xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [1, 1] stride [1, 1] padding [0, 0] : (tensor<1x8x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<2x8x1x1xf32>
  return %dw : tensor<2x8x1x1xf32>
}

// -----

// No padding: x is transposed into a new tensor, nothing is filled or padded; rectangular kernel.
// CHECK-LABEL: func.func @bwd_weight_unpadded
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.transpose ins(%x:tensor<1x3x7x6xf32>) outs(%{{.*}}:tensor<1x7x6x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<1x5x5x5xf32>, tensor<1x7x6x3xf32>) outs(%{{.*}} : tensor<3x2x3x5xf32>)
// CHECK-NOT:   rlx.
func.func @bwd_weight_unpadded(%x: tensor<1x3x7x6xf32>, %dy: tensor<1x5x5x5xf32>) -> tensor<5x3x3x2xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 2] stride [1, 1] padding [0, 0] : (tensor<1x3x7x6xf32>, tensor<1x5x5x5xf32>) -> tensor<5x3x3x2xf32>
  return %dw : tensor<5x3x3x2xf32>
}

// -----

// Stride 2 with dilation 2: the input is read at ho*2 + kh*2.
// CHECK-LABEL: func.func @bwd_weight_strided_dilated
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, ((d5 * 2) + (d0 * 2)), ((d6 * 2) + (d1 * 2)), d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT:   rlx.
func.func @bwd_weight_strided_dilated(%x: tensor<2x3x11x11xf32>, %dy: tensor<2x4x4x4xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [2, 2] padding [0, 0] dilation [2, 2] : (tensor<2x3x11x11xf32>, tensor<2x4x4x4xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// Stride 3 > kernel 2: the windows skip input rows, still one gather (ho*3 + kh).
// CHECK-LABEL: func.func @bwd_weight_stride_gt_kernel
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, ((d5 * 3) + d0), ((d6 * 3) + d1), d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-NOT:   rlx.
func.func @bwd_weight_stride_gt_kernel(%x: tensor<1x2x8x8xf32>, %dy: tensor<1x3x3x3xf32>) -> tensor<3x2x2x2xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [2, 2] stride [3, 3] padding [0, 0] : (tensor<1x2x8x8xf32>, tensor<1x3x3x3xf32>) -> tensor<3x2x2x2xf32>
  return %dw : tensor<3x2x2x2xf32>
}

// -----

// Groups 2 (the grouped forms are checked in conv2d-backward-grouped.mlir): the result is
// collapsed back to PyTorch's [F, C/G, KH, KW].
// CHECK-LABEL: func.func @bwd_weight_groups
// CHECK:       tensor.collapse_shape {{.*}} into tensor<6x2x3x3xf32>
// CHECK-NOT:   rlx.
func.func @bwd_weight_groups(%x: tensor<2x4x6x6xf32>, %dy: tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] groups 2 : (tensor<2x4x6x6xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

// -----

// Dynamic batch: the channels-last tensors take N from the operands; n is a reduction loop;
// dw is static.
// CHECK-LABEL: func.func @bwd_weight_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x8x8xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x10x10x3xf32>
// CHECK:       linalg.transpose ins(%x:tensor<?x3x8x8xf32>) outs(%{{.*}}:tensor<?x8x8x3xf32>)
// CHECK:       linalg.transpose ins(%dy:tensor<?x4x8x8xf32>) outs(%{{.*}}:tensor<?x8x8x4xf32>)
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<?x8x8x4xf32>, tensor<?x10x10x3xf32>) outs(%{{.*}} : tensor<3x3x3x4xf32>)
// CHECK-NOT:   rlx.
func.func @bwd_weight_dynamic_batch(%x: tensor<?x3x8x8xf32>, %dy: tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x3x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// f64 stays f64: zeros, products and sums in the element type.
// CHECK-LABEL: func.func @bwd_weight_f64
// CHECK:       arith.constant 0.000000e+00 : f64
// CHECK:       linalg.generic
// CHECK:         arith.mulf {{.*}} : f64
// CHECK-NEXT:    arith.addf {{.*}} : f64
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @bwd_weight_f64(%x: tensor<1x2x5x5xf64>, %dy: tensor<1x3x3x3xf64>) -> tensor<3x2x3x3xf64> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<1x2x5x5xf64>, tensor<1x3x3x3xf64>) -> tensor<3x2x3x3xf64>
  return %dw : tensor<3x2x3x3xf64>
}

// -----

// Forward ops are convert-rlx-to-linalg's: rlx.conv2d stays, the backward op goes.
// CHECK-LABEL: func.func @forward_conv_untouched
// CHECK:       rlx.conv2d
// CHECK:       linalg.generic
// CHECK-NOT:   rlx.conv2d_backward_weight
func.func @forward_conv_untouched(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %dy: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %y, %dw : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>
}
