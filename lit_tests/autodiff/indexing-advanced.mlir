// RUN: rlx-opt %s --autodiff="func=pick,add_at,put" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=pick,add_at,put" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// index: x_bar = index_put(0, I, y_bar, accumulate); the index tensors get no cotangent.
// CHECK-LABEL: func.func @pick_vjp
// CHECK-SAME:    (%x: tensor<4x5x3xf32>, %i: tensor<6xi64>, %j: tensor<2x1xi64>, %y_bar: tensor<2x6x3xf32>) -> tensor<4x5x3xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x5x3xf32>
// CHECK-NEXT:    %[[X:.*]] = rlx.index_put %[[ZERO]][%i, %j], %y_bar accumulate true : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<2x1xi64>, tensor<2x6x3xf32>) -> tensor<4x5x3xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @pick(%x: tensor<4x5x3xf32>, %i: tensor<6xi64>, %j: tensor<2x1xi64>) -> tensor<2x6x3xf32> {
  %y = rlx.index %x[%i, %j] : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<2x1xi64>) -> tensor<2x6x3xf32>
  return %y : tensor<2x6x3xf32>
}

// index_put with accumulate: x_bar = y_bar; v_bar = index(y_bar, I), summed over the
// indexed dims the values were broadcast along.
// CHECK-LABEL: func.func @add_at_vjp
// CHECK-SAME:    -> (tensor<4x5xf32>, tensor<5xf32>)
// CHECK-NEXT:    %[[G:.*]] = rlx.index %y_bar[%i] : (tensor<4x5xf32>, tensor<6xi64>) -> tensor<6x5xf32>
// CHECK-NEXT:    %[[S:.*]] = rlx.sum %[[G]] dims [0] keepdim true : (tensor<6x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT:    %[[V:.*]] = rlx.reshape %[[S]] : (tensor<1x5xf32>) -> tensor<5xf32>
// CHECK-NEXT:    func.return %y_bar, %[[V]]
func.func @add_at(%x: tensor<4x5xf32>, %i: tensor<6xi64>, %v: tensor<5xf32>) -> tensor<4x5xf32> {
  %y = rlx.index_put %x[%i], %v accumulate true : (tensor<4x5xf32>, tensor<6xi64>, tensor<5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// index_put without accumulate: x_bar = y_bar with the written positions zeroed (a put of
// a 0-d zero); v_bar = index(y_bar, I).
// CHECK-LABEL: func.func @put_vjp
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[X:.*]] = rlx.index_put %y_bar[%i, %j], %[[ZERO]] : (tensor<4x5xf32>, tensor<6xi64>, tensor<6xi64>, tensor<f32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %[[V:.*]] = rlx.index %y_bar[%i, %j] : (tensor<4x5xf32>, tensor<6xi64>, tensor<6xi64>) -> tensor<6xf32>
// CHECK-NEXT:    func.return %[[X]], %[[V]]
func.func @put(%x: tensor<4x5xf32>, %i: tensor<6xi64>, %j: tensor<6xi64>, %v: tensor<6xf32>) -> tensor<4x5xf32> {
  %y = rlx.index_put %x[%i, %j], %v : (tensor<4x5xf32>, tensor<6xi64>, tensor<6xi64>, tensor<6xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}
