// RUN: rlx-opt %s --autodiff="func=masked_loss" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=masked_loss" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// A loss computed from floats beside comparisons, logical ops and any/all: their i1
// results carry no cotangent, so the gradient is the float math's alone, and none of them
// is read by the VJP (dead-code elimination drops the clones).
// CHECK-LABEL: func.func @masked_loss_vjp
// CHECK-SAME:    (%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %loss_bar: tensor<f32>, %mask_bar: tensor<2x3xi1>, %flag_bar: tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NOT:     rlx.eq
// CHECK-NOT:     rlx.logical_
// CHECK-NOT:     rlx.any
// CHECK:         rlx.mul
// CHECK:         func.return
func.func @masked_loss(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<f32>, tensor<2x3xi1>, tensor<i1>) {
  %d = rlx.sub %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sq = rlx.mul %d, %d : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %loss = rlx.sum %sq dims [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  %eq = rlx.eq %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %gt = rlx.gt %d, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %mask = rlx.logical_or %eq, %gt : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %flag = rlx.any %mask : (tensor<2x3xi1>) -> tensor<i1>
  return %loss, %mask, %flag : tensor<f32>, tensor<2x3xi1>, tensor<i1>
}
