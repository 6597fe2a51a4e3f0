// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt > /dev/null

// Each forward activation is one all-parallel linalg.generic with identity maps.

// relu is x < 0 ? 0 : x, a select (NaN and -0.0 pass), not maximumf.
// CHECK-LABEL: func.func @relu
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[NEG:.*]] = arith.cmpf olt, %[[X:.*]], %[[ZERO]] : f32
// CHECK:         arith.select %[[NEG]], %[[ZERO]], %[[X]] : f32
// CHECK-NOT:   rlx.
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A 0-d tensor: a generic over no loops.
// CHECK-LABEL: func.func @sigmoid_0d
// CHECK:       linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
// CHECK:         math.exp
func.func @sigmoid_0d(%x: tensor<f64>) -> tensor<f64> {
  %y = rlx.sigmoid %x : (tensor<f64>) -> tensor<f64>
  return %y : tensor<f64>
}

// -----

// A dynamic leading dimension sizes the result with tensor.dim.
// CHECK-LABEL: func.func @silu_dynamic
// CHECK:       %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK:       linalg.generic
func.func @silu_dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = rlx.silu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// hardtanh: x < lo ? lo : (x > hi ? hi : x), the bounds in the element type.
// CHECK-LABEL: func.func @relu6
// CHECK-DAG:     %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK:         %[[BELOW:.*]] = arith.cmpf olt, %[[X:.*]], %[[LO]] : f32
// CHECK:         %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[HI]] : f32
// CHECK:         %[[UPPER:.*]] = arith.select %[[ABOVE]], %[[HI]], %[[X]] : f32
// CHECK:         arith.select %[[BELOW]], %[[LO]], %[[UPPER]] : f32
func.func @relu6(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = rlx.hardtanh %x min_val 0.0 max_val 6.0 : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// hardswish: (x * min(max(x + 3, 0), 6)) / 6 with NaN-propagating maximumf/minimumf.
// CHECK-LABEL: func.func @hardswish
// CHECK:         arith.addf
// CHECK:         arith.maximumf
// CHECK:         arith.minimumf
// CHECK:         arith.mulf
// CHECK:         arith.divf
func.func @hardswish(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = rlx.hardswish %x : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// gelu "none": (x * 0.5) * 2 Phi(x), 2 Phi from math.exp and arith only (IREE rejects
// math.erfc): the exponent -x^2/2 exact by a Veltkamp split of |x| (2^27 + 1 in f64,
// 2^12 + 1 in f32), a Chebyshev series in y = 1 - 7.5 / (t + 3.75), erf's Taylor series
// for |x| < 0.75, two selects.
// CHECK-LABEL: func.func @gelu
// CHECK-NOT:     math.erf
// CHECK:         arith.constant 6.000000e+01 : f64
// CHECK-NOT:     math.erf
// CHECK:         arith.constant 0x41A0000002000000 : f64
// CHECK-NOT:     math.erf
// CHECK-COUNT-2: math.exp
// CHECK-NOT:     math.erf
// CHECK:         arith.constant 3.750000e+00 : f64
// CHECK-NOT:     math.erf
// CHECK:         arith.select
// CHECK-NOT:     math.erf
// CHECK:         arith.constant 7.500000e-01 : f64
// CHECK-NOT:     math.erf
// CHECK:         arith.select
// CHECK-NOT:     math.erf
// CHECK:         linalg.yield
func.func @gelu(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = rlx.gelu %x : (tensor<8xf64>) -> tensor<8xf64>
  return %y : tensor<8xf64>
}

// -----

// CHECK-LABEL: func.func @gelu_f32
// CHECK:         arith.constant 4.097000e+03 : f32
// CHECK-NOT:     math.erf
// CHECK:         linalg.yield
func.func @gelu_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = rlx.gelu %x : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// gelu "tanh": x * sigmoid(2u), through exp, without math.tanh. In f32 the exp is
// `polynomial_exp`'s arith body (its n = roundeven(x log2 e)), which loops vectorize.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK:         arith.constant 4.471500e-02 : f32
// CHECK-NOT:     math.exp
// CHECK:         math.roundeven
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.exp
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = rlx.gelu %x approximate "tanh" : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// leaky_relu: x > 0 ? x : x * slope, the f64 slope as an f32 constant (ATen's Scalar::to<float>).
// CHECK-LABEL: func.func @leaky_relu
// CHECK:         %[[POS:.*]] = arith.cmpf ogt
// CHECK:         %[[SLOPE:.*]] = arith.constant 1.000000e-01 : f32
// CHECK:         %[[SCALED:.*]] = arith.mulf %[[X:.*]], %[[SLOPE]] : f32
// CHECK:         arith.select %[[POS]], %[[X]], %[[SCALED]] : f32
func.func @leaky_relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = rlx.leaky_relu %x negative_slope 0.1 : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
