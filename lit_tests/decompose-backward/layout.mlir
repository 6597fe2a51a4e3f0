// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// dx of y = x[.., start:end:step, ..]: zeros of x's shape with dy inserted at the sliced positions.

// dx[i, 1 + 2 j] = dy[i, j], zero elsewhere: a strided insert_slice into zeros.
// CHECK-LABEL: func.func @slice_backward_step
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<2x7xf32>
// CHECK-NEXT:  %[[Z:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x7xf32>)
// CHECK-NEXT:  %[[DX:.*]] = tensor.insert_slice %dy into %[[Z]][0, 1] [2, 3] [1, 2] : tensor<2x3xf32> into tensor<2x7xf32>
// CHECK-NEXT:  return %[[DX]]
// CHECK-NOT:   rlx.
func.func @slice_backward_step(%dy: tensor<2x3xf32>) -> tensor<2x7xf32> {
  %dx = rlx.slice_backward %dy dim 1 start 1 end 6 step 2 : (tensor<2x3xf32>) -> tensor<2x7xf32>
  return %dx : tensor<2x7xf32>
}

// -----

// Integer zeros; the dynamic leading dim's size comes from dy.
// CHECK-LABEL: func.func @slice_backward_i64_dynamic_leading
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:       %[[N:.*]] = tensor.dim %dy, %{{.*}} : tensor<?x2xi64>
// CHECK-NEXT:  %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x5xi64>
// CHECK-NEXT:  %[[Z:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%[[E]] : tensor<?x5xi64>)
// CHECK:       tensor.insert_slice %dy into %[[Z]][0, 3] [%{{.*}}, 2] [1, 1] : tensor<?x2xi64> into tensor<?x5xi64>
func.func @slice_backward_i64_dynamic_leading(%dy: tensor<?x2xi64>) -> tensor<?x5xi64> {
  %dx = rlx.slice_backward %dy dim 1 start 3 end 5 : (tensor<?x2xi64>) -> tensor<?x5xi64>
  return %dx : tensor<?x5xi64>
}

// -----

// An empty slice's gradient is all zeros: nothing is inserted.
// CHECK-LABEL: func.func @slice_backward_empty_slice
// CHECK:       %[[Z:.*]] = linalg.fill
// CHECK-NOT:   tensor.insert_slice
// CHECK:       return %[[Z]]
func.func @slice_backward_empty_slice(%dy: tensor<0x4xf64>) -> tensor<3x4xf64> {
  %dx = rlx.slice_backward %dy dim 0 start 2 end 2 : (tensor<0x4xf64>) -> tensor<3x4xf64>
  return %dx : tensor<3x4xf64>
}

// -----

// Forward layout ops are convert-rlx-to-linalg's: decompose-backward leaves them.
// CHECK-LABEL: func.func @forward_untouched
// CHECK:       rlx.slice
func.func @forward_untouched(%x: tensor<2x7xf32>) -> tensor<2x3xf32> {
  %y = rlx.slice %x dim 1 start 1 end 6 step 2 : (tensor<2x7xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
