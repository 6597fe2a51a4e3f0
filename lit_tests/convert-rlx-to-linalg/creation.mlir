// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// One conversion per element type pair, in one elementwise generic.
// CHECK-LABEL: func.func @float_casts
// CHECK:       arith.extf %{{.*}} : f32 to f64
// CHECK:       arith.truncf %{{.*}} : f64 to f32
// CHECK:       arith.fptosi %{{.*}} : f32 to i64
// CHECK:       arith.sitofp %{{.*}} : i64 to f32
// CHECK-NOT:   rlx.
func.func @float_casts(%x: tensor<2x3xf32>, %d: tensor<2x3xf64>, %i: tensor<2x3xi64>) -> (tensor<2x3xf64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) {
  %0 = rlx.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %1 = rlx.cast %d : (tensor<2x3xf64>) -> tensor<2x3xf32>
  %2 = rlx.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %3 = rlx.cast %i : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>
}

// -----

// Integers sign-extend or wrap; a bool is x != 0 (NaN too: une), and reads as 0 or 1.
// CHECK-LABEL: func.func @integer_and_bool_casts
// CHECK:       arith.extsi %{{.*}} : i32 to i64
// CHECK:       arith.trunci %{{.*}} : i64 to i8
// CHECK:       arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:       arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK:       arith.uitofp %{{.*}} : i1 to f32
// CHECK:       arith.extui %{{.*}} : i1 to i64
func.func @integer_and_bool_casts(%i: tensor<4xi32>, %l: tensor<4xi64>, %x: tensor<4xf32>, %m: tensor<4xi1>) -> (tensor<4xi64>, tensor<4xi8>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) {
  %0 = rlx.cast %i : (tensor<4xi32>) -> tensor<4xi64>
  %1 = rlx.cast %l : (tensor<4xi64>) -> tensor<4xi8>
  %2 = rlx.cast %x : (tensor<4xf32>) -> tensor<4xi1>
  %3 = rlx.cast %l : (tensor<4xi64>) -> tensor<4xi1>
  %4 = rlx.cast %m : (tensor<4xi1>) -> tensor<4xf32>
  %5 = rlx.cast %m : (tensor<4xi1>) -> tensor<4xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi8>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>
}

// -----

// bf16 and f16 have one width: through f32, exactly, then one rounding.
// CHECK-LABEL: func.func @bf16_to_f16
// CHECK:       %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:  arith.truncf %[[W]] : f32 to f16
func.func @bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = rlx.cast %x : (tensor<4xbf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// arange: y[i] = fma(step, i, start) in f64 (one rounding, as ATen's), rounded once to
// the element type.
// CHECK-LABEL: func.func @arange_f32
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<10xf32>)
// CHECK:       %[[I:.*]] = linalg.index 0 : index
// CHECK:       arith.sitofp %{{.*}} : i64 to f64
// CHECK:       math.fma %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK:       arith.truncf %{{.*}} : f64 to f32
func.func @arange_f32() -> tensor<10xf32> {
  %0 = rlx.arange end 1.0 step 0.1 : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// full: a fill of an empty tensor sized by the operand.
// CHECK-LABEL: func.func @full_dynamic
// CHECK:       %[[V:.*]] = arith.constant 7.000000e+00 : f32
// CHECK:       %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xf32>
// CHECK-NEXT:  linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?x3xf32>) -> tensor<?x3xf32>
func.func @full_dynamic(%n: index) -> tensor<?x3xf32> {
  %0 = rlx.full(%n) value 7.0 : (index) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
