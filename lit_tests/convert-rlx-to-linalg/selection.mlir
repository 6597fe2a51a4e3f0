// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// where: z[i, j] = c[i, 0] ? a[j] : s, one generic, each operand through its broadcast map.
// CHECK-LABEL: func.func @where_broadcast
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:  ^{{.*}}(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[C]], %[[A]], %[[S]] : f32
// CHECK-NEXT:    linalg.yield %[[R]] : f32
// CHECK-NOT:   rlx.
func.func @where_broadcast(%c: tensor<4x1xi1>, %a: tensor<3xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %0 = rlx.where %c, %a, %s : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// masked_fill: y = m ? value : x, the value converted to the element type; a dynamic batch
// is read from the input.
// CHECK-LABEL: func.func @masked_fill_dynamic
// CHECK:       %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xi64>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x4xi64>
// CHECK:       affine_map<(d0, d1) -> (0, d1)>
// CHECK:       %[[V:.*]] = arith.constant -7 : i64
// CHECK-NEXT:  arith.select %{{.*}}, %[[V]], %{{.*}} : i64
func.func @masked_fill_dynamic(%x: tensor<?x4xi64>, %m: tensor<1x4xi1>) -> tensor<?x4xi64> {
  %0 = rlx.masked_fill %x, %m value -7.0 : (tensor<?x4xi64>, tensor<1x4xi1>) -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// clamp: t = x < lo ? lo : x; y = hi < t ? hi : t (NaN stays; lo > hi gives hi).
// CHECK-LABEL: func.func @clamp_both
// CHECK:       %[[LO:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:  %[[B1:.*]] = arith.cmpf olt, %[[X:.*]], %[[LO]] : f32
// CHECK-NEXT:  %[[T:.*]] = arith.select %[[B1]], %[[LO]], %[[X]] : f32
// CHECK-NEXT:  %[[HI:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:  %[[B2:.*]] = arith.cmpf olt, %[[HI]], %[[T]] : f32
// CHECK-NEXT:  arith.select %[[B2]], %[[HI]], %[[T]] : f32
func.func @clamp_both(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = rlx.clamp %x min -1.0 max 2.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// An absent bound tests nothing; integers compare signed.
// CHECK-LABEL: func.func @clamp_integer_min
// CHECK:       arith.cmpi slt
// CHECK-NEXT:  arith.select
// CHECK-NEXT:  linalg.yield
func.func @clamp_integer_min(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = rlx.clamp %x min 0.0 : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// tril: the test j - i <= diagonal on the last two loop indices, for any batch.
// CHECK-LABEL: func.func @tril_batched
// CHECK:       iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:       %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT:  %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:  %[[J:.*]] = linalg.index 2 : index
// CHECK-NEXT:  %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:  %[[D:.*]] = arith.subi %[[J64]], %[[I64]] : i64
// CHECK-NEXT:  %[[K:.*]] = arith.constant -1 : i64
// CHECK-NEXT:  arith.cmpi sle, %[[D]], %[[K]] : i64
func.func @tril_batched(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  %0 = rlx.tril %x diagonal -1 : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

// triu keeps j - i >= diagonal; bools are filled with false.
// CHECK-LABEL: func.func @triu_bool
// CHECK:       arith.cmpi sge
// CHECK:       %[[F:.*]] = arith.constant false
// CHECK-NEXT:  arith.select %{{.*}}, %{{.*}}, %[[F]] : i1
func.func @triu_bool(%m: tensor<4x4xi1>) -> tensor<4x4xi1> {
  %0 = rlx.triu %m diagonal 1 : (tensor<4x4xi1>) -> tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}
