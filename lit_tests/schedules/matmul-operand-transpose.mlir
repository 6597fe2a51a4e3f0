// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// The 2-D transpose before a transposed product (Aᵀ·B, A·Bᵀ), here 48x32 -> 32x48: threads
// over the result's rows, then 8x8 blocks (@f32_lanes = 8), each read as one vector<8x8>
// and written transposed; no scalar loop or linalg op is left.
// CHECK-LABEL: func.func @t
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:           scf.for %{{.*}} = %c0 to %c48 step %c8
// CHECK:             vector.transfer_read {{.*}} : memref<8x8xf32, {{.*}}>, vector<8x8xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<8x8xf32>, memref<8x8xf32, {{.*}}>
// CHECK-NOT:   linalg.transpose

// A dimension below one block (5 < 8) is not blocked: the transpose stays one op, on the
// calling thread (too little work for a parallel region: threads.mlir).
// CHECK-LABEL: func.func @narrow
// CHECK-NOT:   scf.forall
// CHECK-NOT:   vector.transfer_read
// CHECK:       linalg.transpose

func.func @t(%x: tensor<48x32xf32>) -> tensor<32x48xf32> {
  %e = tensor.empty() : tensor<32x48xf32>
  %t = linalg.transpose ins(%x : tensor<48x32xf32>) outs(%e : tensor<32x48xf32>) permutation = [1, 0]
  return %t : tensor<32x48xf32>
}

func.func @narrow(%x: tensor<5x32xf32>) -> tensor<32x5xf32> {
  %e = tensor.empty() : tensor<32x5xf32>
  %t = linalg.transpose ins(%x : tensor<5x32xf32>) outs(%e : tensor<32x5xf32>) permutation = [1, 0]
  return %t : tensor<32x5xf32>
}
