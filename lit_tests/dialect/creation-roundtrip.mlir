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
