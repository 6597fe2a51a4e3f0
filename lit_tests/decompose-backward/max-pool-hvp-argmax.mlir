// RUN: rlx-opt %s --autodiff="func=pool" --jvp="func=pool_vjp" --decompose-backward --convert-rlx-to-linalg | mlir-opt --cse | FileCheck %s

// Forward over reverse through a max pool whose windows tile: the tangent's gather
// (`rlx.max_pool2d_gather`) and both gradients (`rlx.max_pool2d_backward`, of y_bar and of
// its tangent) read the same x, and build its argmax in one form, so that CSE keeps one:
// a single scan of the 2x2 window (three replacement tests, each with its NaN check).
// CHECK-LABEL: func.func @pool_vjp_jvp
// CHECK:         linalg.pooling_nchw_max
// CHECK-COUNT-3: arith.cmpf uno
// CHECK-NOT:     arith.cmpf uno
// CHECK:         return
func.func @pool(%x: tensor<2x3x6x8xf32>) -> tensor<2x3x3x4xf32> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x3x6x8xf32>) -> tensor<2x3x3x4xf32>
  %t = rlx.exp %y : (tensor<2x3x3x4xf32>) -> tensor<2x3x3x4xf32>
  return %t : tensor<2x3x3x4xf32>
}
