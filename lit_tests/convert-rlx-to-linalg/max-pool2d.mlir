// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// y[n, c, oh, ow] = max_{kh, kw} xpad[n, c, oh*sh + kh, ow*sw + kw], xpad padded with -inf

// Padding is -inf, the init is -inf (one constant for both): a padded cell never wins.
// The named op's body is max(out, in) (checked in the generic form, which is what the
// backend hands mlir-opt).
// CHECK-LABEL: func.func @max_k3s2p1
// CHECK:       %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK:       %[[XPAD:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         tensor.yield %[[NEG_INF]] : f32
// CHECK:       } : tensor<2x3x8x8xf32> to tensor<2x3x10x10xf32>
// CHECK-NOT:   arith.constant
// CHECK:       %[[INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK:       %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:       %[[Y:.*]] = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK-SAME:    ins(%[[XPAD]], %[[WINDOW]] : tensor<2x3x10x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<2x3x4x4xf32>)
// CHECK:       return %[[Y]]
// CHECK-NOT:   rlx.
func.func @max_k3s2p1(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// No padding; the last row and column of an 8x8 input belong to no 3x3 stride-2 window.
// CHECK-LABEL: func.func @max_unpadded_last_window_short
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.pooling_nchw_max {{.*}} ins(%x, %{{.*}} : tensor<1x3x8x8xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK-NOT:   rlx.
func.func @max_unpadded_last_window_short(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [0, 0] : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

// A rectangular window, stride and padding per axis.
// CHECK-LABEL: func.func @max_rectangular
// CHECK:       tensor.pad %x low[0, 0, 1, 0] high[0, 0, 1, 0]
// CHECK:       linalg.pooling_nchw_max {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : tensor<1x3x9x9xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<1x3x7x4xf32>)
// CHECK-NOT:   rlx.
func.func @max_rectangular(%x: tensor<1x3x7x9xf32>) -> tensor<1x3x7x4xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 2] stride [1, 2] padding [1, 0] : (tensor<1x3x7x9xf32>) -> tensor<1x3x7x4xf32>
  return %y : tensor<1x3x7x4xf32>
}

// -----

// A dynamic batch: the pad keeps it, the init reads it from x.
// CHECK-LABEL: func.func @max_dynamic_batch
// CHECK:       } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x8x8xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x4x4xf32>
// CHECK:       linalg.pooling_nchw_max {{.*}} -> tensor<?x3x4x4xf32>
// CHECK-NOT:   rlx.
func.func @max_dynamic_batch(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  return %y : tensor<?x3x4x4xf32>
}

// -----

// f64 and f16 keep their element type, -inf included.
// CHECK-LABEL: func.func @max_f64
// CHECK:       arith.constant 0xfff0000000000000 : f64
// CHECK:       linalg.pooling_nchw_max {{.*}} -> tensor<1x2x2x2xf64>
// CHECK-NOT:   rlx.
func.func @max_f64(%x: tensor<1x2x4x4xf64>) -> tensor<1x2x2x2xf64> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xf64>) -> tensor<1x2x2x2xf64>
  return %y : tensor<1x2x2x2xf64>
}

// CHECK-LABEL: func.func @max_f16
// CHECK:       arith.constant 0xfc00 : f16
// CHECK:       linalg.pooling_nchw_max {{.*}} -> tensor<1x2x2x2xf16>
// CHECK-NOT:   rlx.
func.func @max_f16(%x: tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16>
  return %y : tensor<1x2x2x2xf16>
}
