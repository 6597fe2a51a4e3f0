// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// y[n, c, oh, ow] = (sum_{kh, kw} xpad[n, c, oh*sh + kh, ow*sw + kw]) / count(oh, ow)
// The sum is a gather-form generic with a shape-only [KH, KW] window operand; the division
// rewrites the sums in place (an outs-only elementwise generic).

// count_include_pad (the default): the divisor is the whole window, a constant KH*KW = 9.
// CHECK-LABEL: func.func @avg_include_pad
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       } : tensor<2x3x8x8xf32> to tensor<2x3x10x10xf32>
// CHECK:       %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:       %[[ZEROS:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK:       %[[SUMS:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[XPAD]], %[[WINDOW]] : tensor<2x3x10x10xf32>, tensor<3x3xf32>) outs(%[[ZEROS]] : tensor<2x3x4x4xf32>)
// CHECK:         arith.addf
// CHECK:       %[[Y:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%[[SUMS]] : tensor<2x3x4x4xf32>)
// CHECK-NEXT:  ^{{.*}}(%[[SUM:.*]]: f32):
// CHECK-NEXT:    %[[NINE:.*]] = arith.constant 9.000000e+00 : f32
// CHECK-NEXT:    %[[AVG:.*]] = arith.divf %[[SUM]], %[[NINE]] : f32
// CHECK-NEXT:    linalg.yield %[[AVG]] : f32
// CHECK:       return %[[Y]]
// CHECK-NOT:   rlx.
func.func @avg_include_pad(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = rlx.avg_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// count_include_pad false: the divisor counts the window's cells inside the input,
// (min(o*S + K, size + P) - max(o*S, P)) per axis from linalg.index (padded coordinates,
// so unsigned min/max), converted to the element type.
// CHECK-LABEL: func.func @avg_exclude_pad
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK:         %[[OH:.*]] = linalg.index 2 : index
// CHECK:         %[[HSTART:.*]] = arith.muli %[[OH]], %{{.*}} : index
// CHECK:         %[[HEND:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:         %[[HBEGIN:.*]] = arith.maxui %[[HSTART]], %{{.*}} : index
// CHECK:         %[[ROWS:.*]] = arith.subi %[[HEND]], %[[HBEGIN]] : index
// CHECK:         %[[OW:.*]] = linalg.index 3 : index
// CHECK:         arith.minui
// CHECK:         arith.maxui
// CHECK:         %[[COLS:.*]] = arith.subi
// CHECK:         %[[COUNT:.*]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK:         %[[COUNT_I64:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK:         %[[COUNT_F:.*]] = arith.sitofp %[[COUNT_I64]] : i64 to f32
// CHECK:         arith.divf %{{.*}}, %[[COUNT_F]] : f32
// CHECK-NOT:   rlx.
func.func @avg_exclude_pad(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = rlx.avg_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// No padding: no pad, and count_include_pad false still divides by the window (count
// computed, always 4 here).
// CHECK-LABEL: func.func @avg_unpadded_exclude
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.generic {{.*}} ins(%x, %{{.*}} : tensor<1x2x8x8xf32>, tensor<2x2xf32>)
// CHECK:       arith.minui
// CHECK-NOT:   rlx.
func.func @avg_unpadded_exclude(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %y = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] count_include_pad false : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Rectangular window and per-axis stride: the gather map reads oh*2 + kh, ow*1 + kw, and
// the constant divisor is 3*2 = 6.
// CHECK-LABEL: func.func @avg_rectangular
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), (d3 + d5))>
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<1x3x9x11xf32>, tensor<3x2xf32>)
// CHECK:       arith.constant 6.000000e+00 : f32
// CHECK-NOT:   rlx.
func.func @avg_rectangular(%x: tensor<1x3x7x9xf32>) -> tensor<1x3x4x10xf32> {
  %y = rlx.avg_pool2d %x kernel_size [3, 2] stride [2, 1] padding [1, 1] : (tensor<1x3x7x9xf32>) -> tensor<1x3x4x10xf32>
  return %y : tensor<1x3x4x10xf32>
}

// -----

// A dynamic batch and f64: the init reads the batch from x; the count converts to f64.
// CHECK-LABEL: func.func @avg_dynamic_batch_f64
// CHECK:       } : tensor<?x3x8x8xf64> to tensor<?x3x10x10xf64>
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x8x8xf64>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x4x4xf64>
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK:         arith.sitofp %{{.*}} : i64 to f64
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:       } -> tensor<?x3x4x4xf64>
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @avg_dynamic_batch_f64(%x: tensor<?x3x8x8xf64>) -> tensor<?x3x4x4xf64> {
  %y = rlx.avg_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<?x3x8x8xf64>) -> tensor<?x3x4x4xf64>
  return %y : tensor<?x3x4x4xf64>
}
