// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// y[n, f, oh, ow] = sum_{c, kh, kw} xpad[n, c, oh*sh + kh*dh, ow*sw + kw*dw] * w[f, c, kh, kw]

// Padding is an explicit zero tensor.pad; one group is linalg.conv_2d_nchw_fchw from zeros.
// CHECK-LABEL: func.func @conv_padded
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         tensor.yield %[[ZERO]] : f32
// CHECK:       } : tensor<2x3x8x8xf32> to tensor<2x3x10x10xf32>
// CHECK:       %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// CHECK:       %[[Y:.*]] = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK-SAME:    ins(%[[XPAD]], %w : tensor<2x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<2x4x8x8xf32>)
// CHECK:       return %[[Y]] : tensor<2x4x8x8xf32>
// CHECK-NOT:   rlx.
func.func @conv_padded(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

// -----

// No padding: the input goes to the conv as it is.
// CHECK-LABEL: func.func @conv_unpadded
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.conv_2d_nchw_fchw {{.*}} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
// CHECK-NOT:   rlx.
func.func @conv_unpadded(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [0, 0] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// Stride and dilation, different per axis, become the named op's attributes; a rectangular
// kernel and input keep their shapes.
// CHECK-LABEL: func.func @conv_strided_dilated_rectangular
// CHECK:       tensor.pad %x low[0, 0, 2, 1] high[0, 0, 2, 1]
// CHECK:       linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
// CHECK-SAME:    ins(%{{.*}}, %w : tensor<1x3x11x11xf32>, tensor<4x3x3x2xf32>) outs(%{{.*}} : tensor<1x4x7x5xf32>)
// CHECK-NOT:   rlx.
func.func @conv_strided_dilated_rectangular(%x: tensor<1x3x7x9xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x4x7x5xf32> {
  %y = rlx.conv2d %x, %w stride [1, 2] padding [2, 1] dilation [2, 1] : (tensor<1x3x7x9xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x7x5xf32>
  return %y : tensor<1x4x7x5xf32>
}

// -----

// Groups are a loop dimension: x [N, G*Cg, H, W] -> [N, G, Cg, H, W], w [G*Fg, Cg, KH, KW]
// -> [G, Fg, Cg, KH, KW] (PyTorch's group-major filters), one linalg.conv_2d_ngchw_gfchw,
// and the result [N, G, Fg, Ho, Wo] collapses back to [N, G*Fg, Ho, Wo].
// CHECK-LABEL: func.func @conv_groups
// CHECK:       %[[XG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 2, 2, 10, 10] : tensor<1x4x10x10xf32> into tensor<1x2x2x10x10xf32>
// CHECK:       %[[WG:.*]] = tensor.expand_shape %w {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK:       %[[INIT:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<1x2x3x4x4xf32>)
// CHECK:       %[[YG:.*]] = linalg.conv_2d_ngchw_gfchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK-SAME:    ins(%[[XG]], %[[WG]] : tensor<1x2x2x10x10xf32>, tensor<2x3x2x3x3xf32>) outs(%[[INIT]] : tensor<1x2x3x4x4xf32>)
// CHECK:       %[[Y:.*]] = tensor.collapse_shape %[[YG]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
// CHECK:       return %[[Y]]
// CHECK-NOT:   rlx.
func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] groups 2 : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

// Depthwise (groups = channels, multiplier 2) is the grouped case with one channel per group.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK:       tensor.expand_shape {{.*}} : tensor<1x4x10x10xf32> into tensor<1x4x1x10x10xf32>
// CHECK:       tensor.expand_shape %w {{.*}} : tensor<8x1x3x3xf32> into tensor<4x2x1x3x3xf32>
// CHECK:       linalg.conv_2d_ngchw_gfchw
// CHECK:       tensor.collapse_shape {{.*}} : tensor<1x4x2x8x8xf32> into tensor<1x8x8x8xf32>
// CHECK-NOT:   rlx.
func.func @conv_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] groups 4 : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// A dynamic batch is carried through: the pad keeps it, the expand and the init read it
// with tensor.dim, the collapse keeps it.
// CHECK-LABEL: func.func @conv_dynamic_batch
// CHECK:       tensor.pad %x
// CHECK:       } : tensor<?x4x8x8xf32> to tensor<?x4x10x10xf32>
// CHECK:       %[[N0:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4x10x10xf32>
// CHECK:       tensor.expand_shape {{.*}} output_shape [%[[N0]], 2, 2, 10, 10] : tensor<?x4x10x10xf32> into tensor<?x2x2x10x10xf32>
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4x8x8xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x2x3x8x8xf32>
// CHECK:       linalg.conv_2d_ngchw_gfchw
// CHECK:       tensor.collapse_shape {{.*}} : tensor<?x2x3x8x8xf32> into tensor<?x6x8x8xf32>
// CHECK-NOT:   rlx.
func.func @conv_dynamic_batch(%x: tensor<?x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<?x6x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] groups 2 : (tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x8x8xf32>
  return %y : tensor<?x6x8x8xf32>
}

// -----

// The element type is kept: f64 zeros, f64 tensors.
// CHECK-LABEL: func.func @conv_f64
// CHECK:       arith.constant 0.000000e+00 : f64
// CHECK:       linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<2x4x3x3xf64>) -> tensor<2x4x3x3xf64>
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @conv_f64(%x: tensor<2x3x8x8xf64>, %w: tensor<4x3x3x3xf64>) -> tensor<2x4x3x3xf64> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [0, 0] : (tensor<2x3x8x8xf64>, tensor<4x3x3x3xf64>) -> tensor<2x4x3x3xf64>
  return %y : tensor<2x4x3x3xf64>
}
