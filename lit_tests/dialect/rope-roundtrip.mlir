// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The RoPE ops in their custom form. layout "rotate_half" (HF Llama's) is left out when
// printed; the generic form always carries it.

// CHECK-LABEL: func.func @rope_rotate_half
// CHECK:       rlx.rope %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x3x4x8xf32>
// CHECK:       rlx.rope_backward %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x3x4x8xf32>
// GENERIC-LABEL: sym_name = "rope_rotate_half"
// GENERIC:     "rlx.rope"(%{{.*}}, %{{.*}}, %{{.*}}) <{layout = "rotate_half"}>
// GENERIC:     "rlx.rope_backward"(%{{.*}}, %{{.*}}, %{{.*}}) <{layout = "rotate_half"}>
func.func @rope_rotate_half(%x: tensor<2x3x4x8xf32>, %cos: tensor<4x8xf32>, %sin: tensor<4x8xf32>) -> (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) {
  %y = rlx.rope %x, %cos, %sin : (tensor<2x3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x3x4x8xf32>
  %dx = rlx.rope_backward %y, %cos, %sin : (tensor<2x3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x3x4x8xf32>
  return %y, %dx : tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>
}

// Interleaved pairs, a dynamic batch and HF's [B, 1, T, D] tables.
// CHECK-LABEL: func.func @rope_interleaved
// CHECK:       rlx.rope %{{.*}}, %{{.*}}, %{{.*}} layout "interleaved" : (tensor<?x4x6xf64>, tensor<1x4x6xf64>, tensor<1x4x6xf64>) -> tensor<?x4x6xf64>
// CHECK:       rlx.rope_backward %{{.*}}, %{{.*}}, %{{.*}} layout "interleaved" : (tensor<?x4x6xf64>, tensor<1x4x6xf64>, tensor<1x4x6xf64>) -> tensor<?x4x6xf64>
// GENERIC-LABEL: sym_name = "rope_interleaved"
// GENERIC:     "rlx.rope"(%{{.*}}, %{{.*}}, %{{.*}}) <{layout = "interleaved"}>
func.func @rope_interleaved(%x: tensor<?x4x6xf64>, %cos: tensor<1x4x6xf64>, %sin: tensor<1x4x6xf64>) -> (tensor<?x4x6xf64>, tensor<?x4x6xf64>) {
  %y = rlx.rope %x, %cos, %sin layout "interleaved" : (tensor<?x4x6xf64>, tensor<1x4x6xf64>, tensor<1x4x6xf64>) -> tensor<?x4x6xf64>
  %dx = rlx.rope_backward %y, %cos, %sin layout "interleaved" : (tensor<?x4x6xf64>, tensor<1x4x6xf64>, tensor<1x4x6xf64>) -> tensor<?x4x6xf64>
  return %y, %dx : tensor<?x4x6xf64>, tensor<?x4x6xf64>
}
