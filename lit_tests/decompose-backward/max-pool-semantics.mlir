// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward="pool-ties=all" --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: rlx-opt %s --decompose-backward --split-input-file | mlir-opt --split-input-file > /dev/null

// PyTorch's whole max-pool window (dilation, ceil_mode, per-side padding) and the 3-D op
// take the rank-generic reduction form: the argmax scans the window's cells
// `o*s - pl + k*d` (one reduction loop per axis, cells outside the input skipped), then dx
// gathers over each cell's ceil(extent/s) candidate windows per axis. The 2-D fast paths
// (the phase gathers, the tiled gather) decline these windows.

// Dilation 2: the cell of tap k is `o*1 - 1 + k*2`; no stride-phase generic.
// CHECK-LABEL: func.func @dilated
// CHECK-NOT:   tensor.pad
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<?x2x9x10xf32> into tensor<?x2x90xf32>
// CHECK:       %[[A:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<3x3xf32>) outs(%{{.*}} : tensor<?x2x7x8xi32>)
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         arith.muli %{{.*}}, %[[TWO]] : index
// CHECK:         arith.cmpi ult
// CHECK:         tensor.extract %[[FLAT]]
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       } -> tensor<?x2x7x8xi32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<5x5xf32>) outs(%{{.*}} : tensor<?x2x9x10xf32>)
// CHECK:         tensor.extract %[[A]]
// CHECK:         arith.cmpi eq
// CHECK:         tensor.extract %dy
// CHECK:         arith.addf
// CHECK:       } -> tensor<?x2x9x10xf32>
// CHECK-NOT:   rlx.
// ties=all: the window max over x padded with -inf, read at o*1 + k*2.
// ALL-LABEL:   func.func @dilated
// ALL:         tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// ALL:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 + (d4 * 2)), (d3 + (d5 * 2)))>
// ALL:           arith.maximumf
// ALL:         linalg.generic
// ALL-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// ALL:           arith.remui
// ALL:           arith.cmpf oeq
func.func @dilated(%x: tensor<?x2x9x10xf32>, %dy: tensor<?x2x7x8xf32>) -> tensor<?x2x9x10xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] dilation [2, 2] : (tensor<?x2x9x10xf32>, tensor<?x2x7x8xf32>) -> tensor<?x2x9x10xf32>
  return %dx : tensor<?x2x9x10xf32>
}

// -----

// ceil_mode adding a window (8 -> 4 windows of 3 at stride 2, the last one reading past
// the input): the reduction form, whose bounds check skips the missing cells.
// CHECK-LABEL: func.func @ceil_adds_a_window
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<1x2x4x4xi32>)
// CHECK:         arith.cmpi ult
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<1x2x8x8xf32>)
// CHECK-NOT:   rlx.
// ties=all: x padded by the reach of the last window (1 past the input, no high padding).
// ALL-LABEL:   func.func @ceil_adds_a_window
// ALL:         tensor.pad %x low[0, 0, 0, 0] high[0, 0, 1, 1]
func.func @ceil_adds_a_window(%x: tensor<1x2x8x8xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<1x2x8x8xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return %dx : tensor<1x2x8x8xf32>
}

// -----

// A ceil_mode that adds no window (9 -> 5 windows either way) is floor mode: the 2-D fast
// path (strided stride-phase slices, no reduction loops in the gather) still applies.
// CHECK-LABEL: func.func @ceil_adds_nothing
// CHECK:       tensor.extract_slice %x[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 2, 5, 5] [1, 1, 2, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT:   rlx.
func.func @ceil_adds_nothing(%x: tensor<1x2x9x9xf32>, %dy: tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true : (tensor<1x2x9x9xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32>
  return %dx : tensor<1x2x9x9xf32>
}

// -----

// Per-side padding [0, 1, 1, 0]: the scan subtracts the low padding of each axis (0 rows,
// 1 column); the gather's candidates start at floor((i + low) / s).
// CHECK-LABEL: func.func @per_side
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<1x2x4x4xi32>)
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x9x8xf32>)
// CHECK-NOT:   rlx.
// ALL-LABEL:   func.func @per_side
// ALL:         tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 0]
func.func @per_side(%x: tensor<1x2x9x8xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<1x2x9x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [0, 1, 1, 0] : (tensor<1x2x9x8xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x9x8xf32>
  return %dx : tensor<1x2x9x8xf32>
}

// -----

// 3-D, dilated, dynamic batch: the same two generics with one more window loop and one
// more candidate loop; x is read as [N, C, D*H*W].
// CHECK-LABEL: func.func @three_d
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64, 4 : i64]] : tensor<?x2x6x7x8xf32> into tensor<?x2x336xf32>
// CHECK:       %[[A:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x3x2xf32>) outs(%{{.*}} : tensor<?x2x6x4x3xi32>)
// CHECK:       } -> tensor<?x2x6x4x3xi32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<3x2x2xf32>) outs(%{{.*}} : tensor<?x2x6x7x8xf32>)
// CHECK:         tensor.extract %[[A]]
// CHECK:         tensor.extract %dy
// CHECK:       } -> tensor<?x2x6x7x8xf32>
// CHECK-NOT:   rlx.
// ALL-LABEL:   func.func @three_d
// ALL:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, (d2 + (d5 * 2)), ((d3 * 2) + d6), ((d4 * 2) + (d7 * 3)))>
func.func @three_d(%x: tensor<?x2x6x7x8xf32>, %dy: tensor<?x2x6x4x3xf32>) -> tensor<?x2x6x7x8xf32> {
  %dx = rlx.max_pool3d_backward %x, %dy kernel_size [2, 3, 2] stride [1, 2, 2] padding [1, 1, 0] dilation [2, 1, 3] : (tensor<?x2x6x7x8xf32>, tensor<?x2x6x4x3xf32>) -> tensor<?x2x6x7x8xf32>
  return %dx : tensor<?x2x6x7x8xf32>
}
