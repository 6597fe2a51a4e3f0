// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// Fewer images than threads (2 in params.mlir) and fewer than 8 filters (the stem's dx at
// batch 1 has 3): the thread loop runs over the output rows, so one image still has work
// for every thread, and each row's register tiles are static and vectorize. At batch 2
// (lit_tests/schedules/conv.mlir) and a dynamic batch the loop stays one image per iteration.
// CHECK-LABEL: func.func @conv_one_image_few_filters
// CHECK:       scf.forall (%{{.*}}) in (20)
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<3x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:   linalg.generic
// CHECK-LABEL: func.func @conv_dynamic_batch_few_filters
// CHECK:       %[[N:.*]] = memref.dim %{{.*}}, %c0
// CHECK:       scf.forall (%{{.*}}) in (%[[N]])
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<3x8xf32>)

builtin.module {
  func.func @conv_one_image_few_filters(%x: tensor<1x16x22x18xf32>, %w: tensor<3x16x3x3xf32>) -> tensor<1x3x20x16xf32> {
    %0 = tensor.empty() : tensor<1x3x20x16xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<1x3x20x16xf32>) -> tensor<1x3x20x16xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x22x18xf32>, tensor<3x16x3x3xf32>) outs(%2 : tensor<1x3x20x16xf32>) -> tensor<1x3x20x16xf32>
    func.return %y : tensor<1x3x20x16xf32>
  }
  func.func @conv_dynamic_batch_few_filters(%x: tensor<?x16x10x10xf32>, %w: tensor<3x16x3x3xf32>) -> tensor<?x3x8x8xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x16x10x10xf32>
    %0 = tensor.empty(%n) : tensor<?x3x8x8xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x16x10x10xf32>, tensor<3x16x3x3xf32>) outs(%2 : tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
    func.return %y : tensor<?x3x8x8xf32>
  }
}
