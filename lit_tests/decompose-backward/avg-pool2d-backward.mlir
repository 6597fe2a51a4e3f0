// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s --check-prefix=NOTAG
// No op carries a schedule tag (the backend selects the generics by their shape).
// NOTAG-NOT: pool_schedule

// dx[n, c, h, w] = sum over the windows (oh, ow) containing (h, w) of
// dy[n, c, oh, ow] / divisor(oh, ow), as one gather over the candidate windows.

// count_include_pad (the default), overlapping k3 s2 p1: a constant divisor 9; no pad,
// no intermediate tensor, 2x2 candidate windows per cell.
// CHECK-LABEL: func.func @avg_k3s2p1_include_pad
// CHECK-NOT:   tensor.pad
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x9x9xf32>)
// CHECK:         %[[D:.*]] = tensor.extract %dy[{{.*}}] : tensor<1x2x5x5xf32>
// CHECK:         %[[NINE:.*]] = arith.constant 9.000000e+00 : f32
// CHECK:         arith.divf %[[D]], %[[NINE]] : f32
// CHECK:         arith.addf
// CHECK:       return %[[DX]] : tensor<1x2x9x9xf32>
// CHECK-NOT:   rlx.
func.func @avg_k3s2p1_include_pad(%dy: tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32>
  return %dx : tensor<1x2x9x9xf32>
}

// -----

// count_include_pad false: the divisor is the window's cell count inside the input,
// (min(oh*S + K, H + P) - max(oh*S, P)) per axis, converted to the element type.
// CHECK-LABEL: func.func @avg_exclude_pad
// CHECK:       linalg.generic
// CHECK:         %[[D:.*]] = tensor.extract %dy[{{.*}}] : tensor<1x2x5x5xf32>
// CHECK:         arith.minui
// CHECK:         arith.maxui
// CHECK:         arith.minui
// CHECK:         arith.maxui
// CHECK:         %[[COUNT:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK:         arith.divf %[[D]], %[[COUNT]] : f32
// CHECK-NOT:   rlx.
func.func @avg_exclude_pad(%dy: tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32>
  return %dx : tensor<1x2x9x9xf32>
}

// -----

// Windows that tile the input (k2 s2): dy / 4 broadcast over each window by one
// all-parallel generic that reads dy at (n, c, oh, ow); no gather, no tensor.extract.
// CHECK-LABEL: func.func @avg_k2s2
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-SAME:    ins(%dy : tensor<1x1x4x4xf32>) outs(%{{.*}} : tensor<1x1x4x2x4x2xf32>)
// CHECK-NOT:     tensor.extract
// CHECK:         arith.constant 4.000000e+00 : f32
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<1x1x4x2x4x2xf32> into tensor<1x1x8x8xf32>
// CHECK-NOT:   rlx.
func.func @avg_k2s2(%dy: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// Stride larger than the kernel, with a last row and column no window reaches (k2 s3 on
// 9x9 -> 3x3 windows covering rows 0-1, 3-4, 6-7): the `kh < KH` test leaves them 0.
// CHECK-LABEL: func.func @avg_stride_exceeds_kernel
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<1x1xf32>) outs(%{{.*}} : tensor<1x1x9x9xf32>)
// CHECK:         arith.cmpi ult
// CHECK-NOT:   rlx.
func.func @avg_stride_exceeds_kernel(%dy: tensor<1x1x3x3xf32>) -> tensor<1x1x9x9xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [3, 3] padding [0, 0] : (tensor<1x1x3x3xf32>) -> tensor<1x1x9x9xf32>
  return %dx : tensor<1x1x9x9xf32>
}

// -----

// Rectangular kernel, stride and padding (k3x1 s1x2 p1x0): 3x1 candidate windows.
// CHECK-LABEL: func.func @avg_rectangular
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x1x5x6xf32>)
// CHECK:         arith.constant 3.000000e+00 : f32
// CHECK-NOT:   rlx.
func.func @avg_rectangular(%dy: tensor<2x1x5x3xf32>) -> tensor<2x1x5x6xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 1] stride [1, 2] padding [1, 0] : (tensor<2x1x5x3xf32>) -> tensor<2x1x5x6xf32>
  return %dx : tensor<2x1x5x6xf32>
}

// -----

// Dynamic batch, f64, tiling windows: the tiles take their batch size from dy and stay
// f64; every window holds KH*KW real cells, so count_include_pad does not matter.
// CHECK-LABEL: func.func @avg_dynamic_batch_f64
// CHECK:       %[[N:.*]] = tensor.dim %dy, %{{.*}} : tensor<?x3x4x4xf64>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x4x2x4x2xf64>
// CHECK:       linalg.generic
// CHECK:         arith.constant 4.000000e+00 : f64
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:       } -> tensor<?x3x4x2x4x2xf64>
// CHECK:       %[[DX:.*]] = tensor.collapse_shape %{{.*}} : tensor<?x3x4x2x4x2xf64> into tensor<?x3x8x8xf64>
// CHECK:       return %[[DX]] : tensor<?x3x8x8xf64>
// CHECK-NOT:   rlx.
func.func @avg_dynamic_batch_f64(%dy: tensor<?x3x4x4xf64>) -> tensor<?x3x8x8xf64> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] count_include_pad false : (tensor<?x3x4x4xf64>) -> tensor<?x3x8x8xf64>
  return %dx : tensor<?x3x8x8xf64>
}
