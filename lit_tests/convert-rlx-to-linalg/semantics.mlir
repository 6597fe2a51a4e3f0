// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// PyTorch's forward semantics beyond the symmetric 2-D subset: per-side padding, 3-D ops,
// ceil mode, max-pool dilation, avg-pool divisors, im2col3d and the adaptive pools.

// Per-side padding ("same" for an even kernel): tensor.pad low and high differ; the 2-D
// named conv stays.
// CHECK-LABEL: func.func @conv2d_per_side
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-SAME:    ins(%[[XPAD]], %w : tensor<?x3x7x8xf32>, tensor<4x3x2x2xf32>)
// CHECK-NOT:   rlx.
func.func @conv2d_per_side(%x: tensor<?x3x6x7xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<?x4x6x7xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [0, 0, 1, 1] : (tensor<?x3x6x7xf32>, tensor<4x3x2x2xf32>) -> tensor<?x4x6x7xf32>
  return %y : tensor<?x4x6x7xf32>
}

// -----

// 3-D grouped conv: one gather-form generic over (n, g, f, od, oh, ow, c, kd, kh, kw),
// groups a loop dimension (expand_shape in, collapse_shape out).
// CHECK-LABEL: func.func @conv3d_grouped
// CHECK:       tensor.pad %x low[0, 0, 0, 0, 1] high[0, 0, 0, 0, 1]
// CHECK:       tensor.expand_shape {{.*}} into tensor<2x2x2x5x6x9xf32>
// CHECK:       tensor.expand_shape %w {{.*}} into tensor<2x3x2x3x2x3xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, (d3 + d7), ((d4 * 2) + d8), (d5 + (d9 * 2)))>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       tensor.collapse_shape {{.*}} into tensor<2x6x3x3x5xf32>
// CHECK-NOT:   rlx.
func.func @conv3d_grouped(%x: tensor<2x4x5x6x7xf32>, %w: tensor<6x2x3x2x3xf32>) -> tensor<2x6x3x3x5xf32> {
  %y = rlx.conv3d %x, %w stride [1, 2, 1] padding [0, 0, 1, 0, 0, 1] dilation [1, 1, 2] groups 2 : (tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>) -> tensor<2x6x3x3x5xf32>
  return %y : tensor<2x6x3x3x5xf32>
}

// -----

// output_padding (2, 3) >= stride (3, 2), legal with dilation 4: the spread input is padded
// high by d*(k-1) - p + output_padding = (5, 10), past its last cell.
// CHECK-LABEL: func.func @conv_transpose2d_output_padding_past_stride
// CHECK:       tensor.insert_slice %x into %{{.*}}[0, 0, 3, 7] [2, 3, 3, 4] [1, 1, 3, 2] : tensor<2x3x3x4xf32> into tensor<2x3x15x24xf32>
// CHECK:       tensor.extract %w
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, (d3 + (d6 * 4)), (d4 + (d7 * 4)))>
// CHECK:       tensor.collapse_shape {{.*}} into tensor<2x4x11x16xf32>
// CHECK-NOT:   rlx.
func.func @conv_transpose2d_output_padding_past_stride(%x: tensor<2x3x3x4xf32>, %w: tensor<3x4x2x3xf32>) -> tensor<2x4x11x16xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [3, 2] padding [1, 1] dilation [4, 4] output_padding [2, 3] : (tensor<2x3x3x4xf32>, tensor<3x4x2x3xf32>) -> tensor<2x4x11x16xf32>
  return %y : tensor<2x4x11x16xf32>
}

// -----

// 3-D transposed conv, per-side padding: the width's low padding 2 exceeds the kernel's
// reach 1, so the spread input is cropped there (extract_slice); groups a loop dimension.
// CHECK-LABEL: func.func @conv_transpose3d
// CHECK:       tensor.insert_slice %x into %{{.*}}[0, 0, 3, 1, 0] [%{{.*}}, 4, 3, 3, 4] [1, 1, 1, 2, 3]
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0, 1] [%{{.*}}, 4, 10, 9, 10] [1, 1, 1, 1, 1]
// CHECK:       tensor.extract %w
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, (d3 + (d7 * 3)), (d4 + d8), (d5 + d9))>
// CHECK:       tensor.collapse_shape {{.*}} into tensor<?x6x7x7x9xf32>
// CHECK-NOT:   rlx.
func.func @conv_transpose3d(%x: tensor<?x4x3x3x4xf32>, %w: tensor<4x3x2x3x2xf32>) -> tensor<?x6x7x7x9xf32> {
  %y = rlx.conv_transpose3d %x, %w stride [1, 2, 3] padding [0, 1, 2, 1, 0, 0] dilation [3, 1, 1] output_padding [2, 1, 0] groups 2 : (tensor<?x4x3x3x4xf32>, tensor<4x3x2x3x2xf32>) -> tensor<?x6x7x7x9xf32>
  return %y : tensor<?x6x7x7x9xf32>
}

// -----

// ceil_mode: the last windows run one cell past the input; it is padded high with -inf as
// far as they read. Dilation goes to the named op.
// CHECK-LABEL: func.func @max_pool2d_ceil_dilated
// CHECK:       %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK-NEXT:  ^{{.*}}
// CHECK-NEXT:    tensor.yield %[[NEGINF]] : f32
// CHECK:       linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>} ins(%[[XPAD]], %{{.*}} : tensor<2x3x9x9xf32>, tensor<3x3xf32>)
// CHECK-NOT:   rlx.
func.func @max_pool2d_ceil_dilated(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x3x4xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [0, 0] dilation [2, 1] ceil_mode true : (tensor<2x3x8x8xf32>) -> tensor<2x3x3x4xf32>
  return %y : tensor<2x3x3x4xf32>
}

// -----

// 3-D max pool: a gather-form generic over (n, c, od, oh, ow, kd, kh, kw) whose body is
// arith.maximumf (NaN propagates, as in PyTorch).
// CHECK-LABEL: func.func @max_pool3d
// CHECK:       tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 1, 2, 1]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, ((d2 * 2) + d5), ((d3 * 2) + (d6 * 2)), ((d4 * 2) + (d7 * 2)))>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NEXT:  ^{{.*}}(%[[X:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[MAX:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:    linalg.yield %[[MAX]] : f32
// CHECK-NOT:   rlx.
func.func @max_pool3d(%x: tensor<2x3x5x8x7xf32>) -> tensor<2x3x3x4x3xf32> {
  %y = rlx.max_pool3d %x kernel_size [2, 3, 3] stride [2, 2, 2] padding [0, 1, 1] dilation [1, 2, 2] ceil_mode true : (tensor<2x3x5x8x7xf32>) -> tensor<2x3x3x4x3xf32>
  return %y : tensor<2x3x3x4x3xf32>
}

// -----

// ceil_mode with count_include_pad: the last window runs past the padded input and divides
// by its cells inside it, min(o*2 + 3, 8) - o*2 per axis (PyTorch's pool_size).
// CHECK-LABEL: func.func @avg_pool2d_ceil_include_pad
// CHECK:       tensor.pad %x low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:       %[[SUMS:.*]] = linalg.generic
// CHECK:         arith.addf
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%[[SUMS]] : tensor<2x3x4x4xf32>)
// CHECK:         linalg.index 2
// CHECK:         arith.minui
// CHECK-NOT:     arith.maxui
// CHECK:         linalg.index 3
// CHECK:         arith.minui
// CHECK:         arith.sitofp
// CHECK:         arith.divf
// CHECK-NOT:   rlx.
func.func @avg_pool2d_ceil_include_pad(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = rlx.avg_pool2d %x kernel_size [3, 3] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// divisor_override: every window divides by the constant 5.
// CHECK-LABEL: func.func @avg_pool2d_divisor_override
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK-NEXT:  ^{{.*}}(%[[SUM:.*]]: f32):
// CHECK-NEXT:    %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-NEXT:    arith.divf %[[SUM]], %[[FIVE]] : f32
// CHECK-NOT:   rlx.
func.func @avg_pool2d_divisor_override(%x: tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32> {
  %y = rlx.avg_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true divisor_override 5 : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// 3-D avg pool, per-side padding, count_include_pad false: the divisor counts the cells
// inside the input, min(o*S + K, pl + n) - max(o*S, pl) on each of the three axes.
// CHECK-LABEL: func.func @avg_pool3d_per_side_exclude_pad
// CHECK:       tensor.pad %x low[0, 0, 1, 0, 1] high[0, 0, 1, 1, 1]
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK:       linalg.generic
// CHECK-COUNT-3: arith.maxui
// CHECK:         arith.divf
// CHECK-NOT:   rlx.
func.func @avg_pool3d_per_side_exclude_pad(%x: tensor<2x3x6x5x7xf32>) -> tensor<2x3x4x3x4xf32> {
  %y = rlx.avg_pool3d %x kernel_size [2, 2, 3] stride [2, 2, 2] padding [1, 0, 1, 0, 1, 0] ceil_mode true count_include_pad false : (tensor<2x3x6x5x7xf32>) -> tensor<2x3x4x3x4xf32>
  return %y : tensor<2x3x4x3x4xf32>
}

// -----

// im2col3d: rows (n, od, oh, ow), columns (c, kd, kh, kw), from one all-parallel gather.
// CHECK-LABEL: func.func @im2col3d
// CHECK:       tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 1, 0, 0]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d4, ((d1 * 2) + d5), (d2 + d6), ((d3 * 3) + d7))>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK:       tensor.collapse_shape %{{.*}} {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64], [4 : i64, 5 : i64, 6 : i64, 7 : i64]] : tensor<2x2x5x2x3x3x2x2xf32> into tensor<40x36xf32>
// CHECK-NOT:   rlx.
func.func @im2col3d(%x: tensor<2x3x4x5x6xf32>) -> tensor<40x36xf32> {
  %y = rlx.im2col3d %x kernel_size [3, 2, 2] stride [2, 1, 3] padding [0, 1, 1, 1, 0, 0] : (tensor<2x3x4x5x6xf32>) -> tensor<40x36xf32>
  return %y : tensor<40x36xf32>
}

// -----

// Adaptive avg pool, 7x9 -> 3x4 (no axis divides): a reduction over a 3x3 window loop
// (adaptive_kernel), start/end from linalg.index with arith (divui), the cell read with a
// clamped tensor.extract and masked with select; then each window's own count divides.
// CHECK-LABEL: func.func @adaptive_avg_pool2d_uneven
// CHECK:       %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:       %[[SUMS:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[WINDOW]] : tensor<3x3xf32>)
// CHECK:         arith.divui
// CHECK:         arith.minui
// CHECK:         arith.cmpi ult
// CHECK:         tensor.extract %x
// CHECK:         arith.select
// CHECK:         arith.addf
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%[[SUMS]] : tensor<?x3x3x4xf32>)
// CHECK:         arith.subi
// CHECK:         arith.divf
// CHECK-NOT:   rlx.
func.func @adaptive_avg_pool2d_uneven(%x: tensor<?x3x7x9xf32>) -> tensor<?x3x3x4xf32> {
  %y = rlx.adaptive_avg_pool2d %x : (tensor<?x3x7x9xf32>) -> tensor<?x3x3x4xf32>
  return %y : tensor<?x3x3x4xf32>
}

// -----

// 8x6 -> 4x2 divides: the max pool with kernel = stride = (2, 3), the named op.
// CHECK-LABEL: func.func @adaptive_max_pool2d_even
// CHECK-NOT:   tensor.extract
// CHECK:       linalg.pooling_nchw_max {strides = dense<[2, 3]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %{{.*}} : tensor<2x3x8x6xf32>, tensor<2x3xf32>)
// CHECK-NOT:   rlx.
func.func @adaptive_max_pool2d_even(%x: tensor<2x3x8x6xf32>) -> tensor<2x3x4x2xf32> {
  %y = rlx.adaptive_max_pool2d %x : (tensor<2x3x8x6xf32>) -> tensor<2x3x4x2xf32>
  return %y : tensor<2x3x4x2xf32>
}

// -----

// 4x5x7 -> 2x3x4: the depth divides (no mask there), height and width are masked; the
// max keeps the accumulator outside the window.
// CHECK-LABEL: func.func @adaptive_max_pool3d_one_axis_divides
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-COUNT-2: arith.cmpi ult
// CHECK-NOT:     arith.cmpi
// CHECK:         tensor.extract %x
// CHECK:         %[[MAX:.*]] = arith.maximumf %[[ACC:.*]], %{{.*}} : f32
// CHECK:         arith.select %{{.*}}, %[[MAX]], %[[ACC]] : f32
// CHECK-NOT:   rlx.
func.func @adaptive_max_pool3d_one_axis_divides(%x: tensor<2x3x4x5x7xf32>) -> tensor<2x3x2x3x4xf32> {
  %y = rlx.adaptive_max_pool3d %x : (tensor<2x3x4x5x7xf32>) -> tensor<2x3x2x3x4xf32>
  return %y : tensor<2x3x2x3x4xf32>
}
