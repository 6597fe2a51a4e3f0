// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s
// RUN: rlx-opt %s --decompose-backward | mlir-opt > /dev/null

// Each activation gradient is one all-parallel linalg.generic over (dy, x) -> dx.

// threshold_backward: x <= threshold ? 0 : dy (a NaN x passes dy).
// CHECK-LABEL: func.func @threshold_backward
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:       ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[T:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[AT_OR_BELOW:.*]] = arith.cmpf ole, %[[X]], %[[T]] : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         arith.select %[[AT_OR_BELOW]], %[[ZERO]], %[[DY]] : f32
// CHECK-NOT:   rlx.
func.func @threshold_backward(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dx = rlx.threshold_backward %dy, %x threshold 0.5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %dx : tensor<2x3xf32>
}

// -----

// hardtanh_backward: dy strictly inside (min_val, max_val), 0 at the bounds and at NaN.
// CHECK-LABEL: func.func @hardtanh_backward
// CHECK:         %[[ABOVE:.*]] = arith.cmpf ogt, %[[X:.*]], %{{.*}} : f32
// CHECK:         %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK:         %[[INSIDE:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK:         arith.select %[[INSIDE]], %{{.*}}, %{{.*}} : f32
func.func @hardtanh_backward(%dy: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %dx = rlx.hardtanh_backward %dy, %x min_val 0.0 max_val 6.0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %dx : tensor<8xf32>
}

// -----

// hardsigmoid_backward multiplies by 1/6 rounded to f32, in f64 too (ATen's 1.0f / 6.0f).
// CHECK-LABEL: func.func @hardsigmoid_backward_f64
// CHECK:         arith.constant 0.1666666716337204 : f64
func.func @hardsigmoid_backward_f64(%dy: tensor<8xf64>, %x: tensor<8xf64>) -> tensor<8xf64> {
  %dx = rlx.hardsigmoid_backward %dy, %x : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  return %dx : tensor<8xf64>
}

// -----

// hardswish_backward: x <= -3 ? 0 : (x >= 3 ? dy : dy * (x / 3 + 0.5)).
// CHECK-LABEL: func.func @hardswish_backward
// CHECK:         arith.divf
// CHECK:         arith.cmpf oge
// CHECK:         arith.cmpf ole
func.func @hardswish_backward(%dy: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %dx = rlx.hardswish_backward %dy, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %dx : tensor<8xf32>
}

// -----

// sigmoid_backward reads the output y: (dy * (1 - y)) * y, no exp.
// CHECK-LABEL: func.func @sigmoid_backward
// CHECK:       ^bb0(%[[DY:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[ONE_MINUS:.*]] = arith.subf %{{.*}}, %[[Y]] : f32
// CHECK:         %[[P:.*]] = arith.mulf %[[DY]], %[[ONE_MINUS]] : f32
// CHECK:         arith.mulf %[[P]], %[[Y]] : f32
// CHECK-NOT:     math.exp
func.func @sigmoid_backward(%dy: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %dx = rlx.sigmoid_backward %dy, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %dx : tensor<8xf32>
}

// -----

// silu_backward and gelu_backward "tanh": one exp each (both sigmoids from exp(-|z|/2)),
// in f32 `polynomial_exp`'s arith body (one math.roundeven), no math.exp.
// CHECK-LABEL: func.func @smooth_gradients
// CHECK-NOT:     math.exp
// CHECK-COUNT-1: math.roundeven
// CHECK:       linalg.yield
// CHECK-COUNT-1: math.roundeven
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.exp
func.func @smooth_gradients(%dy: tensor<8xf32>, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = rlx.silu_backward %dy, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b = rlx.gelu_backward %dy, %x approximate "tanh" : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// gelu_backward "none": cdf and pdf from one exact-exponent exp(-x^2/2) (two math.exp),
// no math.erfc (IREE rejects it).
// CHECK-LABEL: func.func @gelu_backward
// CHECK-NOT:     math.erf
// CHECK-COUNT-2: math.exp
// CHECK-NOT:     math.erf
// CHECK:         arith.constant 7.500000e-01 : f64
// CHECK-NOT:     math.erf
// CHECK:         linalg.yield
func.func @gelu_backward(%dy: tensor<?x8xf64>, %x: tensor<?x8xf64>) -> tensor<?x8xf64> {
  %dx = rlx.gelu_backward %dy, %x : (tensor<?x8xf64>, tensor<?x8xf64>) -> tensor<?x8xf64>
  return %dx : tensor<?x8xf64>
}

// -----

// leaky_relu_backward: x > 0 ? dy : dy * slope; 0-d works.
// CHECK-LABEL: func.func @leaky_relu_backward_0d
// CHECK:       linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
// CHECK:         arith.cmpf ogt
// CHECK:         arith.mulf
// CHECK:         arith.select
func.func @leaky_relu_backward_0d(%dy: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %dx = rlx.leaky_relu_backward %dy, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %dx : tensor<f32>
}
