// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The attention ops in their custom form. `scale` is always written (PyTorch's default,
// 1/sqrt(E), is stated by the importer); is_causal false and window 0 are left out.

// No mask, E != Ev.
// CHECK-LABEL: func.func @attention_plain
// CHECK:       %{{.*}}, %{{.*}} = rlx.attention %q, %k, %v scale 5.000000e-01 : (tensor<2x4x8x4xf32>, tensor<2x4x6x4xf32>, tensor<2x4x6x3xf32>) -> (tensor<2x4x8x3xf32>, tensor<2x4x8xf32>)
// GENERIC-LABEL: sym_name = "attention_plain"
// GENERIC:     "rlx.attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{scale = 5.000000e-01 : f64, is_causal = false, window = 0 : i64}>
func.func @attention_plain(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x6x4xf32>, %v: tensor<2x4x6x3xf32>) -> tensor<2x4x8x3xf32> {
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<2x4x8x4xf32>, tensor<2x4x6x4xf32>, tensor<2x4x6x3xf32>) -> (tensor<2x4x8x3xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x3xf32>
}

// Causal, grouped-query (4 query heads share 2 kv heads), a dynamic batch.
// CHECK-LABEL: func.func @attention_causal_gqa
// CHECK:       rlx.attention %q, %k, %v scale 5.000000e-01 is_causal true : (tensor<?x4x8x4xf64>, tensor<?x2x6x4xf64>, tensor<?x2x6x4xf64>) -> (tensor<?x4x8x4xf64>, tensor<?x4x8xf64>)
func.func @attention_causal_gqa(%q: tensor<?x4x8x4xf64>, %k: tensor<?x2x6x4xf64>, %v: tensor<?x2x6x4xf64>) -> tensor<?x4x8xf64> {
  %o, %l = rlx.attention %q, %k, %v scale 0.5 is_causal true : (tensor<?x4x8x4xf64>, tensor<?x2x6x4xf64>, tensor<?x2x6x4xf64>) -> (tensor<?x4x8x4xf64>, tensor<?x4x8xf64>)
  return %l : tensor<?x4x8xf64>
}

// A sliding window of 3 keys, and the backward with the same properties.
// CHECK-LABEL: func.func @attention_window_backward
// CHECK:       rlx.attention_backward %do, %q, %k, %v, %o, %l scale 2.500000e-01 window 3 : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x1x7x4xf32>, tensor<1x1x7x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x1x7x4xf32>, tensor<1x1x7x4xf32>)
func.func @attention_window_backward(%do: tensor<1x2x5x4xf32>, %q: tensor<1x2x5x4xf32>, %k: tensor<1x1x7x4xf32>, %v: tensor<1x1x7x4xf32>, %o: tensor<1x2x5x4xf32>, %l: tensor<1x2x5xf32>) -> tensor<1x1x7x4xf32> {
  %dq, %dk, %dv = rlx.attention_backward %do, %q, %k, %v, %o, %l scale 0.25 window 3 : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x1x7x4xf32>, tensor<1x1x7x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x1x7x4xf32>, tensor<1x1x7x4xf32>)
  return %dk : tensor<1x1x7x4xf32>
}

// A boolean mask (true: attend), broadcast over the batch and heads.
// CHECK-LABEL: func.func @attention_bool_mask
// CHECK:       rlx.attention %q, %k, %v mask %m scale 5.000000e-01 : (tensor<2x4x8x4xf32>, tensor<2x4x6x4xf32>, tensor<2x4x6x4xf32>, tensor<8x6xi1>) -> (tensor<2x4x8x4xf32>, tensor<2x4x8xf32>)
func.func @attention_bool_mask(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x6x4xf32>, %v: tensor<2x4x6x4xf32>, %m: tensor<8x6xi1>) -> tensor<2x4x8x4xf32> {
  %o, %l = rlx.attention %q, %k, %v mask %m scale 0.5 : (tensor<2x4x8x4xf32>, tensor<2x4x6x4xf32>, tensor<2x4x6x4xf32>, tensor<8x6xi1>) -> (tensor<2x4x8x4xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x4xf32>
}

// An additive bias: its backward has the bias's gradient as a fourth result.
// CHECK-LABEL: func.func @attention_bias_backward
// CHECK:       rlx.attention_backward %do, %q, %k, %v, %o, %l mask %b scale 5.000000e-01 is_causal true : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5xf32>, tensor<2x1x7xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<2x1x7xf32>)
func.func @attention_bias_backward(%do: tensor<1x2x5x4xf32>, %q: tensor<1x2x5x4xf32>, %k: tensor<1x2x7x4xf32>, %v: tensor<1x2x7x4xf32>, %o: tensor<1x2x5x4xf32>, %l: tensor<1x2x5xf32>, %b: tensor<2x1x7xf32>) -> tensor<2x1x7xf32> {
  %dq, %dk, %dv, %db = rlx.attention_backward %do, %q, %k, %v, %o, %l mask %b scale 0.5 is_causal true : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5xf32>, tensor<2x1x7xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<2x1x7xf32>)
  return %db : tensor<2x1x7xf32>
}
