// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// rlx.conv2d as convert-rlx-to-linalg emits it (linalg.conv_2d_nchw_fchw), ow = 14:
// one image and 8 filters per scf.forall iteration, ow split into continuous chunks of 8, 4 and 2 columns (each a
// static vector width), 8 f x ow-chunk register tiles accumulated in registers over
// (c, kh, kw): per c, a broadcast weight times a row of x.
// CHECK-LABEL: func.func @conv
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (2, 4)
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:             vector.broadcast {{.*}} : f32 to vector<8xf32>
// CHECK:             vector.fma {{.*}} : vector<8xf32>
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x4xf32>)
// CHECK:           vector.fma {{.*}} : vector<4xf32>
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x2xf32>)
// CHECK:           vector.fma {{.*}} : vector<2xf32>

// An odd and a dynamic batch vectorize alike: every forall iteration holds one image.
// Fewer than 8 filters (the stem's dx has 3): one image per iteration, a 3-filter tile.
// CHECK-LABEL: func.func @conv_few_filters
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<3x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-LABEL: func.func @conv_odd_batch
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (7, 4)
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-LABEL: func.func @conv_dynamic_batch
// CHECK:       %[[N:.*]] = memref.dim %{{.*}}, %c0
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (%[[N]], 4)
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>

// A dynamic batch and 24 channels (not padded to 32, as a static batch is): the last
// channel step, 8 of 24, is peeled, so both steps are vector FMAs (16 and 8 channels x 8
// filters per tap), none scalar.
// CHECK-LABEL: func.func @conv_dynamic_batch_short_channel_step
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, 4)
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK-COUNT-128: vector.fma {{.*}} : vector<8xf32>
// CHECK:         scf.for
// CHECK-COUNT-64: vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:     arith.mulf {{.*}} : f32
// CHECK:       return

builtin.module {
  func.func @conv(%x: tensor<2x16x16x16xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x14x14xf32> {
    %0 = tensor.empty() : tensor<2x32x14x14xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x16x16x16xf32>, tensor<32x16x3x3xf32>) outs(%2 : tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
    func.return %y : tensor<2x32x14x14xf32>
  }
  func.func @conv_few_filters(%x: tensor<2x16x10x10xf32>, %w: tensor<3x16x3x3xf32>) -> tensor<2x3x8x8xf32> {
    %0 = tensor.empty() : tensor<2x3x8x8xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x16x10x10xf32>, tensor<3x16x3x3xf32>) outs(%2 : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
    func.return %y : tensor<2x3x8x8xf32>
  }
  func.func @conv_odd_batch(%x: tensor<7x16x10x10xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<7x32x8x8xf32> {
    %0 = tensor.empty() : tensor<7x32x8x8xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<7x32x8x8xf32>) -> tensor<7x32x8x8xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<7x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%2 : tensor<7x32x8x8xf32>) -> tensor<7x32x8x8xf32>
    func.return %y : tensor<7x32x8x8xf32>
  }
  func.func @conv_dynamic_batch(%x: tensor<?x16x10x10xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<?x32x8x8xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x16x10x10xf32>
    %0 = tensor.empty(%n) : tensor<?x32x8x8xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%2 : tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
    func.return %y : tensor<?x32x8x8xf32>
  }
  func.func @conv_dynamic_batch_short_channel_step(%x: tensor<?x24x10x10xf32>, %w: tensor<32x24x3x3xf32>) -> tensor<?x32x8x8xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x24x10x10xf32>
    %0 = tensor.empty(%n) : tensor<?x32x8x8xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x24x10x10xf32>, tensor<32x24x3x3xf32>) outs(%2 : tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
    func.return %y : tensor<?x32x8x8xf32>
  }
}
