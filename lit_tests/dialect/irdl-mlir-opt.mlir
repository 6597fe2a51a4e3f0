// REQUIRES: mlir-opt
// RUN: rlx-opt %s --print-op-generic --print-no-properties | mlir-opt --irdl-file=%rlx_dialects/rlx.irdl.mlir | FileCheck %s
// RUN: rlx-opt %s --print-op-generic --print-no-properties | mlir-opt --irdl-file=%rlx_dialects/rlx.irdl.mlir | rlx-opt | FileCheck %s --check-prefix=BACK
// RUN: rlx-opt %s --print-op-generic --print-no-properties | sed -e 's/, groups = 1 : i64//' | not mlir-opt --irdl-file=%rlx_dialects/rlx.irdl.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: rlx-opt %s --print-op-generic --print-no-properties | sed -e 's/count_include_pad = false/count_include_pad = 0 : i64/' | not mlir-opt --irdl-file=%rlx_dialects/rlx.irdl.mlir 2>&1 | FileCheck %s --check-prefix=WRONG-KIND

// Upstream mlir-opt, given the generated IRDL description of RLX, parses and verifies what
// rlx-opt prints in the generic form with properties as attributes, for every op.
// IRDL checks the operands, the results and that every attribute is present with its
// kind; the shape rules stay with rlx-opt's verifiers.

// What mlir-opt prints, rlx-opt reads back: attributes become properties again.
// BACK-LABEL: func.func @every_op
// BACK: rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x8x8xf32>
// BACK: rlx.avg_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] count_include_pad false :
// BACK: rlx.avg_pool2d_backward %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] :

// MISSING: error: 'rlx.conv2d' op attribute "groups" is expected but not provided
// WRONG-KIND: error: '0 : i64' does not satisfy the constraint

// CHECK-LABEL: func.func @every_op
// CHECK: "rlx.conv2d"(%{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x8x8xf32>
// CHECK: "rlx.conv_transpose2d"(%{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}
// CHECK: "rlx.max_pool2d"(%{{.*}}) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
// CHECK: "rlx.avg_pool2d"(%{{.*}}) {ceil_mode = false, count_include_pad = false, divisor_override = 0 : i64, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
// CHECK: "rlx.matmul"(%{{.*}}, %{{.*}}) : (tensor<?x4x8xf16>, tensor<?x8x16xf16>) -> tensor<?x4x16xf16>
// CHECK: "rlx.im2col"(%{{.*}}) {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK: "rlx.conv2d_backward_weight"(%{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK: "rlx.conv2d_backward_input"(%{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK: "rlx.max_pool2d_backward"(%{{.*}}, %{{.*}}) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
// CHECK: "rlx.avg_pool2d_backward"(%{{.*}}) {ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
func.func @every_op(%x: tensor<?x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %t: tensor<?x6x4x4xf32>, %tw: tensor<6x2x3x3xf32>,
                    %a: tensor<?x4x8xf16>, %b: tensor<?x8x16xf16>) -> tensor<?x4x16xf16> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x8x8xf32>
  %ty = rlx.conv_transpose2d %t, %tw stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<?x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<?x2x8x8xf32>
  %mp = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  %ap = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] count_include_pad false : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  %mm = rlx.matmul %a, %b : (tensor<?x4x8xf16>, tensor<?x8x16xf16>) -> tensor<?x4x16xf16>
  %cols = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>) -> tensor<?x36xf32>
  %dw = rlx.conv2d_backward_weight %x, %y kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>, tensor<?x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  %dx = rlx.conv2d_backward_input %y, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<?x4x8x8xf32>
  %dmp = rlx.max_pool2d_backward %x, %mp kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x8x8xf32>, tensor<?x4x4x4xf32>) -> tensor<?x4x8x8xf32>
  %dap = rlx.avg_pool2d_backward %ap kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x4x4xf32>) -> tensor<?x4x8x8xf32>
  return %mm : tensor<?x4x16xf16>
}
