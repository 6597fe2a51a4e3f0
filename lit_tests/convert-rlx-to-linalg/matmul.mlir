// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// y[m, n] = sum_k a[m, k] * b[k, n];  batched: y[i, m, n] = sum_k a[i, m, k] * b[i, k, n]

// 2-D: linalg.matmul into zeros.
// CHECK-LABEL: func.func @matmul_2d
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<5x3xf32>)
// CHECK:       %[[Y:.*]] = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>) outs(%[[INIT]] : tensor<5x3xf32>)
// CHECK:       return %[[Y]]
// CHECK-NOT:   rlx.
func.func @matmul_2d(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %y = rlx.matmul %a, %b : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// 2-D with dynamic rows: the init reads them from the lhs.
// CHECK-LABEL: func.func @matmul_2d_dynamic_rows
// CHECK:       %[[M:.*]] = tensor.dim %a, %{{.*}} : tensor<?x7xf32>
// CHECK:       tensor.empty(%[[M]]) : tensor<?x3xf32>
// CHECK:       linalg.matmul ins(%a, %b : tensor<?x7xf32>, tensor<7x3xf32>) outs(%{{.*}} : tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NOT:   rlx.
func.func @matmul_2d_dynamic_rows(%a: tensor<?x7xf32>, %b: tensor<7x3xf32>) -> tensor<?x3xf32> {
  %y = rlx.matmul %a, %b : (tensor<?x7xf32>, tensor<7x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// Batched: one gather-form contraction over (i, m, n, k).
// CHECK-LABEL: func.func @matmul_batched
// CHECK:       %[[Y:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%a, %b : tensor<2x4x5xf32>, tensor<2x5x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK:         %[[P:.*]] = arith.mulf
// CHECK:         arith.addf %{{.*}}, %[[P]] : f32
// CHECK:       return %[[Y]]
// CHECK-NOT:   rlx.
func.func @matmul_batched(%a: tensor<2x4x5xf32>, %b: tensor<2x5x3xf32>) -> tensor<2x4x3xf32> {
  %y = rlx.matmul %a, %b : (tensor<2x4x5xf32>, tensor<2x5x3xf32>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// -----

// Batched with a dynamic batch, f64.
// CHECK-LABEL: func.func @matmul_batched_dynamic_f64
// CHECK:       arith.constant 0.000000e+00 : f64
// CHECK:       %[[B:.*]] = tensor.dim %a, %{{.*}} : tensor<?x4x5xf64>
// CHECK:       tensor.empty(%[[B]]) : tensor<?x4x3xf64>
// CHECK:       linalg.generic {{.*}} ins(%a, %b : tensor<?x4x5xf64>, tensor<?x5x3xf64>) outs(%{{.*}} : tensor<?x4x3xf64>)
// CHECK:         arith.mulf {{.*}} : f64
// CHECK-NOT:   f32
// CHECK-NOT:   rlx.
func.func @matmul_batched_dynamic_f64(%a: tensor<?x4x5xf64>, %b: tensor<?x5x3xf64>) -> tensor<?x4x3xf64> {
  %y = rlx.matmul %a, %b : (tensor<?x4x5xf64>, tensor<?x5x3xf64>) -> tensor<?x4x3xf64>
  return %y : tensor<?x4x3xf64>
}
