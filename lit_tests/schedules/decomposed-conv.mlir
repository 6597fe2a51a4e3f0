// RUN: rlx-opt %s --decompose-backward --convert-rlx-to-linalg | mlir-opt --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// The dense conv gradients as the passes emit them (not hand-written payloads), at an odd
// and a dynamic batch: each kernel runs in a thread loop as vector code. The other kernels
// and configurations are in tests/backend/test_schedules_apply.py.

// The input gradient (stride 1: one phase, linalg.conv_2d_nchw_fchw): one image and 8
// filters per forall iteration, 8 f x 8 ow accumulators across the kh, kw loops, FMAs along ow.
// CHECK-LABEL: func.func @dx_odd_batch
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (7, {{[0-9]+}})
// CHECK:         iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       return
// CHECK-LABEL: func.func @dx_dynamic_batch
// CHECK:       %[[N:.*]] = memref.dim %arg0, %c0
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (%[[N]], {{[0-9]+}})
// CHECK:         iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       return

// A stride-2 input gradient of a 4x4 dy (the WGAN-GP critic's last conv): its four
// phases are 4 columns wide, so each runs on wrapped rows (one 1-row conv per kernel row
// of the flattened padded dy); every one of those convs is scheduled as vector code.
// CHECK-LABEL: func.func @dx_strided_narrow
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (3, 2)
// CHECK:         vector.fma
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       return

// The weight gradient: x and dy to channels-last in 8x8 blocks (transpose.mlir), then the
// rank-7 contraction (conv-weight.mlir) as 4 c x 8 f accumulators; only the [3, 3, F, C]
// weight is transposed by plain loops, on the calling thread (3x3x16x16: too little work
// for a parallel region, threads.mlir).
// CHECK-LABEL: func.func @dw_odd_batch
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_read {{.*}} vector<1x8x1x8xf32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_read {{.*}} vector<1x8x1x8xf32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         iter_args({{.*}}) -> (vector<4x8xf32>)
// CHECK:           arith.mulf {{.*}} : vector<4x8xf32>
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   scf.forall
// CHECK:       linalg.transpose ins(%{{.*}} : memref<3x3x16x16xf32>) outs(%{{.*}} : memref<16x16x3x3xf32>)
// CHECK:       return
// CHECK-LABEL: func.func @dw_dynamic_batch
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_read {{.*}} : memref<1x8x1x8xf32, {{.*}}>, vector<1x8x1x8xf32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_read {{.*}} : memref<1x8x1x8xf32, {{.*}}>, vector<1x8x1x8xf32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         iter_args({{.*}}) -> (vector<4x8xf32>)
// CHECK:           arith.mulf {{.*}} : vector<4x8xf32>
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   scf.forall
// CHECK:       linalg.transpose ins(%{{.*}} : memref<3x3x16x16xf32>) outs(%{{.*}} : memref<16x16x3x3xf32>)
// CHECK:       return

func.func @dx_odd_batch(%dy: tensor<7x16x16x16xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<7x16x16x16xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<7x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<7x16x16x16xf32>
  return %dx : tensor<7x16x16x16xf32>
}
func.func @dx_dynamic_batch(%dy: tensor<?x16x16x16xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<?x16x16x16xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<?x16x16x16xf32>
  return %dx : tensor<?x16x16x16xf32>
}
func.func @dx_strided_narrow(%dy: tensor<3x16x4x4xf32>, %w: tensor<16x16x4x4xf32>) -> tensor<3x16x8x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [4, 4] stride [2, 2] padding [1, 1] : (tensor<3x16x4x4xf32>, tensor<16x16x4x4xf32>) -> tensor<3x16x8x8xf32>
  return %dx : tensor<3x16x8x8xf32>
}
func.func @dw_odd_batch(%x: tensor<7x16x16x16xf32>, %dy: tensor<7x16x16x16xf32>) -> tensor<16x16x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<7x16x16x16xf32>, tensor<7x16x16x16xf32>) -> tensor<16x16x3x3xf32>
  return %dw : tensor<16x16x3x3xf32>
}
func.func @dw_dynamic_batch(%x: tensor<?x16x16x16xf32>, %dy: tensor<?x16x16x16xf32>) -> tensor<16x16x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x16x16x16xf32>, tensor<?x16x16x16xf32>) -> tensor<16x16x3x3xf32>
  return %dw : tensor<16x16x3x3xf32>
}
