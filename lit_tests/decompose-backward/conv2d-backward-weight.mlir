// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// Padding 1: x is zero-padded, then one contraction over (n, ho, wo) gives dw[f, c, kh, kw];
// the output map indexes loop dimensions only.
// CHECK-LABEL: func.func @bwd_weight_padded
// CHECK:       %[[XPAD:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       tensor<2x3x8x8xf32> to tensor<2x3x10x10xf32>
// CHECK:       %[[ZERO:.*]] = linalg.fill
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, (d5 + d2), (d6 + d3))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}}, %[[XPAD]] : tensor<2x4x8x8xf32>, tensor<2x3x10x10xf32>) outs(%[[ZERO]] : tensor<4x3x3x3xf32>)
// CHECK:         arith.mulf
// CHECK-NEXT:    arith.addf
// CHECK-NOT:   rlx.
func.func @bwd_weight_padded(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// No padding: x is read directly, no tensor.pad; rectangular kernel.
// CHECK-LABEL: func.func @bwd_weight_unpadded
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<1x5x5x5xf32>, tensor<1x3x7x6xf32>) outs(%{{.*}} : tensor<5x3x3x2xf32>)
// CHECK-NOT:   rlx.
func.func @bwd_weight_unpadded(%x: tensor<1x3x7x6xf32>, %dy: tensor<1x5x5x5xf32>) -> tensor<5x3x3x2xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 2] stride [1, 1] padding [0, 0] : (tensor<1x3x7x6xf32>, tensor<1x5x5x5xf32>) -> tensor<5x3x3x2xf32>
  return %dw : tensor<5x3x3x2xf32>
}

// -----

// Stride 2 with dilation 2: the input is read at ho*2 + kh*2.
// CHECK-LABEL: func.func @bwd_weight_strided_dilated
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, ((d5 * 2) + (d2 * 2)), ((d6 * 2) + (d3 * 2)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
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
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, ((d5 * 3) + d2), ((d6 * 3) + d3))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-NOT:   rlx.
func.func @bwd_weight_stride_gt_kernel(%x: tensor<1x2x8x8xf32>, %dy: tensor<1x3x3x3xf32>) -> tensor<3x2x2x2xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [2, 2] stride [3, 3] padding [0, 0] : (tensor<1x2x8x8xf32>, tensor<1x3x3x3xf32>) -> tensor<3x2x2x2xf32>
  return %dw : tensor<3x2x2x2xf32>
}

// -----

// Groups 2: a group loop g (d0), not one contraction per group. x and dy are split into
// (G, channels/G), dw [G, F/G, C/G, KH, KW] is collapsed back to [F, C/G, KH, KW].
// CHECK-LABEL: func.func @bwd_weight_groups
// CHECK:       %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 2, 2, 6, 6]
// CHECK:       %[[DY:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 2, 3, 4, 4]
// CHECK:       %[[DW:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d1, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d2, (d6 + d3), (d7 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[DY]], %[[X]] : tensor<2x2x3x4x4xf32>, tensor<2x2x2x6x6xf32>)
// CHECK:       tensor.collapse_shape %[[DW]] {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] : tensor<2x3x2x3x3xf32> into tensor<6x2x3x3xf32>
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   rlx.
func.func @bwd_weight_groups(%x: tensor<2x4x6x6xf32>, %dy: tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] groups 2 : (tensor<2x4x6x6xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

// -----

// Dynamic batch: n is a reduction loop whose extent comes from the operands; dw is static.
// CHECK-LABEL: func.func @bwd_weight_dynamic_batch
// CHECK:       tensor.pad
// CHECK:       tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%{{.*}} : tensor<4x3x3x3xf32>)
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
