// RUN: rlx-opt %s --decompose-backward=pool-ties=all --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward=pool-ties=all --split-input-file | FileCheck %s --check-prefix=NOTAG
// No op carries a schedule tag (the backend selects the generics by their shape).
// NOTAG-NOT: pool_schedule

// pool-ties=all (RLX's fast-path semantics, for every geometry): every cell equal to its
// window's max takes that window's dy. No argmax: the gather compares the cell with the
// window max.

// Overlapping windows (k3 s2 p1): the max over the -inf padded input, then a gather over
// the 2x2 candidate windows that reads the cell itself and each window's max and dy.
// CHECK-LABEL: func.func @all_k3s2p1_overlapping
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       %[[MAX:.*]] = linalg.generic
// CHECK-SAME:    ins(%[[XPAD]], %{{.*}} : tensor<1x2x9x9xf32>, tensor<3x3xf32>)
// CHECK:         arith.maximumf
// CHECK:       } -> tensor<1x2x4x4xf32>
// CHECK-NOT:   xi32>
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    ins(%x, %{{.*}} : tensor<1x2x7x7xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x7x7xf32>)
// CHECK:       ^bb0(%[[CELL:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:         %[[M:.*]] = tensor.extract %[[MAX]][{{.*}}] : tensor<1x2x4x4xf32>
// CHECK:         arith.cmpf oeq, %[[CELL]], %[[M]] : f32
// CHECK:         tensor.extract %dy[{{.*}}] : tensor<1x2x4x4xf32>
// CHECK:       return %[[DX]] : tensor<1x2x7x7xf32>
// CHECK-NOT:   rlx.
func.func @all_k3s2p1_overlapping(%x: tensor<1x2x7x7xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x2x7x7xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
  return %dx : tensor<1x2x7x7xf32>
}

// -----

// Windows that tile the input (k2 s2), RLX's fast path proper: after the window max, one
// all-parallel generic compares each cell of x (viewed as [N, C, Ho, KH, Wo, KW]) with
// its window's max and takes dy where they are equal.
// CHECK-LABEL: func.func @all_k2s2
// CHECK-NOT:   tensor.pad
// CHECK:       %[[MAX:.*]] = linalg.generic
// CHECK:       } -> tensor<1x1x4x4xf32>
// CHECK:       %[[XT:.*]] = tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] output_shape [1, 1, 4, 2, 4, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %[[MAX]], %[[XT]] : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x2x4x2xf32>)
// CHECK:         arith.cmpf oeq
// CHECK:         arith.select
// CHECK-NOT:   rlx.
func.func @all_k2s2(%x: tensor<1x1x8x8xf32>, %dy: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x1x8x8xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// Stride larger than the kernel, rectangular (k2x1 s3x2): one candidate per cell.
// CHECK-LABEL: func.func @all_stride_exceeds_kernel
// CHECK:       affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 3) + d4), ((d3 * 2) + d5))>
// CHECK:       } -> tensor<1x1x3x4xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    tensor<1x1xf32>) outs(%{{.*}} : tensor<1x1x8x8xf32>)
// CHECK-NOT:   rlx.
func.func @all_stride_exceeds_kernel(%x: tensor<1x1x8x8xf32>, %dy: tensor<1x1x3x4xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 1] stride [3, 2] padding [0, 0] : (tensor<1x1x8x8xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// Dynamic batch and f64. x is padded as far as the windows read: 1 low, none high (the
// last window, 2*2 - 1 .. 2*2 + 1, ends at the input's last cell).
// CHECK-LABEL: func.func @all_dynamic_batch_f64
// CHECK:       tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK:       } : tensor<?x3x6x6xf64> to tensor<?x3x7x7xf64>
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x6x6xf64>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x3x3xf64>
// CHECK:         arith.cmpf oeq, %{{.*}}, %{{.*}} : f64
// CHECK:       } -> tensor<?x3x6x6xf64>
// CHECK-NOT:   rlx.
func.func @all_dynamic_batch_f64(%x: tensor<?x3x6x6xf64>, %dy: tensor<?x3x3x3xf64>) -> tensor<?x3x6x6xf64> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x3x6x6xf64>, tensor<?x3x3x3xf64>) -> tensor<?x3x6x6xf64>
  return %dx : tensor<?x3x6x6xf64>
}
