// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The activation ops in their custom form: any rank (0-d included), a dynamic leading
// dimension, properties left out at ATen's defaults (hardtanh -1..1, negative_slope 0.01,
// threshold 0, approximate "none"); the generic form carries them all.

// CHECK-LABEL: func.func @forward
// CHECK:       rlx.relu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.hardtanh %{{.*}} min_val 0.000000e+00 max_val 6.000000e+00 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.hardtanh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.hardswish %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.hardsigmoid %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.sigmoid %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.silu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.gelu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.gelu %{{.*}} approximate "tanh" : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.leaky_relu %{{.*}} negative_slope 2.000000e-01 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.leaky_relu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-LABEL: sym_name = "forward"
// GENERIC:     "rlx.relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:     "rlx.hardtanh"(%{{.*}}) <{min_val = 0.000000e+00 : f64, max_val = 6.000000e+00 : f64}>
// GENERIC:     "rlx.hardtanh"(%{{.*}}) <{min_val = -1.000000e+00 : f64, max_val = 1.000000e+00 : f64}>
// GENERIC:     "rlx.gelu"(%{{.*}}) <{approximate = "none"}>
// GENERIC:     "rlx.gelu"(%{{.*}}) <{approximate = "tanh"}>
// GENERIC:     "rlx.leaky_relu"(%{{.*}}) <{negative_slope = 2.000000e-01 : f64}>
// GENERIC:     "rlx.leaky_relu"(%{{.*}}) <{negative_slope = 1.000000e-02 : f64}>
func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = rlx.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = rlx.hardtanh %0 min_val 0.0 max_val 6.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = rlx.hardtanh %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = rlx.hardswish %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = rlx.hardsigmoid %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = rlx.sigmoid %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = rlx.silu %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = rlx.gelu %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = rlx.gelu %7 approximate "tanh" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = rlx.leaky_relu %8 negative_slope 0.2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = rlx.leaky_relu %9 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %10 : tensor<2x3xf32>
}

// Defaults spelled out are dropped on printing.
// CHECK-LABEL: func.func @explicit_defaults
// CHECK:       rlx.hardtanh %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK:       rlx.gelu %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK:       rlx.leaky_relu %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK:       rlx.threshold_backward %{{.*}}, %{{.*}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
func.func @explicit_defaults(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = rlx.hardtanh %x min_val -1.0 max_val 1.0 : (tensor<4xf64>) -> tensor<4xf64>
  %1 = rlx.gelu %0 approximate "none" : (tensor<4xf64>) -> tensor<4xf64>
  %2 = rlx.leaky_relu %1 negative_slope 0.01 : (tensor<4xf64>) -> tensor<4xf64>
  %3 = rlx.threshold_backward %2, %x threshold 0.0 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %3 : tensor<4xf64>
}

// A 0-d tensor and a dynamic leading dimension.
// CHECK-LABEL: func.func @zero_d_and_dynamic
// CHECK:       rlx.sigmoid %{{.*}} : (tensor<f64>) -> tensor<f64>
// CHECK:       rlx.silu_backward %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
func.func @zero_d_and_dynamic(%s: tensor<f64>, %dy: tensor<?x4xf32>, %x: tensor<?x4xf32>) -> (tensor<f64>, tensor<?x4xf32>) {
  %0 = rlx.sigmoid %s : (tensor<f64>) -> tensor<f64>
  %1 = rlx.silu_backward %dy, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0, %1 : tensor<f64>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @backward
// CHECK:       rlx.threshold_backward %{{.*}}, %{{.*}} threshold 5.000000e-01 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:       rlx.hardtanh_backward %{{.*}}, %{{.*}} min_val 0.000000e+00 max_val 6.000000e+00 : (
// CHECK:       rlx.hardtanh_backward %{{.*}}, %{{.*}} max_val 2.500000e+00 : (
// CHECK:       rlx.hardswish_backward %{{.*}}, %{{.*}} : (
// CHECK:       rlx.hardsigmoid_backward %{{.*}}, %{{.*}} : (
// CHECK:       rlx.sigmoid_backward %{{.*}}, %{{.*}} : (
// CHECK:       rlx.silu_backward %{{.*}}, %{{.*}} : (
// CHECK:       rlx.gelu_backward %{{.*}}, %{{.*}} : (
// CHECK:       rlx.gelu_backward %{{.*}}, %{{.*}} approximate "tanh" : (
// CHECK:       rlx.leaky_relu_backward %{{.*}}, %{{.*}} negative_slope -2.000000e-01 : (
// GENERIC-LABEL: sym_name = "backward"
// GENERIC:     "rlx.threshold_backward"(%{{.*}}, %{{.*}}) <{threshold = 5.000000e-01 : f64}>
// GENERIC:     "rlx.hardtanh_backward"(%{{.*}}, %{{.*}}) <{min_val = 0.000000e+00 : f64, max_val = 6.000000e+00 : f64}>
// GENERIC:     "rlx.hardtanh_backward"(%{{.*}}, %{{.*}}) <{min_val = -1.000000e+00 : f64, max_val = 2.500000e+00 : f64}>
// GENERIC:     "rlx.gelu_backward"(%{{.*}}, %{{.*}}) <{approximate = "none"}>
// GENERIC:     "rlx.gelu_backward"(%{{.*}}, %{{.*}}) <{approximate = "tanh"}>
// GENERIC:     "rlx.leaky_relu_backward"(%{{.*}}, %{{.*}}) <{negative_slope = -2.000000e-01 : f64}>
func.func @backward(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = rlx.threshold_backward %dy, %x threshold 0.5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = rlx.hardtanh_backward %0, %x min_val 0.0 max_val 6.0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = rlx.hardtanh_backward %1, %x max_val 2.5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = rlx.hardswish_backward %2, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = rlx.hardsigmoid_backward %3, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = rlx.sigmoid_backward %4, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = rlx.silu_backward %5, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = rlx.gelu_backward %6, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = rlx.gelu_backward %7, %x approximate "tanh" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = rlx.leaky_relu_backward %8, %x negative_slope -0.2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %9 : tensor<2x3xf32>
}
