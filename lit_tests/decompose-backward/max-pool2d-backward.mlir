// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s --check-prefix=NOTAG

// PyTorch's rule (pool-ties=first, the default): per window the index h*W + w of its
// winner (a cell replaces the running winner when `v > max || isnan(v)`: the first
// maximum, or the last NaN), then a gather over the windows that contain each input cell.
// Upstream dialects only; no scatter, no padded copy of x. No op carries a schedule tag:
// the backend's pool schedule selects the generics by their shape.
// NOTAG-NOT: pool_schedule

// Overlapping windows (k3 s2 p1) on an odd input: the argmax of the windows that overhang
// the padding (first row, first column) scans with bounds checks into a tensor of its own
// (IREE cannot distribute a scan into a slice of a shared tensor), reading x (as
// [N, C, H*W]) at clamped indices; the interior windows read their 3x3 cells as strided
// slices of x in one all-parallel generic. Then dx as 2x2 stride phases, each a strided
// slice of one dx tensor, adding the dy of its candidate windows (slices of dy and the
// argmax) where the argmax is the cell's index: no tensor.extract, no branch.
// CHECK-LABEL: func.func @max_k3s2p1_overlapping
// CHECK-NOT:   tensor.pad
// CHECK:       %[[A0:.*]] = tensor.empty() : tensor<1x2x5x5xi32>
// CHECK:       %[[STRIP:.*]] = tensor.empty() : tensor<1x2x1x5xi32>
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<1x2x9x9xf32> into tensor<1x2x81xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<3x3xf32>) outs(%[[STRIP]] : tensor<1x2x1x5xi32>)
// CHECK:         arith.cmpi ult
// CHECK:         tensor.extract %[[FLAT]][{{.*}}] : tensor<1x2x81xf32>
// CHECK:         tensor.extract %[[FLAT]][{{.*}}] : tensor<1x2x81xf32>
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       } -> tensor<1x2x1x5xi32>
// CHECK:       } -> tensor<1x2x3x1xi32>
// CHECK:       } -> tensor<1x2x3x1xi32>
// CHECK:       tensor.extract_slice %x[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x9x9xf32> to tensor<1x2x3x3xf32>
// CHECK:       tensor.extract_slice %x[0, 0, 3, 3] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x9x9xf32> to tensor<1x2x3x3xf32>
// CHECK:       %[[INNER:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.*}} : tensor<1x2x3x3xi32>)
// CHECK-NOT:     tensor.extract %
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       } -> tensor<1x2x3x3xi32>
// CHECK:       %[[ARGMAX:.*]] = tensor.insert_slice %[[INNER]] into %{{.*}}[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 1, 1]
// CHECK:       %[[DX0:.*]] = tensor.empty() : tensor<1x2x9x9xf32>
// CHECK:       tensor.extract_slice %[[DX0]][0, 0, 0, 0] [1, 2, 5, 5] [1, 1, 2, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<1x2x5x5xf32>, tensor<1x2x5x5xi32>) outs(%{{.*}} : tensor<1x2x5x5xf32>)
// CHECK-NOT:     tensor.extract %
// CHECK:         arith.cmpi eq
// CHECK:         arith.select
// CHECK:         arith.addf
// CHECK:       tensor.extract_slice %dy[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK:       tensor.extract_slice %[[ARGMAX]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK:       %[[LAST:.*]] = linalg.generic
// CHECK:       %[[DX:.*]] = tensor.insert_slice %[[LAST]] into %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2]
// CHECK:       return %[[DX]] : tensor<1x2x9x9xf32>
// CHECK-NOT:   rlx.
func.func @max_k3s2p1_overlapping(%x: tensor<1x2x9x9xf32>, %dy: tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x2x9x9xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x9x9xf32>
  return %dx : tensor<1x2x9x9xf32>
}

// -----

// The same windows on an input the stride divides: the argmax and dy get a frame (-1 and
// 0, filled as border slices) as wide as the candidate windows reach past the last window, and all four phases are
// one generic writing dx as [N, C, H/2, 2, W/2, 2] (loops (n, c, i, a, b, j)), every cell comparing the
// 2x2 union of candidate windows (a window without the cell cannot have it as argmax).
// CHECK-LABEL: func.func @max_k3s2p1_even
// CHECK:       %[[A0:.*]] = tensor.empty() : tensor<1x1x5x5xi32>
// CHECK:       tensor.extract_slice %[[A0]][0, 0, 4, 0] [1, 1, 1, 5] [1, 1, 1, 1]
// CHECK:       linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<1x1x1x5xi32>)
// CHECK:       linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<1x1x4x1xi32>)
// CHECK:       %[[INNER:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x3x3xi32>)
// CHECK:       } -> tensor<1x1x3x3xi32>
// CHECK:       %[[ARGMAX:.*]] = tensor.insert_slice %[[INNER]] into %{{.*}}[0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1] : tensor<1x1x3x3xi32> into tensor<1x1x5x5xi32>
// CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x4x1xf32>)
// CHECK:       %[[ZEROS:.*]] = tensor.insert_slice %{{.*}} : tensor<1x1x4x1xf32> into tensor<1x1x5x5xf32>
// CHECK:       %[[DYSLOT:.*]] = tensor.extract_slice %[[ZEROS]][0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1]
// CHECK:       %[[DYCOPY:.*]] = linalg.generic
// CHECK-SAME:    ins(%dy : tensor<1x1x4x4xf32>) outs(%[[DYSLOT]] : tensor<1x1x4x4xf32>)
// CHECK:       %[[DYF:.*]] = tensor.insert_slice %[[DYCOPY]] into %[[ZEROS]]
// CHECK:       tensor.extract_slice %[[DYF]][0, 0, 1, 1] [1, 1, 4, 4] [1, 1, 1, 1]
// CHECK:       tensor.extract_slice %[[ARGMAX]][0, 0, 1, 1] [1, 1, 4, 4] [1, 1, 1, 1]
// CHECK:       %[[TILES:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5, d4)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.*}} : tensor<1x1x4x2x4x2xf32>)
// CHECK-NOT:     tensor.extract %
// CHECK:         arith.cmpi eq
// CHECK:         arith.select
// CHECK:         arith.addf
// CHECK:       } -> tensor<1x1x4x2x4x2xf32>
// CHECK:       %[[DX:.*]] = tensor.collapse_shape %[[TILES]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<1x1x4x2x4x2xf32> into tensor<1x1x8x8xf32>
// CHECK:       return %[[DX]]
// CHECK-NOT:   rlx.
func.func @max_k3s2p1_even(%x: tensor<1x1x8x8xf32>, %dy: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x1x8x8xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// Windows that tile the input (k2 s2, no padding): no pad and no tensor.extract. The
// argmax reads the window's cells as KH*KW operands (x viewed as [N, C, Ho, KH, Wo, KW])
// and yields the winner's offset kh*KW + kw; one all-parallel generic over
// (n, c, oh, kh, ow, kw) then reads dy and the argmax at (n, c, oh, ow), and dx is its
// [N, C, Ho*KH, Wo*KW] collapse.
// CHECK-LABEL: func.func @max_k2s2
// CHECK-NOT:   tensor.pad
// CHECK:       %[[XT:.*]] = tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] output_shape [1, 1, 4, 2, 4, 2]
// CHECK:       %[[ARGMAX:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1, d3, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1, d3, 1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[XT]], %[[XT]], %[[XT]], %[[XT]] : {{.*}}) outs(%{{.*}} : tensor<1x1x4x4xi32>)
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:       } -> tensor<1x1x4x4xi32>
// CHECK:       %[[TILES:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %[[ARGMAX]] : tensor<1x1x4x4xf32>, tensor<1x1x4x4xi32>) outs(%{{.*}})
// CHECK-NOT:     tensor.extract
// CHECK:         arith.cmpi eq
// CHECK:         arith.select
// CHECK:       } -> tensor<1x1x4x2x4x2xf32>
// CHECK:       %[[DX:.*]] = tensor.collapse_shape %[[TILES]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<1x1x4x2x4x2xf32> into tensor<1x1x8x8xf32>
// CHECK:       return %[[DX]]
// CHECK-NOT:   rlx.
func.func @max_k2s2(%x: tensor<1x1x8x8xf32>, %dy: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x1x8x8xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// Stride larger than the kernel (k2 s3): every window lies inside the input (one
// all-parallel argmax), and each of the 3x3 phases has at most one candidate window; the
// phases between windows have none and are all zeros.
// CHECK-LABEL: func.func @max_stride_exceeds_kernel
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<1x1x3x3xi32>)
// CHECK:       } -> tensor<1x1x3x3xi32>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi32>) outs(%{{.*}} : tensor<1x1x3x3xf32>)
// CHECK:         arith.cmpi eq
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} outs(%{{.*}} : tensor<1x1x2x3xf32>)
// CHECK-NOT:   rlx.
func.func @max_stride_exceeds_kernel(%x: tensor<1x1x8x8xf32>, %dy: tensor<1x1x3x3xf32>) -> tensor<1x1x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [3, 3] padding [0, 0] : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x8x8xf32>
  return %dx : tensor<1x1x8x8xf32>
}

// -----

// Rectangular kernel, stride and padding (k3x2 s2x1 p1x0): the scan runs over 3x2
// windows; with stride 1 along w the phases are whole rows (2x1 phases), the odd rows
// with 2x2 candidate windows.
// CHECK-LABEL: func.func @max_rectangular
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<3x2xf32>) outs(%{{.*}} : tensor<1x1x1x5xi32>)
// CHECK:       } -> tensor<1x1x1x5xi32>
// CHECK:       } -> tensor<1x1x2x5xi32>
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : {{.*}}) outs(%{{.*}} : tensor<1x1x4x6xf32>)
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : {{.*}}) outs(%{{.*}} : tensor<1x1x3x6xf32>)
// CHECK-NOT:   rlx.
func.func @max_rectangular(%x: tensor<1x1x7x6xf32>, %dy: tensor<1x1x4x5xf32>) -> tensor<1x1x7x6xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 2] stride [2, 1] padding [1, 0] : (tensor<1x1x7x6xf32>, tensor<1x1x4x5xf32>) -> tensor<1x1x7x6xf32>
  return %dx : tensor<1x1x7x6xf32>
}

// -----

// A 7x7 kernel at stride 1, padding 3: more cells than the unrolled forms take (16), so
// nothing is unrolled. The argmax is one scan with (kh, kw) reduction loops over the 7x7
// window, and dx one gather with (jh, jw) reduction loops over the 7x7 candidate windows,
// reading the argmax and dy with tensor.extract at clamped indices.
// CHECK-LABEL: func.func @max_k7p3
// CHECK-NOT:   tensor.pad
// CHECK:       %[[ARGMAX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<7x7xf32>) outs(%{{.*}} : tensor<2x3x10x10xi32>)
// CHECK-COUNT-1: arith.cmpf ogt
// CHECK-NOT:     arith.cmpf ogt
// CHECK:       } -> tensor<2x3x10x10xi32>
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<7x7xf32>) outs(%{{.*}} : tensor<2x3x10x10xf32>)
// CHECK:         tensor.extract %[[ARGMAX]]
// CHECK:         tensor.extract %dy
// CHECK-COUNT-1: arith.addf
// CHECK-NOT:     arith.addf
// CHECK:       } -> tensor<2x3x10x10xf32>
// CHECK:       return %[[DX]]
// CHECK-NOT:   rlx.
func.func @max_k7p3(%x: tensor<2x3x10x10xf32>, %dy: tensor<2x3x10x10xf32>) -> tensor<2x3x10x10xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [7, 7] stride [1, 1] padding [3, 3] : (tensor<2x3x10x10xf32>, tensor<2x3x10x10xf32>) -> tensor<2x3x10x10xf32>
  return %dx : tensor<2x3x10x10xf32>
}

// -----

// Dynamic batch: every intermediate takes its batch size from the input.
// CHECK-LABEL: func.func @max_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4x9x9xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x4x5x5xi32>
// CHECK:       } -> tensor<?x4x3x3xi32>
// CHECK:       tensor.empty(%{{.*}}) : tensor<?x4x9x9xf32>
// CHECK:       %[[DX:.*]] = tensor.insert_slice {{.*}} : tensor<?x4x4x4xf32> into tensor<?x4x9x9xf32>
// CHECK:       return %[[DX]] : tensor<?x4x9x9xf32>
// CHECK-NOT:   rlx.
func.func @max_dynamic_batch(%x: tensor<?x4x9x9xf32>, %dy: tensor<?x4x5x5xf32>) -> tensor<?x4x9x9xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x9x9xf32>, tensor<?x4x5x5xf32>) -> tensor<?x4x9x9xf32>
  return %dx : tensor<?x4x9x9xf32>
}

// -----

// f64 stays f64 end to end.
// CHECK-LABEL: func.func @max_f64
// CHECK:         tensor.extract %{{.*}} : tensor<2x2x36xf64>
// CHECK:         arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
// CHECK:         arith.cmpf uno, %{{.*}}, %{{.*}} : f64
// CHECK:         arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:       } -> tensor<2x2x3x2x3x2xf64>
// CHECK-NOT:   rlx.
func.func @max_f64(%x: tensor<2x2x6x6xf64>, %dy: tensor<2x2x3x3xf64>) -> tensor<2x2x6x6xf64> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<2x2x6x6xf64>, tensor<2x2x3x3xf64>) -> tensor<2x2x6x6xf64>
  return %dx : tensor<2x2x6x6xf64>
}

// -----

// Tiling windows that leave a row and a column uncovered (9x7 input, k2 s2): those cells
// get no gradient, so the collapsed tiles are zero-padded on the high side.
// CHECK-LABEL: func.func @max_k2s2_leftover
// CHECK:       tensor.extract_slice %x[0, 0, 0, 0] [1, 1, 8, 6] [1, 1, 1, 1]
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<1x1x4x2x3x2xf32> into tensor<1x1x8x6xf32>
// CHECK:       %[[DX:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:       } : tensor<1x1x8x6xf32> to tensor<1x1x9x7xf32>
// CHECK:       return %[[DX]]
func.func @max_k2s2_leftover(%x: tensor<1x1x9x7xf32>, %dy: tensor<1x1x4x3xf32>) -> tensor<1x1x9x7xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x1x9x7xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x9x7xf32>
  return %dx : tensor<1x1x9x7xf32>
}

// -----

// A global pool (kernel = stride = H = W = 56, output 1x1): the same two reductions,
// over the 56x56 window and over one candidate window. The IR does not grow with the kernel.
// CHECK-LABEL: func.func @max_global56
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<56x56xf32>) outs(%{{.*}} : tensor<1x2x1x1xi32>)
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.*}} : tensor<1x1xf32>) outs(%{{.*}} : tensor<1x2x56x56xf32>)
// CHECK-COUNT-1: arith.addf
// CHECK-NOT:     arith.addf
// CHECK:       return
func.func @max_global56(%x: tensor<1x2x56x56xf32>, %dy: tensor<1x2x1x1xf32>) -> tensor<1x2x56x56xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [56, 56] stride [56, 56] padding [0, 0] : (tensor<1x2x56x56xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x56x56xf32>
  return %dx : tensor<1x2x56x56xf32>
}
