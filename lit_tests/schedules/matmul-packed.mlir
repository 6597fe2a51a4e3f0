// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// A product large enough to pack (M, K >= 64, N >= 16, f32), 256x128 @ 128x256, with
// @f32_lanes = 8 (N0 = 16): A packed into 8-row panels (16x8 transposed blocks), B into
// 16-column panels, then threads over the result's columns, and per 8x16 tile of the
// result a k loop whose accumulator starts from zeros in registers (the packed result's
// zero fill folded away), 8 FMAs of vector<16xf32> per k, written straight into the
// result: the packed result is never in memory, no linalg op is left, not even a fill.
// CHECK-LABEL: func.func @packed
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_write {{.*}} : vector<16x8xf32>, memref<1x16x8xf32, {{.*}}>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_write {{.*}} : vector<16x16xf32>, memref<1x16x16xf32, {{.*}}>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for {{.*}} step %c8
// CHECK:           scf.for {{.*}} step %c16
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x16xf32>)
// CHECK-COUNT-8:       vector.fma {{.*}} : vector<16xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<8x16xf32>, memref<8x16xf32, strided<[256, 1], {{.*}}>>
// CHECK-NOT:   linalg.
// CHECK-NOT:   scf.forall
// CHECK:       return

// Sizes the tiles do not divide (257 rows, 131 k): the packs pad the edge tiles, which stay
// loops (lowered to pad/transpose), while whole tiles and the register tiles are vector code.
// CHECK-LABEL: func.func @padded
// CHECK:         vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:   linalg.pack
// CHECK-NOT:   linalg.unpack
// CHECK-NOT:   linalg.matmul

// A·Bᵀ, B stored N x K: the transpose is absorbed by B's pack (its 16x16 blocks read
// transposed), so no transpose op and no transposed copy of B is left.
// CHECK-LABEL: func.func @transposed_b
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_write {{.*}} : vector<16x8xf32>, memref<1x16x8xf32, {{.*}}>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_read {{.*}} : memref<16x16xf32, strided<[128, 1], {{.*}}>, vector<16x16xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<16x16xf32>, memref<1x16x16xf32, {{.*}}>
// CHECK:       vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:   linalg.
// CHECK:       return

// A dynamic M (batch x tokens) is packed too: A's pack pads the rows to whole 8-row
// panels, so every register tile is static whatever M is at run time.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:       memref.alloc(%{{.*}}) {{.*}} : memref<?x128x8xf32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x16xf32>)
// CHECK-COUNT-8:   vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:   linalg.matmul
// CHECK:       return

func.func @packed(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>) -> tensor<256x256xf32> {
  %0 = tensor.empty() : tensor<256x256xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %y = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

func.func @padded(%a: tensor<257x131xf32>, %b: tensor<131x256xf32>) -> tensor<257x256xf32> {
  %0 = tensor.empty() : tensor<257x256xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<257x256xf32>) -> tensor<257x256xf32>
  %y = linalg.matmul ins(%a, %b : tensor<257x131xf32>, tensor<131x256xf32>) outs(%2 : tensor<257x256xf32>) -> tensor<257x256xf32>
  return %y : tensor<257x256xf32>
}

func.func @transposed_b(%a: tensor<256x128xf32>, %bt: tensor<256x128xf32>) -> tensor<256x256xf32> {
  %e = tensor.empty() : tensor<128x256xf32>
  %b = linalg.transpose ins(%bt : tensor<256x128xf32>) outs(%e : tensor<128x256xf32>) permutation = [1, 0]
  %0 = tensor.empty() : tensor<256x256xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %y = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

func.func @dynamic_rows(%a: tensor<?x128xf32>, %b: tensor<128x256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x128xf32>
  %0 = tensor.empty(%m) : tensor<?x256xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x128xf32>, tensor<128x256xf32>) outs(%2 : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
