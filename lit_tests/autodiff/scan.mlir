// RUN: rlx-opt %s --autodiff="func=scan,scan_reverse,cumsum" | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=scan,scan_reverse,cumsum" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// h = linear_scan(a, x): g = x_bar is the reversed scan of h_bar with a shifted one step
// back (a[t+1], zero at the end: a slice of steps 1..T put at 0..T-1), and
// a_bar = g * h shifted one step forward (h[t-1], zero in front). Only RLX ops, so the
// VJP differentiates again; the dynamic batch is carried through.
// CHECK-LABEL: func.func @scan_vjp
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4x3xf32>, %{{.*}}: tensor<?x4x3xf32>, %[[HBAR:.*]]: tensor<?x4x3xf32>) -> (tensor<?x4x3xf32>, tensor<?x4x3xf32>)
// CHECK:         %[[H:.*]] = rlx.linear_scan
// CHECK:         %[[ANEXT:.*]] = rlx.slice %[[A]] dim 1 start 1 end 4 : (tensor<?x4x3xf32>) -> tensor<?x3x3xf32>
// CHECK:         %[[ASHIFT:.*]] = rlx.slice_backward %[[ANEXT]] dim 1 start 0 end 3 : (tensor<?x3x3xf32>) -> tensor<?x4x3xf32>
// CHECK:         %[[G:.*]] = rlx.linear_scan %[[ASHIFT]], %[[HBAR]] dim 1 reverse true
// CHECK:         %[[HPREV:.*]] = rlx.slice %[[H]] dim 1 start 0 end 3
// CHECK:         %[[HSHIFT:.*]] = rlx.slice_backward %[[HPREV]] dim 1 start 1 end 4
// CHECK:         %[[ABAR:.*]] = rlx.mul %[[HSHIFT]], %[[G]]
// CHECK:         func.return %[[ABAR]], %[[G]]
func.func @scan(%a: tensor<?x4x3xf32>, %x: tensor<?x4x3xf32>) -> tensor<?x4x3xf32> {
  %h = rlx.linear_scan %a, %x dim 1 : (tensor<?x4x3xf32>, tensor<?x4x3xf32>) -> tensor<?x4x3xf32>
  return %h : tensor<?x4x3xf32>
}

// Reverse mirrors it: a shifted forward (a[t-1]), a forward scan, h shifted back (h[t+1]).
// CHECK-LABEL: func.func @scan_reverse_vjp
// CHECK:         rlx.slice %{{.*}} dim 0 start 0 end 4 : (tensor<5x2xf64>) -> tensor<4x2xf64>
// CHECK:         rlx.slice_backward %{{.*}} dim 0 start 1 end 5
// CHECK:         %[[G:.*]] = rlx.linear_scan %{{.*}}, %{{.*}} dim 0 : (tensor<5x2xf64>, tensor<5x2xf64>) -> tensor<5x2xf64>
// CHECK:         rlx.slice %{{.*}} dim 0 start 1 end 5
// CHECK:         rlx.slice_backward %{{.*}} dim 0 start 0 end 4
// CHECK:         func.return %{{.*}}, %[[G]]
func.func @scan_reverse(%a: tensor<5x2xf64>, %x: tensor<5x2xf64>) -> tensor<5x2xf64> {
  %h = rlx.linear_scan %a, %x dim 0 reverse true : (tensor<5x2xf64>, tensor<5x2xf64>) -> tensor<5x2xf64>
  return %h : tensor<5x2xf64>
}

// cumsum is linear: x_bar is the cumsum of y_bar the other way.
// CHECK-LABEL: func.func @cumsum_vjp
// CHECK-SAME:    (%{{.*}}: tensor<?x6xf32>, %[[YBAR:.*]]: tensor<?x6xf32>) -> tensor<?x6xf32>
// CHECK:         %[[XBAR:.*]] = rlx.cumsum %[[YBAR]] dim 1 reverse true : (tensor<?x6xf32>) -> tensor<?x6xf32>
// CHECK:         func.return %[[XBAR]]
func.func @cumsum(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %y = rlx.cumsum %x dim 1 : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %y : tensor<?x6xf32>
}
