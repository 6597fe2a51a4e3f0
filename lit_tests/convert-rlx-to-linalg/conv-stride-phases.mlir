// RUN: rlx-opt %s --convert-rlx-to-linalg=strided-conv=phases | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | FileCheck %s --check-prefix=DIRECT

// A 3x3 stride-2 conv: one stride-1 conv per stride phase of x (4), each reading a
// contiguous copy of its phase; the 1x1 phase (odd rows, odd columns) on flattened rows.
// CHECK-LABEL: func.func @conv_s2
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK-NOT:     strides = dense<2>
// The default keeps the strided named op.
// DIRECT-LABEL: func.func @conv_s2
// DIRECT:       linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}

func.func @conv_s2(%x: tensor<2x4x14x14xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x7x7xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] : (tensor<2x4x14x14xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x7x7xf32>
  return %y : tensor<2x8x7x7xf32>
}
