// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// rlx.conv2d as convert-rlx-to-linalg emits it (linalg.conv_2d_nchw_fchw), ow = 14:
// threads over the batch, ow split into continuous chunks of 8, 4 and 2 columns (each a
// static vector width), 8 f x ow-chunk register tiles accumulated in registers over
// (c, kh, kw): per c, a broadcast weight times a row of x.
// CHECK-LABEL: func.func @conv
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:             vector.broadcast {{.*}} : f32 to vector<8xf32>
// CHECK:             vector.fma {{.*}} : vector<8xf32>
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x4xf32>)
// CHECK:           vector.fma {{.*}} : vector<4xf32>
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x2xf32>)
// CHECK:           vector.fma {{.*}} : vector<2xf32>

builtin.module {
  func.func @conv(%x: tensor<2x16x16x16xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x14x14xf32> {
    %0 = tensor.empty() : tensor<2x32x14x14xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x16x16x16xf32>, tensor<32x16x3x3xf32>) outs(%2 : tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
    func.return %y : tensor<2x32x14x14xf32>
  }
}
