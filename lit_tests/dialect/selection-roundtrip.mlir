// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The selection family in its custom form; an absent clamp bound and diagonal 0 are left
// out when printed, the generic form carries them.

// where broadcasts its three operands; a 0-d other is a Python scalar.
// CHECK-LABEL: func.func @where_broadcast
// CHECK:       rlx.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
// CHECK:       rlx.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x3xi1>, tensor<?x3xi64>, tensor<?x3xi64>) -> tensor<?x3xi64>
// GENERIC-LABEL: sym_name = "where_broadcast"
// GENERIC:     "rlx.where"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
func.func @where_broadcast(%c: tensor<4x1xi1>, %a: tensor<3xf32>, %s: tensor<f32>, %d: tensor<?x3xi1>, %i: tensor<?x3xi64>) -> (tensor<4x3xf32>, tensor<?x3xi64>) {
  %0 = rlx.where %c, %a, %s : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %1 = rlx.where %d, %i, %i : (tensor<?x3xi1>, tensor<?x3xi64>, tensor<?x3xi64>) -> tensor<?x3xi64>
  return %0, %1 : tensor<4x3xf32>, tensor<?x3xi64>
}

// masked_fill's value is an f64 property; the mask broadcasts to the input.
// CHECK-LABEL: func.func @masked_fill
// CHECK:       rlx.masked_fill %{{.*}}, %{{.*}} value -1.000000e+09 : (tensor<2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x4x4xf32>
// CHECK:       rlx.masked_fill %{{.*}}, %{{.*}} value 1.000000e+00 : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
// GENERIC:     "rlx.masked_fill"(%{{.*}}, %{{.*}}) <{value = -1.000000e+09 : f64}>
func.func @masked_fill(%x: tensor<2x4x4xf32>, %m: tensor<4x4xi1>) -> (tensor<2x4x4xf32>, tensor<4x4xi1>) {
  %0 = rlx.masked_fill %x, %m value -1.0e9 : (tensor<2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x4x4xf32>
  %1 = rlx.masked_fill %m, %m value 1.0 : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  return %0, %1 : tensor<2x4x4xf32>, tensor<4x4xi1>
}

// clamp with both bounds or one; an absent bound is infinite in the generic form.
// CHECK-LABEL: func.func @clamp
// CHECK:       rlx.clamp %{{.*}} min -2.000000e+00 max 5.000000e+00 : (tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK:       rlx.clamp %{{.*}} min 0.000000e+00 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.clamp %{{.*}} max 6.000000e+00 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.clamp_backward %{{.*}}, %{{.*}} min 0.000000e+00 max 6.000000e+00 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:     "rlx.clamp"(%{{.*}}) <{min = -2.000000e+00 : f64, max = 5.000000e+00 : f64}>
// GENERIC:     "rlx.clamp"(%{{.*}}) <{min = 0.000000e+00 : f64, max = 0x7ff0000000000000 : f64}>
func.func @clamp(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>, %dy: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) {
  %2 = rlx.clamp %i min -2.0 max 5.0 : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %0 = rlx.clamp %x min 0.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = rlx.clamp %x max 6.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = rlx.clamp_backward %dy, %x min 0.0 max 6.0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>
}

// tril / triu on the last two dims, any batch; diagonal 0 is left out.
// CHECK-LABEL: func.func @triangles
// CHECK:       rlx.tril %{{.*}} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK:       rlx.triu %{{.*}} diagonal -1 : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK:       rlx.tril %{{.*}} diagonal 2 : (tensor<4x4xi1>) -> tensor<4x4xi1>
// GENERIC:     "rlx.tril"(%{{.*}}) <{diagonal = 0 : i64}>
func.func @triangles(%x: tensor<?x3x4xf32>, %m: tensor<4x4xi1>) -> (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<4x4xi1>) {
  %0 = rlx.tril %x : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %1 = rlx.triu %x diagonal -1 : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %2 = rlx.tril %m diagonal 2 : (tensor<4x4xi1>) -> tensor<4x4xi1>
  return %0, %1, %2 : tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<4x4xi1>
}
