// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The embedding ops in their custom form. padding_idx -1 and scale_grad_by_freq false
// (ATen's defaults) are left out when printed; the generic form always carries them.

// CHECK-LABEL: func.func @embedding_defaults
// CHECK:       rlx.embedding %{{.*}}, %{{.*}} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK:       rlx.embedding_backward %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// GENERIC-LABEL: sym_name = "embedding_defaults"
// GENERIC:     "rlx.embedding"(%{{.*}}, %{{.*}}) <{padding_idx = -1 : i64, scale_grad_by_freq = false}>
// GENERIC:     "rlx.embedding_backward"(%{{.*}}, %{{.*}}) <{padding_idx = -1 : i64, scale_grad_by_freq = false}>
func.func @embedding_defaults(%w: tensor<10x4xf32>, %t: tensor<2x3xi64>, %dy: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<10x4xf32>) {
  %y = rlx.embedding %w, %t : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %dw = rlx.embedding_backward %dy, %t : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return %y, %dw : tensor<2x3x4xf32>, tensor<10x4xf32>
}

// A padding row, frequency scaling and a dynamic batch of 1-D indices.
// CHECK-LABEL: func.func @embedding_padding_scaled
// CHECK:       rlx.embedding %{{.*}}, %{{.*}} padding_idx 0 scale_grad_by_freq true : (tensor<10x4xf64>, tensor<?xi64>) -> tensor<?x4xf64>
// CHECK:       rlx.embedding_backward %{{.*}}, %{{.*}} padding_idx 0 scale_grad_by_freq true : (tensor<?x4xf64>, tensor<?xi64>) -> tensor<10x4xf64>
// GENERIC-LABEL: sym_name = "embedding_padding_scaled"
// GENERIC:     "rlx.embedding"(%{{.*}}, %{{.*}}) <{padding_idx = 0 : i64, scale_grad_by_freq = true}>
func.func @embedding_padding_scaled(%w: tensor<10x4xf64>, %t: tensor<?xi64>, %dy: tensor<?x4xf64>) -> (tensor<?x4xf64>, tensor<10x4xf64>) {
  %y = rlx.embedding %w, %t padding_idx 0 scale_grad_by_freq true : (tensor<10x4xf64>, tensor<?xi64>) -> tensor<?x4xf64>
  %dw = rlx.embedding_backward %dy, %t padding_idx 0 scale_grad_by_freq true : (tensor<?x4xf64>, tensor<?xi64>) -> tensor<10x4xf64>
  return %y, %dw : tensor<?x4xf64>, tensor<10x4xf64>
}

// 0-d indices: one row.
// CHECK-LABEL: func.func @embedding_scalar_index
// CHECK:       rlx.embedding %{{.*}}, %{{.*}} : (tensor<10x4xf32>, tensor<i64>) -> tensor<4xf32>
func.func @embedding_scalar_index(%w: tensor<10x4xf32>, %t: tensor<i64>) -> tensor<4xf32> {
  %y = rlx.embedding %w, %t : (tensor<10x4xf32>, tensor<i64>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// gather and scatter_add along a middle dim, the index smaller than the input (and src).
// CHECK-LABEL: func.func @gather_scatter_add
// CHECK:       rlx.gather %{{.*}}, %{{.*}} dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x4x2xf32>
// CHECK:       rlx.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
// GENERIC-LABEL: sym_name = "gather_scatter_add"
// GENERIC:     "rlx.gather"(%{{.*}}, %{{.*}}) <{dim = 1 : i64}>
// GENERIC:     "rlx.scatter_add"(%{{.*}}, %{{.*}}, %{{.*}}) <{dim = 1 : i64}>
func.func @gather_scatter_add(%x: tensor<2x5x3xf32>, %t: tensor<2x4x2xi64>, %s: tensor<2x4x3xf32>) -> (tensor<2x4x2xf32>, tensor<2x5x3xf32>) {
  %y = rlx.gather %x, %t dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x4x2xf32>
  %z = rlx.scatter_add %x, %t, %s dim 1 : (tensor<2x5x3xf32>, tensor<2x4x2xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %y, %z : tensor<2x4x2xf32>, tensor<2x5x3xf32>
}

// A dynamic batch.
// CHECK-LABEL: func.func @gather_scatter_add_dynamic
// CHECK:       rlx.gather %{{.*}}, %{{.*}} dim 0 : (tensor<?x4xf64>, tensor<?x4xi64>) -> tensor<?x4xf64>
// CHECK:       rlx.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim 1 : (tensor<?x4xf64>, tensor<?x4xi64>, tensor<?x4xf64>) -> tensor<?x4xf64>
func.func @gather_scatter_add_dynamic(%x: tensor<?x4xf64>, %t: tensor<?x4xi64>) -> (tensor<?x4xf64>, tensor<?x4xf64>) {
  %y = rlx.gather %x, %t dim 0 : (tensor<?x4xf64>, tensor<?x4xi64>) -> tensor<?x4xf64>
  %z = rlx.scatter_add %x, %t, %x dim 1 : (tensor<?x4xf64>, tensor<?x4xi64>, tensor<?x4xf64>) -> tensor<?x4xf64>
  return %y, %z : tensor<?x4xf64>, tensor<?x4xf64>
}

// index_select along a middle dim and, with a dynamic length, along the rows.
// CHECK-LABEL: func.func @index_select
// CHECK:       rlx.index_select %{{.*}}, %{{.*}} dim 1 : (tensor<2x5x3xf32>, tensor<4xi64>) -> tensor<2x4x3xf32>
// CHECK:       rlx.index_select %{{.*}}, %{{.*}} dim 0 : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
// GENERIC-LABEL: sym_name = "index_select"
// GENERIC:     "rlx.index_select"(%{{.*}}, %{{.*}}) <{dim = 1 : i64}>
func.func @index_select(%x: tensor<2x5x3xf32>, %t: tensor<4xi64>, %r: tensor<?x3xf32>, %u: tensor<?xi64>) -> (tensor<2x4x3xf32>, tensor<?x3xf32>) {
  %y = rlx.index_select %x, %t dim 1 : (tensor<2x5x3xf32>, tensor<4xi64>) -> tensor<2x4x3xf32>
  %z = rlx.index_select %r, %u dim 0 : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  return %y, %z : tensor<2x4x3xf32>, tensor<?x3xf32>
}

// scatter (src) and scatter_value (a float property, always printed).
// CHECK-LABEL: func.func @scatter_forms
// CHECK:       rlx.scatter %{{.*}}, %{{.*}}, %{{.*}} dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x6xf32>) -> tensor<4x5xf32>
// CHECK:       rlx.scatter_value %{{.*}}, %{{.*}} dim 1 value 1.500000e+00 : (tensor<4x5xf32>, tensor<3x5xi64>) -> tensor<4x5xf32>
// GENERIC-LABEL: sym_name = "scatter_forms"
// GENERIC:     "rlx.scatter"(%{{.*}}, %{{.*}}, %{{.*}}) <{dim = 0 : i64}>
// GENERIC:     "rlx.scatter_value"(%{{.*}}, %{{.*}}) <{dim = 1 : i64, value = 1.500000e+00 : f64}>
func.func @scatter_forms(%x: tensor<4x5xf32>, %t: tensor<3x5xi64>, %s: tensor<3x6xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %y = rlx.scatter %x, %t, %s dim 0 : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x6xf32>) -> tensor<4x5xf32>
  %z = rlx.scatter_value %x, %t dim 1 value 1.5 : (tensor<4x5xf32>, tensor<3x5xi64>) -> tensor<4x5xf32>
  return %y, %z : tensor<4x5xf32>, tensor<4x5xf32>
}

// index and index_put: the index tensors in brackets; accumulate false (the default) is
// left out when printed. The index tensors share one type here: upstream IRDL binds one
// type to every value of a variadic operand (broadcast ones: convert-rlx-to-linalg/indexing-advanced.mlir).
// CHECK-LABEL: func.func @advanced_indexing
// CHECK:       rlx.index %{{.*}}[%{{.*}}, %{{.*}}] : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<6xi64>) -> tensor<6x3xf32>
// CHECK:       rlx.index_put %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} accumulate true : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<6xi64>, tensor<3xf32>) -> tensor<4x5x3xf32>
// CHECK:       rlx.index_put %{{.*}}[%{{.*}}], %{{.*}} : (tensor<?x3xf32>, tensor<?xi64>, tensor<f32>) -> tensor<?x3xf32>
// GENERIC-LABEL: sym_name = "advanced_indexing"
// GENERIC:     "rlx.index"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<6xi64>) -> tensor<6x3xf32>
// GENERIC:     "rlx.index_put"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{accumulate = true}>
// GENERIC:     "rlx.index_put"(%{{.*}}, %{{.*}}, %{{.*}}) <{accumulate = false}>
func.func @advanced_indexing(%x: tensor<4x5x3xf32>, %i: tensor<6xi64>, %j: tensor<6xi64>, %v: tensor<3xf32>,
                             %d: tensor<?x3xf32>, %k: tensor<?xi64>, %s: tensor<f32>) -> (tensor<6x3xf32>, tensor<4x5x3xf32>, tensor<?x3xf32>) {
  %y = rlx.index %x[%i, %j] : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<6xi64>) -> tensor<6x3xf32>
  %z = rlx.index_put %x[%i, %j], %v accumulate true : (tensor<4x5x3xf32>, tensor<6xi64>, tensor<6xi64>, tensor<3xf32>) -> tensor<4x5x3xf32>
  %w = rlx.index_put %d[%k], %s : (tensor<?x3xf32>, tensor<?xi64>, tensor<f32>) -> tensor<?x3xf32>
  return %y, %z, %w : tensor<6x3xf32>, tensor<4x5x3xf32>, tensor<?x3xf32>
}
