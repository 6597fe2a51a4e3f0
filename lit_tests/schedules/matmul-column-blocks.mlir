// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// Each thread's columns of a packed product are cut into column blocks whose width follows
// the depth K (@cut_into_column_blocks), rows and then columns of register tiles inside
// each block. With @num_threads = 2 and @f32_lanes = 8 (N0 = 16).

// K = 768: blocks of 256 columns, two per thread's 512.
// CHECK-LABEL: func.func @medium_depth
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for {{.*}} = %c0 to %c512 step %c256
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for {{.*}} = %c0 to %c256 step %c16
// CHECK:               scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK-COUNT-8:         vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:   linalg.
// CHECK:       return
func.func @medium_depth(%a: tensor<64x768xf32>, %b: tensor<768x1024xf32>) -> tensor<64x1024xf32> {
  %0 = tensor.empty() : tensor<64x1024xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%a, %b : tensor<64x768xf32>, tensor<768x1024xf32>) outs(%2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// K = 1536: blocks of 128 columns.
// CHECK-LABEL: func.func @deep
// CHECK:         scf.for {{.*}} = %c0 to %c256 step %c128
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for {{.*}} = %c0 to %c128 step %c16
// CHECK:       return
func.func @deep(%a: tensor<64x1536xf32>, %b: tensor<1536x512xf32>) -> tensor<64x512xf32> {
  %0 = tensor.empty() : tensor<64x512xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %y = linalg.matmul ins(%a, %b : tensor<64x1536xf32>, tensor<1536x512xf32>) outs(%2 : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// K = 384, 640 columns per thread: a block of 512 and a narrower one of 128. The column
// tiles past a block's last whole one are peeled, so the whole tiles are written straight
// into the result; the thread's share of the result is never copied to a buffer.
// CHECK-LABEL: func.func @shallow_narrower_last_block
// CHECK-NOT:     memref.alloc() {{.*}} : memref<64x640xf32>
// CHECK:         scf.for {{.*}} = %c0 to %c640 step %c512
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for
// CHECK-COUNT-8:         vector.fma {{.*}} : vector<16xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<8x16xf32>, memref<8x16xf32, strided<[1280, 1], {{.*}}>>
// CHECK:       return
func.func @shallow_narrower_last_block(%a: tensor<64x384xf32>, %b: tensor<384x1280xf32>) -> tensor<64x1280xf32> {
  %0 = tensor.empty() : tensor<64x1280xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<64x1280xf32>) -> tensor<64x1280xf32>
  %y = linalg.matmul ins(%a, %b : tensor<64x384xf32>, tensor<384x1280xf32>) outs(%2 : tensor<64x1280xf32>) -> tensor<64x1280xf32>
  return %y : tensor<64x1280xf32>
}

// A dynamic M at K <= 512: the thread's columns stay whole (per-block buffers would be
// copied into the thread's share, which costs more than blocks repay at this depth).
// CHECK-LABEL: func.func @shallow_dynamic_rows
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK-NOT:     step %c512
// CHECK:         vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:     step %c512
// CHECK:       return
func.func @shallow_dynamic_rows(%a: tensor<?x384xf32>, %b: tensor<384x1280xf32>) -> tensor<?x1280xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x384xf32>
  %0 = tensor.empty(%m) : tensor<?x1280xf32>
  %1 = arith.constant 0.000000e+00 : f32
  %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x1280xf32>) -> tensor<?x1280xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x384xf32>, tensor<384x1280xf32>) outs(%2 : tensor<?x1280xf32>) -> tensor<?x1280xf32>
  return %y : tensor<?x1280xf32>
}
