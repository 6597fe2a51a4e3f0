// RUN: rlx-opt %s --autodiff="func=pick,spread,spread_same,select,put,put_value" | FileCheck %s
// RUN: not rlx-opt %s --autodiff="func=pick_dynamic" 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=pick,spread,spread_same,select,put,put_value" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// gather: x_bar = scatter_add(0, t, y_bar), the same dim; the index gets no cotangent.
// CHECK-LABEL: func.func @pick_vjp
// CHECK-SAME:    (%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %y_bar: tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x5xf32>
// CHECK-NEXT:    %[[X:.*]] = rlx.scatter_add %[[ZERO]], %t, %y_bar dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @pick(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>) -> tensor<3x5xf32> {
  %y = rlx.gather %x, %t dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// scatter_add: x_bar = y_bar, s_bar = gather(y_bar, t), grown with zeros (slice_backward)
// where src is larger than the index.
// CHECK-LABEL: func.func @spread_vjp
// CHECK-SAME:    -> (tensor<4x5xf32>, tensor<3x6xf32>)
// CHECK-NEXT:    %[[G:.*]] = rlx.gather %y_bar, %t dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>) -> tensor<3x5xf32>
// CHECK-NEXT:    %[[S:.*]] = rlx.slice_backward %[[G]] dim 1 start 0 end 5 : (tensor<3x5xf32>) -> tensor<3x6xf32>
// CHECK-NEXT:    func.return %y_bar, %[[S]]
func.func @spread(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %s: tensor<3x6xf32>) -> tensor<4x5xf32> {
  %y = rlx.scatter_add %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x6xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// src of the index's shape, with a dynamic batch: the plain gather.
// CHECK-LABEL: func.func @spread_same_vjp
// CHECK-NEXT:    %[[G:.*]] = rlx.gather %y_bar, %t dim 1 : (tensor<?x5xf32>, tensor<?x5xi64>) -> tensor<?x5xf32>
// CHECK-NEXT:    func.return %y_bar, %[[G]]
func.func @spread_same(%x: tensor<?x5xf32>, %t: tensor<?x5xi64>, %s: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %y = rlx.scatter_add %x, %t, %s dim 1 : (tensor<?x5xf32>, tensor<?x5xi64>, tensor<?x5xf32>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// index_select: x_bar = scatter_add(0, T, y_bar), T the index laid along dim 1 and expanded
// to y's shape (index_add as a scatter_add).
// CHECK-LABEL: func.func @select_vjp
// CHECK-NEXT:    %[[ALONG:.*]] = rlx.reshape %t : (tensor<4xi64>) -> tensor<1x4x1xi64>
// CHECK-NEXT:    %[[T:.*]] = rlx.expand %[[ALONG]] : (tensor<1x4x1xi64>) -> tensor<2x4x3xi64>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<2x5x3xf32>
// CHECK-NEXT:    %[[X:.*]] = rlx.scatter_add %[[ZERO]], %[[T]], %y_bar dim 1 : (tensor<2x5x3xf32>, tensor<2x4x3xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @select(%x: tensor<2x5x3xf32>, %t: tensor<4xi64>) -> tensor<2x4x3xf32> {
  %y = rlx.index_select %x, %t dim 1 : (tensor<2x5x3xf32>, tensor<4xi64>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// scatter: x_bar = y_bar with the written positions zeroed (scatter_value 0), s_bar =
// gather(y_bar, t) grown to src's shape, as PyTorch's.
// CHECK-LABEL: func.func @put_vjp
// CHECK-NEXT:    %[[X:.*]] = rlx.scatter_value %y_bar, %t dim 1 value 0.000000e+00 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x5x3xf32>
// CHECK-NEXT:    %[[G:.*]] = rlx.gather %y_bar, %t dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x4x2xf32>
// CHECK-NEXT:    %[[S:.*]] = rlx.slice_backward %[[G]] dim 2 start 0 end 2 : (tensor<2x4x2xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    func.return %[[X]], %[[S]]
func.func @put(%x: tensor<2x5x3xf32>, %t: tensor<2x4x2xi64>, %s: tensor<2x4x3xf32>) -> tensor<2x5x3xf32> {
  %y = rlx.scatter %x, %t, %s dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}

// scatter_value: x_bar = y_bar with the written positions zeroed.
// CHECK-LABEL: func.func @put_value_vjp
// CHECK-NEXT:    %[[X:.*]] = rlx.scatter_value %y_bar, %t dim 0 value 0.000000e+00 : (tensor<4x5xf32>, tensor<6x5xi64>) -> tensor<4x5xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @put_value(%x: tensor<4x5xf32>, %t: tensor<6x5xi64>) -> tensor<4x5xf32> {
  %y = rlx.scatter_value %x, %t dim 0 value 1.5 : (tensor<4x5xf32>, tensor<6x5xi64>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// gather's adjoint scatters into zeros of the input's shape, which a dynamic batch does
// not give: a located diagnostic (exit 1).
// DYNAMIC: indexing-gather-scatter.mlir:[[# @LINE + 2]]:8: error: autodiff: a zero cotangent of tensor<?x5xf32> is needed, but only static shapes have one
func.func @pick_dynamic(%x: tensor<?x5xf32>, %t: tensor<?x5xi64>) -> tensor<?x5xf32> {
  %y = rlx.gather %x, %t dim 1 : (tensor<?x5xf32>, tensor<?x5xi64>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}
