// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// Every RLX op in its custom form. Properties at their PyTorch default (dilation [1, 1],
// output_padding [0, 0], groups 1, count_include_pad true) are left out when printed;
// the generic form always carries them all. Only the batch dimension may be dynamic.

// CHECK-LABEL: func.func @conv2d_defaults
// CHECK:       rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-LABEL: sym_name = "conv2d_defaults"
// GENERIC:     "rlx.conv2d"(%{{.*}}, %{{.*}}) <{stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv2d_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// Defaults spelled out are dropped on printing.
// CHECK-LABEL: func.func @conv2d_explicit_defaults
// CHECK:       rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [0, 0] : (
func.func @conv2d_explicit_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// Dynamic batch, stride 2, dilation 2, 2 groups: Ho = (9 + 2 - 2*2 - 1) floordiv 2 + 1 = 4.
// CHECK-LABEL: func.func @conv2d_grouped_dilated_dynamic_batch
// CHECK:       rlx.conv2d %{{.*}}, %{{.*}} stride [2, 2] padding [1, 1] dilation [2, 2] groups 2 : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x4x4xf32>
// GENERIC-LABEL: sym_name = "conv2d_grouped_dilated_dynamic_batch"
// GENERIC:     <{stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64}>
func.func @conv2d_grouped_dilated_dynamic_batch(%x: tensor<?x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<?x6x4x4xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [2, 2] groups 2 : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x4x4xf32>
  return %y : tensor<?x6x4x4xf32>
}

// Ho = (4 - 1)*2 - 2*1 + (3 - 1) + 1 + 1 = 8.
// CHECK-LABEL: func.func @conv_transpose2d
// CHECK:       rlx.conv_transpose2d %{{.*}}, %{{.*}} stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<?x4x4x4xf64>, tensor<4x2x3x3xf64>) -> tensor<?x2x8x8xf64>
// GENERIC-LABEL: sym_name = "conv_transpose2d"
// GENERIC:     <{stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv_transpose2d(%x: tensor<?x4x4x4xf64>, %w: tensor<4x2x3x3xf64>) -> tensor<?x2x8x8xf64> {
  %y = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<?x4x4x4xf64>, tensor<4x2x3x3xf64>) -> tensor<?x2x8x8xf64>
  return %y : tensor<?x2x8x8xf64>
}

// CHECK-LABEL: func.func @conv_transpose2d_grouped
// CHECK:       rlx.conv_transpose2d %{{.*}}, %{{.*}} stride [1, 1] padding [0, 0] groups 2 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
func.func @conv_transpose2d_grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [1, 1] padding [0, 0] groups 2 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  return %y : tensor<1x6x7x7xf32>
}

// CHECK-LABEL: func.func @max_pool2d
// CHECK:       rlx.max_pool2d %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x3x8x8xf16>) -> tensor<?x3x4x4xf16>
// GENERIC-LABEL: sym_name = "max_pool2d"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>}>
func.func @max_pool2d(%x: tensor<?x3x8x8xf16>) -> tensor<?x3x4x4xf16> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x3x8x8xf16>) -> tensor<?x3x4x4xf16>
  return %y : tensor<?x3x4x4xf16>
}

// count_include_pad true is the default and is not printed.
// CHECK-LABEL: func.func @avg_pool2d
// CHECK:       rlx.avg_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [1, 1] : (tensor<2x3x8x8xbf16>) -> tensor<2x3x5x5xbf16>
// GENERIC-LABEL: sym_name = "avg_pool2d"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = true}>
func.func @avg_pool2d(%x: tensor<2x3x8x8xbf16>) -> tensor<2x3x5x5xbf16> {
  %y = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [1, 1] count_include_pad true : (tensor<2x3x8x8xbf16>) -> tensor<2x3x5x5xbf16>
  return %y : tensor<2x3x5x5xbf16>
}

// CHECK-LABEL: func.func @avg_pool2d_exclude_pad
// CHECK:       rlx.avg_pool2d %{{.*}} kernel_size [3, 3] stride [1, 1] padding [1, 1] count_include_pad false : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
// GENERIC-LABEL: sym_name = "avg_pool2d_exclude_pad"
// GENERIC:     count_include_pad = false}>
func.func @avg_pool2d_exclude_pad(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> {
  %y = rlx.avg_pool2d %x kernel_size [3, 3] stride [1, 1] padding [1, 1] count_include_pad false : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  return %y : tensor<?x3x8x8xf32>
}

// CHECK-LABEL: func.func @matmul
// CHECK:       rlx.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// GENERIC-LABEL: sym_name = "matmul"
// GENERIC:     "rlx.matmul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @matmul_batched
// CHECK:       rlx.matmul %{{.*}}, %{{.*}} : (tensor<?x4x8xf64>, tensor<?x8x16xf64>) -> tensor<?x4x16xf64>
func.func @matmul_batched(%a: tensor<?x4x8xf64>, %b: tensor<?x8x16xf64>) -> tensor<?x4x16xf64> {
  %c = rlx.matmul %a, %b : (tensor<?x4x8xf64>, tensor<?x8x16xf64>) -> tensor<?x4x16xf64>
  return %c : tensor<?x4x16xf64>
}

// Rows N*Ho*Wo = 2*8*8, columns C*KH*KW = 3*3*3.
// CHECK-LABEL: func.func @im2col
// CHECK:       rlx.im2col %{{.*}} kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>) -> tensor<128x27xf32>
// GENERIC-LABEL: sym_name = "im2col"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}>
func.func @im2col(%x: tensor<2x3x8x8xf32>) -> tensor<128x27xf32> {
  %c = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>) -> tensor<128x27xf32>
  return %c : tensor<128x27xf32>
}

// A dynamic batch makes the row count dynamic.
// CHECK-LABEL: func.func @im2col_dynamic_batch_dilated
// CHECK:       rlx.im2col %{{.*}} kernel_size [3, 3] stride [2, 2] padding [2, 2] dilation [2, 2] : (tensor<?x3x8x8xf32>) -> tensor<?x27xf32>
func.func @im2col_dynamic_batch_dilated(%x: tensor<?x3x8x8xf32>) -> tensor<?x27xf32> {
  %c = rlx.im2col %x kernel_size [3, 3] stride [2, 2] padding [2, 2] dilation [2, 2] : (tensor<?x3x8x8xf32>) -> tensor<?x27xf32>
  return %c : tensor<?x27xf32>
}

// CHECK-LABEL: func.func @conv2d_backward_weight
// CHECK:       rlx.conv2d_backward_weight %{{.*}}, %{{.*}} kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x3x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32>
// GENERIC-LABEL: sym_name = "conv2d_backward_weight"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv2d_backward_weight(%x: tensor<?x3x8x8xf32>, %dy: tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x3x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// CHECK-LABEL: func.func @conv2d_backward_weight_grouped
// CHECK:       rlx.conv2d_backward_weight %{{.*}}, %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] groups 2 : (tensor<2x4x9x9xf16>, tensor<2x6x4x4xf16>) -> tensor<6x2x3x3xf16>
func.func @conv2d_backward_weight_grouped(%x: tensor<2x4x9x9xf16>, %dy: tensor<2x6x4x4xf16>) -> tensor<6x2x3x3xf16> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] groups 2 : (tensor<2x4x9x9xf16>, tensor<2x6x4x4xf16>) -> tensor<6x2x3x3xf16>
  return %dw : tensor<6x2x3x3xf16>
}

// Stride 2: inputs of 7 and 8 both give 4 outputs, so both are valid result sizes.
// CHECK-LABEL: func.func @conv2d_backward_input
// CHECK:       rlx.conv2d_backward_input %{{.*}}, %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
// CHECK:       rlx.conv2d_backward_input %{{.*}}, %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x7x7xf32>
// GENERIC-LABEL: sym_name = "conv2d_backward_input"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv2d_backward_input(%dy: tensor<?x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x3x8x8xf32>, tensor<?x3x7x7xf32>) {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x8x8xf32>
  %dx7 = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x7x7xf32>
  return %dx, %dx7 : tensor<?x3x8x8xf32>, tensor<?x3x7x7xf32>
}

// CHECK-LABEL: func.func @conv2d_backward_input_grouped
// CHECK:       rlx.conv2d_backward_input %{{.*}}, %{{.*}} kernel_size [3, 3] stride [1, 1] padding [2, 2] dilation [2, 2] groups 2 : (tensor<1x6x5x5xbf16>, tensor<6x2x3x3xbf16>) -> tensor<1x4x5x5xbf16>
func.func @conv2d_backward_input_grouped(%dy: tensor<1x6x5x5xbf16>, %w: tensor<6x2x3x3xbf16>) -> tensor<1x4x5x5xbf16> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [2, 2] dilation [2, 2] groups 2 : (tensor<1x6x5x5xbf16>, tensor<6x2x3x3xbf16>) -> tensor<1x4x5x5xbf16>
  return %dx : tensor<1x4x5x5xbf16>
}

// CHECK-LABEL: func.func @max_pool2d_backward
// CHECK:       rlx.max_pool2d_backward %{{.*}}, %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x3x8x8xf32>, tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32>
// GENERIC-LABEL: sym_name = "max_pool2d_backward"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>}>
func.func @max_pool2d_backward(%x: tensor<?x3x8x8xf32>, %dy: tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x3x8x8xf32>, tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32>
  return %dx : tensor<?x3x8x8xf32>
}

// CHECK-LABEL: func.func @avg_pool2d_backward
// CHECK:       rlx.avg_pool2d_backward %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<?x3x4x4xf64>) -> tensor<?x3x8x8xf64>
// GENERIC-LABEL: sym_name = "avg_pool2d_backward"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false}>
func.func @avg_pool2d_backward(%dy: tensor<?x3x4x4xf64>) -> tensor<?x3x8x8xf64> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<?x3x4x4xf64>) -> tensor<?x3x8x8xf64>
  return %dx : tensor<?x3x8x8xf64>
}

// Discardable attributes survive in both forms.
// CHECK-LABEL: func.func @discardable_attribute
// CHECK:       rlx.avg_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] attributes {rlx.tag = "layer1"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
func.func @discardable_attribute(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %y = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] attributes {rlx.tag = "layer1"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}
