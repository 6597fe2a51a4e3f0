// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The scan ops in their custom form; `reverse` false (the default) is left out when
// printed, and the generic form carries both properties.

// A forward scan along the time axis of a dynamic batch.
// CHECK-LABEL: func.func @linear_scan_forward
// CHECK:       rlx.linear_scan %a, %x dim 1 : (tensor<?x16x8xf32>, tensor<?x16x8xf32>) -> tensor<?x16x8xf32>
// GENERIC-LABEL: sym_name = "linear_scan_forward"
// GENERIC:     "rlx.linear_scan"(%{{.*}}, %{{.*}}) <{dim = 1 : i64, reverse = false}>
func.func @linear_scan_forward(%a: tensor<?x16x8xf32>, %x: tensor<?x16x8xf32>) -> tensor<?x16x8xf32> {
  %h = rlx.linear_scan %a, %x dim 1 reverse false : (tensor<?x16x8xf32>, tensor<?x16x8xf32>) -> tensor<?x16x8xf32>
  return %h : tensor<?x16x8xf32>
}

// From the end, along the leading axis (static), f64.
// CHECK-LABEL: func.func @linear_scan_reverse
// CHECK:       rlx.linear_scan %a, %x dim 0 reverse true : (tensor<5x3xf64>, tensor<5x3xf64>) -> tensor<5x3xf64>
// GENERIC-LABEL: sym_name = "linear_scan_reverse"
// GENERIC:     "rlx.linear_scan"(%{{.*}}, %{{.*}}) <{dim = 0 : i64, reverse = true}>
func.func @linear_scan_reverse(%a: tensor<5x3xf64>, %x: tensor<5x3xf64>) -> tensor<5x3xf64> {
  %h = rlx.linear_scan %a, %x dim 0 reverse true : (tensor<5x3xf64>, tensor<5x3xf64>) -> tensor<5x3xf64>
  return %h : tensor<5x3xf64>
}

// One step: T = 1 is a scan too.
// CHECK-LABEL: func.func @linear_scan_one_step
// CHECK:       rlx.linear_scan %a, %x dim 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
func.func @linear_scan_one_step(%a: tensor<1xf32>, %x: tensor<1xf32>) -> tensor<1xf32> {
  %h = rlx.linear_scan %a, %x dim 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  return %h : tensor<1xf32>
}

// cumsum [cumsum]: the running sum along dim, a dynamic batch on another dim.
// CHECK-LABEL: func.func @cumsum
// CHECK:       rlx.cumsum %x dim 1 : (tensor<?x7xf32>) -> tensor<?x7xf32>
// CHECK:       rlx.cumsum %x dim 1 reverse true : (tensor<?x7xf32>) -> tensor<?x7xf32>
// GENERIC-LABEL: sym_name = "cumsum"
// GENERIC:     "rlx.cumsum"(%{{.*}}) <{dim = 1 : i64, reverse = false}>
// GENERIC:     "rlx.cumsum"(%{{.*}}) <{dim = 1 : i64, reverse = true}>
func.func @cumsum(%x: tensor<?x7xf32>) -> (tensor<?x7xf32>, tensor<?x7xf32>) {
  %y = rlx.cumsum %x dim 1 : (tensor<?x7xf32>) -> tensor<?x7xf32>
  %z = rlx.cumsum %x dim 1 reverse true : (tensor<?x7xf32>) -> tensor<?x7xf32>
  return %y, %z : tensor<?x7xf32>, tensor<?x7xf32>
}
