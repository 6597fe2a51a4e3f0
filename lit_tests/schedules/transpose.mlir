// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// NCHW -> NHWC (the channels-last conv gradients' operands): threads over the result's
// dimension 1, then 8x8 blocks, each read as 8 rows of 8 and written as 8 rows of 8.
// CHECK-LABEL: func.func @t
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:             vector.transfer_read {{.*}} : memref<1x8x1x8xf32, {{.*}}>, vector<1x8x1x8xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<1x1x8x8xf32>, memref<1x1x8x8xf32, {{.*}}>

func.func @t(%x: tensor<2x16x24x16xf32>) -> tensor<2x24x16x16xf32> {
  %e = tensor.empty() : tensor<2x24x16x16xf32>
  %t = linalg.transpose ins(%x : tensor<2x16x24x16xf32>) outs(%e : tensor<2x24x16x16xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<2x24x16x16xf32>
}
