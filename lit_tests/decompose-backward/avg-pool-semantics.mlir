// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward --split-input-file | mlir-opt --split-input-file > /dev/null

// dx[n, c, *i] = sum over the windows o containing i of dy[n, c, *o] / divisor(o), with
// PyTorch's divisor. The rank-generic form: dy / divisor once per window (an all-parallel
// generic), then one gather over the ceil(K/S) candidate windows per axis.

// ceil mode adds a window that overhangs the padded input (6 + 1 + 1 - 3: 3 -> 4 rows);
// count_include_pad clips it there: min(o*2 + 3, 6 + 1 + 1) - o*2 rows. The columns
// (low 0, high 1) fit the padded input: a constant 3. Per-side padding [1, 0, 1, 1].
// CHECK-LABEL: func.func @avg2d_ceil_per_side_include_pad
// CHECK:       %[[SCALED:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%dy : tensor<?x2x4x3xf32>)
// CHECK:         arith.constant 8 : index
// CHECK:         arith.minui
// CHECK:         arith.sitofp
// CHECK:         arith.divf
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<?x2x6x6xf32>)
// CHECK:         tensor.extract %[[SCALED]][{{.*}}] : tensor<?x2x4x3xf32>
// CHECK:         arith.addf
// CHECK:       return %[[DX]]
// CHECK-NOT:   rlx.
func.func @avg2d_ceil_per_side_include_pad(%dy: tensor<?x2x4x3xf32>) -> tensor<?x2x6x6xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 0, 1, 1] ceil_mode true : (tensor<?x2x4x3xf32>) -> tensor<?x2x6x6xf32>
  return %dx : tensor<?x2x6x6xf32>
}

// -----

// divisor_override: a constant divisor, whatever count_include_pad says.
// CHECK-LABEL: func.func @avg2d_ceil_divisor_override
// CHECK:       linalg.generic
// CHECK-NOT:     arith.minui
// CHECK:         %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK:         arith.divf %{{.*}}, %[[FIVE]] : f32
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:   rlx.
func.func @avg2d_ceil_divisor_override(%dy: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true count_include_pad false divisor_override 5 : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  return %dx : tensor<1x2x6x6xf32>
}

// -----

// A ceil mode that adds no window (7 + 2 - 3 is even) is floor mode: today's 2-D window
// gather, dividing in its body, with no scaled copy of dy.
// CHECK-LABEL: func.func @avg2d_ceil_same_size
// CHECK-COUNT-1: linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK:         tensor.extract %dy
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   rlx.
func.func @avg2d_ceil_same_size(%dy: tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true count_include_pad false : (tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
  return %dx : tensor<1x2x7x7xf32>
}

// -----

// Tiling windows with divisor_override: today's tiled form, dividing by the override.
// CHECK-LABEL: func.func @avg2d_tiled_divisor_override
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK:         arith.constant 3.000000e+00 : f32
// CHECK:       tensor.collapse_shape
// CHECK-NOT:   rlx.
func.func @avg2d_tiled_divisor_override(%dy: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] divisor_override 3 : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// 3-D without count_include_pad: the cells inside the input per axis,
// min(o*S + K, size + low) - max(o*S, low), multiplied; 2x2x2 candidates per cell.
// CHECK-LABEL: func.func @avg3d_ceil_exclude_pad
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-COUNT-3: arith.maxui
// CHECK:         arith.divf
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x2x2xf64>) outs(%{{.*}} : tensor<?x2x5x6x7xf64>)
// CHECK:         tensor.extract
// CHECK:         arith.addf
// CHECK-NOT:   rlx.
func.func @avg3d_ceil_exclude_pad(%dy: tensor<?x2x3x4x4xf64>) -> tensor<?x2x5x6x7xf64> {
  %dx = rlx.avg_pool3d_backward %dy kernel_size [3, 3, 3] stride [2, 2, 2] padding [1, 1, 1] ceil_mode true count_include_pad false : (tensor<?x2x3x4x4xf64>) -> tensor<?x2x5x6x7xf64>
  return %dx : tensor<?x2x5x6x7xf64>
}
