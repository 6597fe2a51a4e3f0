// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// A stride-1 conv narrower than one vector (ow = 7 < 8 lanes; ResNet's last stage): x is
// padded with one zero column, the conv computes 8 columns with the usual 8 f x 8 ow
// register tiles on the thread loop, and the result is the first 7 (a subview). The
// weight is not padded, so it is read in place (no copy).
// CHECK-LABEL: func.func @conv_narrow
// CHECK:       memref.alloc() {{.*}} : memref<2x16x9x10xf32>
// CHECK-NOT:   memref.copy %arg1
// CHECK:       scf.forall (%{{.*}}, %{{.*}}) in (2, 2)
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8x8xf32>)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK-NOT:   memref.copy %arg1
// CHECK:       memref.subview {{.*}} [2, 16, 7, 7] [1, 1, 1, 1] : memref<2x16x7x8xf32> to memref<2x16x7x7xf32
//
// A strided narrow conv is left alone (the padding would size its input by a negative
// amount); the backend lowers strided forward convs as stride-1 phases instead.
// CHECK-LABEL: func.func @conv_narrow_strided
// CHECK:       linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>}

builtin.module {
  func.func @conv_narrow(%x: tensor<2x16x9x9xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<2x16x7x7xf32> {
    %0 = tensor.empty() : tensor<2x16x7x7xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x16x7x7xf32>) -> tensor<2x16x7x7xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x16x9x9xf32>, tensor<16x16x3x3xf32>) outs(%2 : tensor<2x16x7x7xf32>) -> tensor<2x16x7x7xf32>
    func.return %y : tensor<2x16x7x7xf32>
  }
  func.func @conv_narrow_strided(%x: tensor<2x16x13x13xf32>, %w: tensor<16x16x2x2xf32>) -> tensor<2x16x4x4xf32> {
    %0 = tensor.empty() : tensor<2x16x4x4xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
    %y = linalg.conv_2d_nchw_fchw {strides = dense<3> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x16x13x13xf32>, tensor<16x16x2x2xf32>) outs(%2 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
    func.return %y : tensor<2x16x4x4xf32>
  }
}
