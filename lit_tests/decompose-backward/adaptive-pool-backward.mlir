// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward --split-input-file | mlir-opt --split-input-file > /dev/null

// Adaptive windows [floor(o*n/m), ceil((o+1)*n/m)); the windows containing cell i are
// [floor(i*m/n), ceil((i+1)*m/n)), bounds computed from i in the body.

// Sizes that do not divide (7 -> 3, 5 -> 2): dy / |window| per window, then a gather over
// at most 2 x 2 windows per cell (adaptive_windows_per_cell), masked past the last one.
// CHECK-LABEL: func.func @adaptive_avg2d
// CHECK:       %[[SCALED:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:         arith.divui
// CHECK:         arith.sitofp
// CHECK:         arith.divf
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<?x3x7x5xf32>)
// CHECK:         tensor.extract %[[SCALED]]
// CHECK-NOT:   rlx.
func.func @adaptive_avg2d(%dy: tensor<?x3x3x2xf32>) -> tensor<?x3x7x5xf32> {
  %dx = rlx.adaptive_avg_pool2d_backward %dy : (tensor<?x3x3x2xf32>) -> tensor<?x3x7x5xf32>
  return %dx : tensor<?x3x7x5xf32>
}

// -----

// Sizes that divide (8 -> 4, 6 -> 3): the avg pool with kernel = stride = 2, tiled.
// CHECK-LABEL: func.func @adaptive_avg2d_divides
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK:         arith.constant 4.000000e+00 : f32
// CHECK:       tensor.collapse_shape
// CHECK-NOT:   rlx.
func.func @adaptive_avg2d_divides(%dy: tensor<1x3x4x3xf32>) -> tensor<1x3x8x6xf32> {
  %dx = rlx.adaptive_avg_pool2d_backward %dy : (tensor<1x3x4x3xf32>) -> tensor<1x3x8x6xf32>
  return %dx : tensor<1x3x8x6xf32>
}

// -----

// Adaptive max, 3-D, output larger than the input on one axis: the i32 argmax scans a fixed
// 3x3x1 window loop (adaptive_kernel), skipping cells past each window's end and
// keeping PyTorch's rule (v > max || isnan(v)); then the gather adds dy where argmax == i.
// CHECK-LABEL: func.func @adaptive_max3d
// CHECK:       %[[ARGMAX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<3x3x1xf64>) outs(%{{.*}} : tensor<2x2x3x2x4xi32>)
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x7x5x2xf64>)
// CHECK:         tensor.extract %[[ARGMAX]]
// CHECK:         arith.cmpi eq
// CHECK:         tensor.extract %dy
// CHECK-NOT:   rlx.
func.func @adaptive_max3d(%x: tensor<2x2x7x5x2xf64>, %dy: tensor<2x2x3x2x4xf64>) -> tensor<2x2x7x5x2xf64> {
  %dx = rlx.adaptive_max_pool3d_backward %x, %dy : (tensor<2x2x7x5x2xf64>, tensor<2x2x3x2x4xf64>) -> tensor<2x2x7x5x2xf64>
  return %dx : tensor<2x2x7x5x2xf64>
}

// -----

// Adaptive max whose sizes divide (8 -> 4, 6 -> 3): rlx.max_pool2d_backward kernel = stride
// = 2, rewritten by the max-pool patterns (the tiled argmax over the window's cells).
// CHECK-LABEL: func.func @adaptive_max2d_divides
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x4x3xi32>)
// CHECK-NOT:   rlx.
func.func @adaptive_max2d_divides(%x: tensor<2x2x8x6xf32>, %dy: tensor<2x2x4x3xf32>) -> tensor<2x2x8x6xf32> {
  %dx = rlx.adaptive_max_pool2d_backward %x, %dy : (tensor<2x2x8x6xf32>, tensor<2x2x4x3xf32>) -> tensor<2x2x8x6xf32>
  return %dx : tensor<2x2x8x6xf32>
}

// -----

// A global adaptive max pool (7x7 -> 1x1) divides too: rlx.max_pool2d_backward kernel =
// stride = 7, whose 49 cells take the max-pool reduction form (an argmax over the window,
// a gather over the one candidate window).
// CHECK-LABEL: func.func @adaptive_max2d_global
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<7x7xf32>) outs(%{{.*}} : tensor<?x4x1x1xi32>)
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<1x1xf32>) outs(%{{.*}} : tensor<?x4x7x7xf32>)
// CHECK-NOT:   rlx.
func.func @adaptive_max2d_global(%x: tensor<?x4x7x7xf32>, %dy: tensor<?x4x1x1xf32>) -> tensor<?x4x7x7xf32> {
  %dx = rlx.adaptive_max_pool2d_backward %x, %dy : (tensor<?x4x7x7xf32>, tensor<?x4x1x1xf32>) -> tensor<?x4x7x7xf32>
  return %dx : tensor<?x4x7x7xf32>
}
