// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// clamp_backward: dx = lo <= x && x <= hi ? dy : 0, ordered compares (a NaN x gets 0).
// CHECK-LABEL: func.func @clamp_backward_both
// CHECK:       arith.cmpf oge
// CHECK:       arith.cmpf ole
// CHECK-NEXT:  %[[IN:.*]] = arith.andi
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:  arith.select %[[IN]], %{{.*}}, %[[Z]] : f64
// CHECK-NOT:   rlx.
func.func @clamp_backward_both(%dy: tensor<2x3xf64>, %x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = rlx.clamp_backward %dy, %x min -1.0 max 2.0 : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// One bound: one compare.
// CHECK-LABEL: func.func @clamp_backward_max
// CHECK:       arith.cmpf ole
// CHECK-NOT:   arith.andi
// CHECK:       arith.select
func.func @clamp_backward_max(%dy: tensor<?x3xf32>, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = rlx.clamp_backward %dy, %x max 6.0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
