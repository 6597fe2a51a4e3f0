// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The elementwise family in its custom form; keepdim false, beta 1.0 and alpha 1.0 are
// left out when printed, the generic form carries them.

// A 0-d operand (a Python scalar) broadcasts to anything.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK:       rlx.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:       rlx.sub %{{.*}}, %{{.*}} : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK:       rlx.mul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.div %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK:       rlx.maximum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.minimum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// GENERIC-LABEL: sym_name = "binary_broadcast"
// GENERIC:     "rlx.add"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @binary_broadcast(%a: tensor<2x3xf32>, %s: tensor<f32>, %b: tensor<4x1x3xf32>, %c: tensor<2x1xf32>, %r: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = rlx.add %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = rlx.sub %b, %c : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %2 = rlx.mul %r, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = rlx.div %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %4 = rlx.maximum %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = rlx.minimum %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Integers: num_batches_tracked + 1.
// CHECK-LABEL: func.func @integer_add
// CHECK:       rlx.add %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
func.func @integer_add(%n: tensor<i64>, %one: tensor<i64>) -> tensor<i64> {
  %0 = rlx.add %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// A dynamic batch with a conv bias [C, 1, 1].
// CHECK-LABEL: func.func @dynamic_batch_bias
// CHECK:       rlx.add %{{.*}}, %{{.*}} : (tensor<?x4x8x8xf64>, tensor<4x1x1xf64>) -> tensor<?x4x8x8xf64>
func.func @dynamic_batch_bias(%y: tensor<?x4x8x8xf64>, %b: tensor<4x1x1xf64>) -> tensor<?x4x8x8xf64> {
  %0 = rlx.add %y, %b : (tensor<?x4x8x8xf64>, tensor<4x1x1xf64>) -> tensor<?x4x8x8xf64>
  return %0 : tensor<?x4x8x8xf64>
}

// CHECK-LABEL: func.func @unary
// CHECK:       rlx.neg %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.exp %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.log %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.sqrt %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.rsqrt %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.abs %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.tanh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.erf %{{.*}} : (tensor<f64>) -> tensor<f64>
func.func @unary(%x: tensor<2x3xf32>, %s: tensor<f64>) -> (tensor<2x3xf32>, tensor<f64>) {
  %0 = rlx.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = rlx.exp %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = rlx.log %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = rlx.sqrt %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = rlx.rsqrt %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = rlx.abs %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = rlx.tanh %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = rlx.erf %s : (tensor<f64>) -> tensor<f64>
  return %6, %7 : tensor<2x3xf32>, tensor<f64>
}

// keepdim false is left out; the result may be 0-d.
// CHECK-LABEL: func.func @reductions
// CHECK:       rlx.sum %{{.*}} dims [0, 2, 3] : (tensor<?x4x8x8xf32>) -> tensor<4xf32>
// CHECK:       rlx.mean %{{.*}} dims [1] keepdim true : (tensor<?x4x8x8xf32>) -> tensor<?x1x8x8xf32>
// CHECK:       rlx.mean %{{.*}} dims [0, 1, 2, 3] : (tensor<?x4x8x8xf32>) -> tensor<f32>
// CHECK:       rlx.sum %{{.*}} dims [0] : (tensor<3xi64>) -> tensor<i64>
// GENERIC-LABEL: sym_name = "reductions"
// GENERIC:     "rlx.sum"(%{{.*}}) <{dims = array<i64: 0, 2, 3>, keepdim = false}>
// GENERIC:     "rlx.mean"(%{{.*}}) <{dims = array<i64: 1>, keepdim = true}>
func.func @reductions(%x: tensor<?x4x8x8xf32>, %i: tensor<3xi64>) -> (tensor<4xf32>, tensor<?x1x8x8xf32>, tensor<f32>, tensor<i64>) {
  %0 = rlx.sum %x dims [0, 2, 3] keepdim false : (tensor<?x4x8x8xf32>) -> tensor<4xf32>
  %1 = rlx.mean %x dims [1] keepdim true : (tensor<?x4x8x8xf32>) -> tensor<?x1x8x8xf32>
  %2 = rlx.mean %x dims [0, 1, 2, 3] : (tensor<?x4x8x8xf32>) -> tensor<f32>
  %3 = rlx.sum %i dims [0] : (tensor<3xi64>) -> tensor<i64>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<?x1x8x8xf32>, tensor<f32>, tensor<i64>
}

// beta 1.0 and alpha 1.0 are left out.
// CHECK-LABEL: func.func @addmm
// CHECK:       rlx.addmm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
// CHECK:       rlx.addmm %{{.*}}, %{{.*}}, %{{.*}} beta 5.000000e-01 alpha 2.000000e+00 : (tensor<f32>, tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
// GENERIC-LABEL: sym_name = "addmm"
// GENERIC:     "rlx.addmm"(%{{.*}}, %{{.*}}, %{{.*}}) <{beta = 1.000000e+00 : f64, alpha = 1.000000e+00 : f64}>
func.func @addmm(%b: tensor<16xf32>, %x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %s: tensor<f32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %0 = rlx.addmm %b, %x, %w beta 1.0 alpha 1.0 : (tensor<16xf32>, tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  %1 = rlx.addmm %s, %x, %w beta 0.5 alpha 2.0 : (tensor<f32>, tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<?x16xf32>
}
