// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// The `optimizing` pipelines' schedule on batched products y[b, m, n] = sum_k a[b, m, k] * c[b, k, n]
// (batch_matmul.mlir): threads over the batch, one product at a time in 32-column tiles,
// 8 rows x 1 k per register tile, whose accumulator stays in registers across k and whose
// contraction becomes 8 FMAs on whole 32-wide rows. No scalar loop body is left.

// The generic convert-rlx-to-linalg emits for a 3-D rlx.matmul, specialized first.
// CHECK-LABEL: func.func @bmm
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:             scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:               scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-8:         vector.fma {{.*}} : vector<32xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<8x32xf32>
// CHECK-NOT:   memref.load
// CHECK-NOT:   arith.mulf {{.*}} : f32
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   linalg.batch_matmul

// linalg.batch_matmul with a dynamic batch: the threads split it at run time.
// CHECK-LABEL: func.func @bmm_named_dynamic
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-8:       vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:   memref.load
// CHECK-NOT:   arith.mulf {{.*}} : f32
// CHECK-NOT:   linalg.batch_matmul

// Attention's scores over a ViT's 197 tokens: 24 whole 8-row tiles and 5 rows peeled off
// one at a time; in each product six whole 32-column tiles and a peeled 5-column one.
// Vector code everywhere: no linalg.batch_matmul, no scalar multiply.
// CHECK-LABEL: func.func @bmm_197_tokens
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-8:   vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:   arith.mulf {{.*}} : f32
// CHECK-NOT:   linalg.batch_matmul
// CHECK:       return

builtin.module {
  func.func @bmm(%a: tensor<4x16x8xf32>, %b: tensor<4x8x64xf32>) -> tensor<4x16x64xf32> {
    %0 = tensor.empty() : tensor<4x16x64xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x16x8xf32>, tensor<4x8x64xf32>) outs(%2 : tensor<4x16x64xf32>) {
    ^bb0(%x: f32, %w: f32, %acc: f32):
      %p = arith.mulf %x, %w : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<4x16x64xf32>
    func.return %y : tensor<4x16x64xf32>
  }
  func.func @bmm_named_dynamic(%a: tensor<?x16x8xf32>, %b: tensor<?x8x32xf32>) -> tensor<?x16x32xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?x16x8xf32>
    %0 = tensor.empty(%n) : tensor<?x16x32xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x16x32xf32>) -> tensor<?x16x32xf32>
    %y = linalg.batch_matmul ins(%a, %b : tensor<?x16x8xf32>, tensor<?x8x32xf32>) outs(%2 : tensor<?x16x32xf32>) -> tensor<?x16x32xf32>
    func.return %y : tensor<?x16x32xf32>
  }
  func.func @bmm_197_tokens(%a: tensor<4x197x64xf32>, %b: tensor<4x64x197xf32>) -> tensor<4x197x197xf32> {
    %0 = tensor.empty() : tensor<4x197x197xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<4x197x197xf32>) -> tensor<4x197x197xf32>
    %y = linalg.batch_matmul ins(%a, %b : tensor<4x197x64xf32>, tensor<4x64x197xf32>) outs(%2 : tensor<4x197x197xf32>) -> tensor<4x197x197xf32>
    func.return %y : tensor<4x197x197xf32>
  }
}
