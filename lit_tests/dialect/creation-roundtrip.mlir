// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s

// cast: the result type names the element type; any pair of float, integer and i1.
// CHECK-LABEL: func.func @casts
// CHECK:       rlx.cast %{{.*}} : (tensor<?x3xf32>) -> tensor<?x3xf64>
// CHECK:       rlx.cast %{{.*}} : (tensor<?x3xf32>) -> tensor<?x3xi1>
// CHECK:       rlx.cast %{{.*}} : (tensor<2xi1>) -> tensor<2xi64>
// CHECK:       rlx.cast %{{.*}} : (tensor<f64>) -> tensor<bf16>
func.func @casts(%x: tensor<?x3xf32>, %m: tensor<2xi1>, %s: tensor<f64>) -> (tensor<?x3xf64>, tensor<?x3xi1>, tensor<2xi64>, tensor<bf16>) {
  %0 = rlx.cast %x : (tensor<?x3xf32>) -> tensor<?x3xf64>
  %1 = rlx.cast %x : (tensor<?x3xf32>) -> tensor<?x3xi1>
  %2 = rlx.cast %m : (tensor<2xi1>) -> tensor<2xi64>
  %3 = rlx.cast %s : (tensor<f64>) -> tensor<bf16>
  return %0, %1, %2, %3 : tensor<?x3xf64>, tensor<?x3xi1>, tensor<2xi64>, tensor<bf16>
}

// arange: start 0 and step 1 are left out; the result is 1-D of the declared length.
// CHECK-LABEL: func.func @created
// CHECK:       rlx.arange end 1.000000e+00 step 1.000000e-01 : tensor<10xf32>
// CHECK:       rlx.arange start 1.000000e+01 end 0.000000e+00 step -3.000000e+00 : tensor<4xi64>
// CHECK:       rlx.full(%{{.*}}) value 7.000000e+00 : (index) -> tensor<?x3xf32>
// CHECK:       rlx.full value 1.000000e+00 : () -> tensor<i1>
func.func @created(%x: tensor<?x3xf32>) -> (tensor<10xf32>, tensor<4xi64>, tensor<?x3xf32>, tensor<i1>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %0 = rlx.arange end 1.0 step 0.1 : tensor<10xf32>
  %1 = rlx.arange start 10.0 end 0.0 step -3.0 : tensor<4xi64>
  %2 = rlx.full(%n) value 7.0 : (index) -> tensor<?x3xf32>
  %3 = rlx.full value 1.0 : () -> tensor<i1>
  return %0, %1, %2, %3 : tensor<10xf32>, tensor<4xi64>, tensor<?x3xf32>, tensor<i1>
}
