// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --decompose-backward --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// The adjoint ops (dialects/adjoint.py) lowered by decompose-backward, in gather form
// (every output indexed by the loop dims alone, the reads by tensor.extract):
//   max-pool gather   g[n, c, *o] = z[n, c, a[n, c, *o]], a = the first argmax of window o
//                     of x: one scan generic (parallel over the output, reduction over the
//                     kernel) writes a as flat indices into x viewed as [N, C, prod(spatial)],
//                     then one all-parallel generic reads z, viewed alike, at a.
//   adaptive gather   the same, the scan over the largest adaptive window.
//   col2im            x[n, c, *i] = sum over the kernel cells k of the column entry of the
//                     one window o = (i + pl - k*d) / s that copied cell i there, when the
//                     division is exact and o is in range: one generic, parallel over x,
//                     reduction over the kernel.
// Nothing is unrolled (the IR does not grow with the sizes); no RLX op is left, and upstream
// mlir-opt 22 verifies all of it (UPSTREAM).

// Overlapping windows with padding (k3 s2 p1 on 9x9): out-of-bounds cells are skipped by an
// unsigned compare; a cell wins when `v > max || isnan(v)` (PyTorch's first maximum).
// CHECK-LABEL: func.func @max_pool2d_gather_k3s2p1
// CHECK-NOT:   tensor.pad
// CHECK:       %[[A0:.*]] = tensor.empty() : tensor<1x2x5x5xi32>
// CHECK:       %[[XF:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<1x2x9x9xf32> into tensor<1x2x81xf32>
// CHECK:       %[[K:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:       %[[A:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[K]] : tensor<3x3xf32>) outs(%[[A0]] : tensor<1x2x5x5xi32>)
// CHECK:         arith.cmpi ult
// CHECK:         tensor.extract %[[XF]][{{.*}}] : tensor<1x2x81xf32>
// CHECK:         tensor.extract %[[XF]][{{.*}}] : tensor<1x2x81xf32>
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       } -> tensor<1x2x5x5xi32>
// CHECK:       %[[ZF:.*]] = tensor.collapse_shape %z {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<1x2x9x9xf32> into tensor<1x2x81xf32>
// CHECK:       %[[G0:.*]] = tensor.empty() : tensor<1x2x5x5xf32>
// CHECK:       %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[A]] : tensor<1x2x5x5xi32>) outs(%[[G0]] : tensor<1x2x5x5xf32>)
// CHECK-NEXT:  ^bb0(%[[AT:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:    %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[AT]] : i32 to index
// CHECK-NEXT:    %[[V:.*]] = tensor.extract %[[ZF]][%[[N]], %[[C]], %[[I]]] : tensor<1x2x81xf32>
// CHECK-NEXT:    linalg.yield %[[V]] : f32
// CHECK:       return %[[G]]
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @max_pool2d_gather_k3s2p1
// UPSTREAM:       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// UPSTREAM:       iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// UPSTREAM-NOT:   rlx.
func.func @max_pool2d_gather_k3s2p1(%x: tensor<1x2x9x9xf32>, %z: tensor<1x2x9x9xf32>) -> tensor<1x2x5x5xf32> {
  %g = rlx.max_pool2d_gather %x, %z kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x2x9x9xf32>, tensor<1x2x9x9xf32>) -> tensor<1x2x5x5xf32>
  return %g : tensor<1x2x5x5xf32>
}

// -----

// A dynamic batch: both generics' outputs take it from x.
// CHECK-LABEL: func.func @max_pool2d_gather_dynamic_batch_k3s2p1
// CHECK:       %[[NB:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x9x9xf32>
// CHECK:       tensor.empty(%[[NB]]) : tensor<?x3x5x5xi32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<3x3xf32>) outs(%{{.*}} : tensor<?x3x5x5xi32>)
// CHECK:       tensor.collapse_shape %z {{.*}} : tensor<?x3x9x9xf32> into tensor<?x3x81xf32>
// CHECK:       tensor.empty(%[[NB]]) : tensor<?x3x5x5xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.*}} : tensor<?x3x5x5xf32>)
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @max_pool2d_gather_dynamic_batch_k3s2p1
// UPSTREAM-NOT:   rlx.
func.func @max_pool2d_gather_dynamic_batch_k3s2p1(%x: tensor<?x3x9x9xf32>, %z: tensor<?x3x9x9xf32>) -> tensor<?x3x5x5xf32> {
  %g = rlx.max_pool2d_gather %x, %z kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x3x9x9xf32>, tensor<?x3x9x9xf32>) -> tensor<?x3x5x5xf32>
  return %g : tensor<?x3x5x5xf32>
}

// -----

// Windows that tile (stride == kernel, no padding), with a dynamic batch: the winner's
// offset in its window, built as the tiled max-pool gradient builds it (so that an HVP's
// gather and gradients share it after CSE), then z's tiles selected by it; both outputs
// take the batch from x.
// CHECK-LABEL: func.func @max_pool2d_gather_tiled_dynamic_batch
// CHECK:       %[[NB:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x8x8xf32>
// CHECK:       %[[XT:.*]] = tensor.expand_shape %x {{.*}} into tensor<?x3x4x2x4x2xf32>
// CHECK:       tensor.empty(%[[NB]]) : tensor<?x3x4x4xi32>
// CHECK:       %[[A:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[XT]], %[[XT]], %[[XT]], %[[XT]] : {{.*}}) outs(%{{.*}} : tensor<?x3x4x4xi32>)
// CHECK:       %[[ZT:.*]] = tensor.expand_shape %z {{.*}} into tensor<?x3x4x2x4x2xf32>
// CHECK:       tensor.empty(%[[NB]]) : tensor<?x3x4x4xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[A]], %[[ZT]], %[[ZT]], %[[ZT]], %[[ZT]] : {{.*}}) outs(%{{.*}} : tensor<?x3x4x4xf32>)
// CHECK-COUNT-3: arith.select %{{.*}} : f32
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @max_pool2d_gather_tiled_dynamic_batch
// UPSTREAM-NOT:   rlx.
func.func @max_pool2d_gather_tiled_dynamic_batch(%x: tensor<?x3x8x8xf32>, %z: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %g = rlx.max_pool2d_gather %x, %z kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  return %g : tensor<?x3x4x4xf32>
}

// -----

// 3-D (k3 s2 p1 on 5^3): the same two generics, 5 parallel and 3 reduction loops.
// CHECK-LABEL: func.func @max_pool3d_gather
// CHECK:       %[[XF:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64, 4 : i64]] : tensor<1x2x5x5x5xf32> into tensor<1x2x125xf32>
// CHECK:       %[[A:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<3x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x3x3xi32>)
// CHECK:         tensor.extract %[[XF]]
// CHECK:       } -> tensor<1x2x3x3x3xi32>
// CHECK:       %[[ZF:.*]] = tensor.collapse_shape %z {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64, 4 : i64]] : tensor<1x2x5x5x5xf32> into tensor<1x2x125xf32>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[A]] : tensor<1x2x3x3x3xi32>) outs(%{{.*}} : tensor<1x2x3x3x3xf32>)
// CHECK:         tensor.extract %[[ZF]]
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @max_pool3d_gather
// UPSTREAM:       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// UPSTREAM:       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// UPSTREAM-NOT:   rlx.
func.func @max_pool3d_gather(%x: tensor<1x2x5x5x5xf32>, %z: tensor<1x2x5x5x5xf32>) -> tensor<1x2x3x3x3xf32> {
  %g = rlx.max_pool3d_gather %x, %z kernel_size [3, 3, 3] stride [2, 2, 2] padding [1, 1, 1] : (tensor<1x2x5x5x5xf32>, tensor<1x2x5x5x5xf32>) -> tensor<1x2x3x3x3xf32>
  return %g : tensor<1x2x3x3x3xf32>
}

// -----

// 1-D: the 2-D gather over a unit height (transforms/unit_height.py), collapsed back.
// CHECK-LABEL: func.func @max_pool1d_gather
// CHECK:       tensor.expand_shape %x {{.*}} output_shape [2, 3, 1, 9] : tensor<2x3x9xf32> into tensor<2x3x1x9xf32>
// CHECK:       tensor.expand_shape %z {{.*}} output_shape [2, 3, 1, 9] : tensor<2x3x9xf32> into tensor<2x3x1x9xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<1x3xf32>) outs(%{{.*}} : tensor<2x3x1x5xi32>)
// CHECK:       %[[G:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x3x1x5xf32>)
// CHECK:       tensor.collapse_shape %[[G]] {{.*}} : tensor<2x3x1x5xf32> into tensor<2x3x5xf32>
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @max_pool1d_gather
// UPSTREAM-NOT:   rlx.
func.func @max_pool1d_gather(%x: tensor<2x3x9xf32>, %z: tensor<2x3x9xf32>) -> tensor<2x3x5xf32> {
  %g = rlx.max_pool1d_gather %x, %z kernel_size [3] stride [2] padding [1] : (tensor<2x3x9xf32>, tensor<2x3x9xf32>) -> tensor<2x3x5xf32>
  return %g : tensor<2x3x5xf32>
}

// -----

// Adaptive 5x7 -> 3x3: window o along an axis of size L into O is [floor(o L / O), ceil((o + 1) L / O)),
// at most 3 cells along each axis here, so the scan runs over a 3x3 kernel and skips the
// cells past each window's end.
// CHECK-LABEL: func.func @adaptive_max_pool2d_gather
// CHECK:       %[[XF:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<1x2x5x7xf64> into tensor<1x2x35xf64>
// CHECK:       %[[K:.*]] = tensor.empty() : tensor<3x3xf64>
// CHECK:       %[[A:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[K]] : tensor<3x3xf64>) outs(%{{.*}} : tensor<1x2x3x3xi32>)
// CHECK:         arith.divui
// CHECK:         arith.cmpi ult
// CHECK:         tensor.extract %[[XF]]
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       } -> tensor<1x2x3x3xi32>
// CHECK:       %[[ZF:.*]] = tensor.collapse_shape %z {{.*}} : tensor<1x2x5x7xf64> into tensor<1x2x35xf64>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[A]] : tensor<1x2x3x3xi32>) outs(%{{.*}} : tensor<1x2x3x3xf64>)
// CHECK:         tensor.extract %[[ZF]]
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @adaptive_max_pool2d_gather
// UPSTREAM-NOT:   rlx.
func.func @adaptive_max_pool2d_gather(%x: tensor<1x2x5x7xf64>, %z: tensor<1x2x5x7xf64>) -> tensor<1x2x3x3xf64> {
  %g = rlx.adaptive_max_pool2d_gather %x, %z : (tensor<1x2x5x7xf64>, tensor<1x2x5x7xf64>) -> tensor<1x2x3x3xf64>
  return %g : tensor<1x2x3x3xf64>
}

// -----

// 3-D adaptive 4x5x6 -> 2x2x3: largest windows 2, 3, 2.
// CHECK-LABEL: func.func @adaptive_max_pool3d_gather
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x3x2xf32>) outs(%{{.*}} : tensor<1x2x2x2x3xi32>)
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.*}} : tensor<1x2x2x2x3xf32>)
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @adaptive_max_pool3d_gather
// UPSTREAM-NOT:   rlx.
func.func @adaptive_max_pool3d_gather(%x: tensor<1x2x4x5x6xf32>, %z: tensor<1x2x4x5x6xf32>) -> tensor<1x2x2x2x3xf32> {
  %g = rlx.adaptive_max_pool3d_gather %x, %z : (tensor<1x2x4x5x6xf32>, tensor<1x2x4x5x6xf32>) -> tensor<1x2x2x2x3xf32>
  return %g : tensor<1x2x2x2x3xf32>
}

// -----

// col2im, k3 s2 p2 d2 into 8x8 (out 4x4): per axis t = i + 2 - 2k, a window when t >= 0,
// t % 2 == 0 and t / 2 < 4; the column is (n * 16 + o_h * 4 + o_w, c * 9 + k_h * 3 + k_w).
// The kernel-shaped empty tensor only gives the reduction loops their extent.
// CHECK-LABEL: func.func @col2im2d
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:       %[[K:.*]] = tensor.empty() : tensor<3x3xf64>
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<1x3x8x8xf64>
// CHECK:       %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%[[E]] : tensor<1x3x8x8xf64>)
// CHECK:       %[[X:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[K]] : tensor<3x3xf64>) outs(%[[INIT]] : tensor<1x3x8x8xf64>)
// CHECK:         arith.cmpi sge
// CHECK:         arith.divsi
// CHECK:         arith.remsi
// CHECK:         arith.cmpi slt
// CHECK:         %[[V:.*]] = tensor.extract %cols[%{{.*}}, %{{.*}}] : tensor<16x27xf64>
// CHECK:         %[[S:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f64
// CHECK:         %[[ACC:.*]] = arith.addf %{{.*}}, %[[S]] : f64
// CHECK:         linalg.yield %[[ACC]] : f64
// CHECK:       return %[[X]]
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @col2im2d
// UPSTREAM:       linalg.fill
// UPSTREAM:       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// UPSTREAM-NOT:   rlx.
func.func @col2im2d(%cols: tensor<16x27xf64>) -> tensor<1x3x8x8xf64> {
  %x = rlx.col2im2d %cols kernel_size [3, 3] stride [2, 2] padding [2, 2] dilation [2, 2] : (tensor<16x27xf64>) -> tensor<1x3x8x8xf64>
  return %x : tensor<1x3x8x8xf64>
}

// -----

// 3-D col2im: 5 parallel loops over x, 3 reduction loops over the 2x2x2 kernel.
// CHECK-LABEL: func.func @col2im3d
// CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x4x4x4xf32>)
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x2x2xf32>) outs(%{{.*}} : tensor<1x2x4x4x4xf32>)
// CHECK:         tensor.extract %cols[%{{.*}}, %{{.*}}] : tensor<27x16xf32>
// CHECK:         arith.addf
// CHECK-NOT:   rlx.
// UPSTREAM-LABEL: func.func @col2im3d
// UPSTREAM-NOT:   rlx.
func.func @col2im3d(%cols: tensor<27x16xf32>) -> tensor<1x2x4x4x4xf32> {
  %x = rlx.col2im3d %cols kernel_size [2, 2, 2] stride [1, 1, 1] padding [0, 0, 0] : (tensor<27x16xf32>) -> tensor<1x2x4x4x4xf32>
  return %x : tensor<1x2x4x4x4xf32>
}
