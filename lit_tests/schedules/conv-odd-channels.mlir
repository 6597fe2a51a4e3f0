// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// A stride-1 conv whose channels (24) the 16-channel step does not divide, and whose
// filters (12) the 8-filter block does not: x and the weight are padded with zero channels
// to 32, the weight and the result with zero filters to 16, the conv runs as the usual
// register tiles (FMAs along ow in a thread loop), and the result's 12 filters are copied
// out (2x12x16x16: on the calling thread, too little work for a parallel region,
// threads.mlir). Without the padding the last channel step and filter block had dynamic
// sizes and the whole conv stayed scalar loops.
// CHECK-LABEL: func.func @odd_channels_and_filters
// CHECK-DAG:   memref.alloc() {{.*}} : memref<2x32x18x18xf32>
// CHECK-DAG:   memref.alloc() {{.*}} : memref<16x32x3x3xf32>
// CHECK:       scf.forall
// CHECK:           vector.fma {{.*}} : vector<{{8|16}}xf32>
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK-NOT:   scf.forall
// CHECK:       linalg.copy ins(%{{.*}} : memref<2x12x16x16xf32, {{.*}}>)
// CHECK:       return
//
// Channels that 16 divides (32) and filters that 8 divides (16) are not padded: the conv
// reads x and the weight in place.
// CHECK-LABEL: func.func @whole_steps
// CHECK-NOT:   linalg.copy
// CHECK:       scf.forall
// CHECK:           vector.fma
// CHECK-NOT:   linalg.copy
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       return

builtin.module {
  func.func @odd_channels_and_filters(%x: tensor<2x24x18x18xf32>, %w: tensor<12x24x3x3xf32>) -> tensor<2x12x16x16xf32> {
    %0 = tensor.empty() : tensor<2x12x16x16xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x12x16x16xf32>) -> tensor<2x12x16x16xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x24x18x18xf32>, tensor<12x24x3x3xf32>) outs(%2 : tensor<2x12x16x16xf32>) -> tensor<2x12x16x16xf32>
    func.return %y : tensor<2x12x16x16xf32>
  }
  func.func @whole_steps(%x: tensor<2x32x18x18xf32>, %w: tensor<16x32x3x3xf32>) -> tensor<2x16x16x16xf32> {
    %0 = tensor.empty() : tensor<2x16x16x16xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x32x18x18xf32>, tensor<16x32x3x3xf32>) outs(%2 : tensor<2x16x16x16xf32>) -> tensor<2x16x16x16xf32>
    func.return %y : tensor<2x16x16x16xf32>
  }
}
