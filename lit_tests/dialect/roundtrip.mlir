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
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false}>
func.func @max_pool2d(%x: tensor<?x3x8x8xf16>) -> tensor<?x3x4x4xf16> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<?x3x8x8xf16>) -> tensor<?x3x4x4xf16>
  return %y : tensor<?x3x4x4xf16>
}

// count_include_pad true is the default and is not printed.
// CHECK-LABEL: func.func @avg_pool2d
// CHECK:       rlx.avg_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [1, 1] : (tensor<2x3x8x8xbf16>) -> tensor<2x3x5x5xbf16>
// GENERIC-LABEL: sym_name = "avg_pool2d"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64}>
func.func @avg_pool2d(%x: tensor<2x3x8x8xbf16>) -> tensor<2x3x5x5xbf16> {
  %y = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [1, 1] count_include_pad true : (tensor<2x3x8x8xbf16>) -> tensor<2x3x5x5xbf16>
  return %y : tensor<2x3x5x5xbf16>
}

// CHECK-LABEL: func.func @avg_pool2d_exclude_pad
// CHECK:       rlx.avg_pool2d %{{.*}} kernel_size [3, 3] stride [1, 1] padding [1, 1] count_include_pad false : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
// GENERIC-LABEL: sym_name = "avg_pool2d_exclude_pad"
// GENERIC:     count_include_pad = false, divisor_override = 0 : i64}>
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
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false}>
func.func @max_pool2d_backward(%x: tensor<?x3x8x8xf32>, %dy: tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x3x8x8xf32>, tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32>
  return %dx : tensor<?x3x8x8xf32>
}

// CHECK-LABEL: func.func @avg_pool2d_backward
// CHECK:       rlx.avg_pool2d_backward %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<?x3x4x4xf64>) -> tensor<?x3x8x8xf64>
// GENERIC-LABEL: sym_name = "avg_pool2d_backward"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false, divisor_override = 0 : i64}>
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

// -- 1-D and 3-D ops, adaptive pools, transposed-conv gradients, per-side padding, ceil_mode,
// -- max-pool dilation and divisor_override.
// CHECK-LABEL: func.func @adaptive_avg_pool2d_2x3x7x9_f32
// CHECK:       rlx.adaptive_avg_pool2d %{{.*}} : (tensor<2x3x7x9xf32>) -> tensor<2x3x3x4xf32>
func.func @adaptive_avg_pool2d_2x3x7x9_f32(%0: tensor<2x3x7x9xf32>) -> tensor<2x3x3x4xf32> {
  %1 = rlx.adaptive_avg_pool2d %0 : (tensor<2x3x7x9xf32>) -> tensor<2x3x3x4xf32>
  return %1 : tensor<2x3x3x4xf32>
}

// CHECK-LABEL: func.func @adaptive_max_pool2d_2x3x7x9_f32
// CHECK:       rlx.adaptive_max_pool2d %{{.*}} : (tensor<2x3x7x9xf32>) -> tensor<2x3x3x4xf32>
func.func @adaptive_max_pool2d_2x3x7x9_f32(%0: tensor<2x3x7x9xf32>) -> tensor<2x3x3x4xf32> {
  %1 = rlx.adaptive_max_pool2d %0 : (tensor<2x3x7x9xf32>) -> tensor<2x3x3x4xf32>
  return %1 : tensor<2x3x3x4xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool2d_backward_2x3x3x4_f32
// CHECK:       rlx.adaptive_avg_pool2d_backward %{{.*}} : (tensor<2x3x3x4xf32>) -> tensor<2x3x7x9xf32>
func.func @adaptive_avg_pool2d_backward_2x3x3x4_f32(%0: tensor<2x3x3x4xf32>) -> tensor<2x3x7x9xf32> {
  %1 = rlx.adaptive_avg_pool2d_backward %0 : (tensor<2x3x3x4xf32>) -> tensor<2x3x7x9xf32>
  return %1 : tensor<2x3x7x9xf32>
}

// CHECK-LABEL: func.func @adaptive_max_pool2d_backward_2x3x7x9_2x3x3x4_f32
// CHECK:       rlx.adaptive_max_pool2d_backward %{{.*}}, %{{.*}} : (tensor<2x3x7x9xf32>, tensor<2x3x3x4xf32>) -> tensor<2x3x7x9xf32>
func.func @adaptive_max_pool2d_backward_2x3x7x9_2x3x3x4_f32(%0: tensor<2x3x7x9xf32>, %1: tensor<2x3x3x4xf32>) -> tensor<2x3x7x9xf32> {
  %2 = rlx.adaptive_max_pool2d_backward %0, %1 : (tensor<2x3x7x9xf32>, tensor<2x3x3x4xf32>) -> tensor<2x3x7x9xf32>
  return %2 : tensor<2x3x7x9xf32>
}

// CHECK-LABEL: func.func @conv1d__x4x16_8x4x3_f32
// CHECK:       rlx.conv1d %{{.*}}, %{{.*}} stride [2] padding [1] : (tensor<?x4x16xf32>, tensor<8x4x3xf32>) -> tensor<?x8x8xf32>
// GENERIC-LABEL: sym_name = "conv1d__x4x16_8x4x3_f32"
// GENERIC:     <{stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64}>
func.func @conv1d__x4x16_8x4x3_f32(%0: tensor<?x4x16xf32>, %1: tensor<8x4x3xf32>) -> tensor<?x8x8xf32> {
  %2 = rlx.conv1d %0, %1 stride [2] padding [1] : (tensor<?x4x16xf32>, tensor<8x4x3xf32>) -> tensor<?x8x8xf32>
  return %2 : tensor<?x8x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose1d_1x4x4_4x2x3_f32
// CHECK:       rlx.conv_transpose1d %{{.*}}, %{{.*}} stride [2] padding [1] output_padding [1] : (tensor<1x4x4xf32>, tensor<4x2x3xf32>) -> tensor<1x2x8xf32>
// GENERIC-LABEL: sym_name = "conv_transpose1d_1x4x4_4x2x3_f32"
// GENERIC:     <{stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, output_padding = array<i64: 1>, groups = 1 : i64}>
func.func @conv_transpose1d_1x4x4_4x2x3_f32(%0: tensor<1x4x4xf32>, %1: tensor<4x2x3xf32>) -> tensor<1x2x8xf32> {
  %2 = rlx.conv_transpose1d %0, %1 stride [2] padding [1] output_padding [1] : (tensor<1x4x4xf32>, tensor<4x2x3xf32>) -> tensor<1x2x8xf32>
  return %2 : tensor<1x2x8xf32>
}

// CHECK-LABEL: func.func @max_pool1d_1x4x5_f32
// CHECK:       rlx.max_pool1d %{{.*}} kernel_size [2] stride [2] padding [1] ceil_mode true : (tensor<1x4x5xf32>) -> tensor<1x4x3xf32>
// GENERIC-LABEL: sym_name = "max_pool1d_1x4x5_f32"
// GENERIC:     <{kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, ceil_mode = true}>
func.func @max_pool1d_1x4x5_f32(%0: tensor<1x4x5xf32>) -> tensor<1x4x3xf32> {
  %1 = rlx.max_pool1d %0 kernel_size [2] stride [2] padding [1] ceil_mode true : (tensor<1x4x5xf32>) -> tensor<1x4x3xf32>
  return %1 : tensor<1x4x3xf32>
}

// CHECK-LABEL: func.func @avg_pool1d_1x4x8_f32
// CHECK:       rlx.avg_pool1d %{{.*}} kernel_size [2] stride [2] padding [0] : (tensor<1x4x8xf32>) -> tensor<1x4x4xf32>
// GENERIC-LABEL: sym_name = "avg_pool1d_1x4x8_f32"
// GENERIC:     <{kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64}>
func.func @avg_pool1d_1x4x8_f32(%0: tensor<1x4x8xf32>) -> tensor<1x4x4xf32> {
  %1 = rlx.avg_pool1d %0 kernel_size [2] stride [2] padding [0] : (tensor<1x4x8xf32>) -> tensor<1x4x4xf32>
  return %1 : tensor<1x4x4xf32>
}

// CHECK-LABEL: func.func @im2col1d_2x4x8_f32
// CHECK:       rlx.im2col1d %{{.*}} kernel_size [3] stride [1] padding [1] : (tensor<2x4x8xf32>) -> tensor<16x12xf32>
// GENERIC-LABEL: sym_name = "im2col1d_2x4x8_f32"
// GENERIC:     <{kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>}>
func.func @im2col1d_2x4x8_f32(%0: tensor<2x4x8xf32>) -> tensor<16x12xf32> {
  %1 = rlx.im2col1d %0 kernel_size [3] stride [1] padding [1] : (tensor<2x4x8xf32>) -> tensor<16x12xf32>
  return %1 : tensor<16x12xf32>
}

// CHECK-LABEL: func.func @conv1d_backward_weight_1x4x8_1x6x8_f32
// CHECK:       rlx.conv1d_backward_weight %{{.*}}, %{{.*}} kernel_size [3] stride [1] padding [1] : (tensor<1x4x8xf32>, tensor<1x6x8xf32>) -> tensor<6x4x3xf32>
// GENERIC-LABEL: sym_name = "conv1d_backward_weight_1x4x8_1x6x8_f32"
// GENERIC:     <{kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64}>
func.func @conv1d_backward_weight_1x4x8_1x6x8_f32(%0: tensor<1x4x8xf32>, %1: tensor<1x6x8xf32>) -> tensor<6x4x3xf32> {
  %2 = rlx.conv1d_backward_weight %0, %1 kernel_size [3] stride [1] padding [1] : (tensor<1x4x8xf32>, tensor<1x6x8xf32>) -> tensor<6x4x3xf32>
  return %2 : tensor<6x4x3xf32>
}

// CHECK-LABEL: func.func @conv1d_backward_input_1x6x8_6x4x3_f32
// CHECK:       rlx.conv1d_backward_input %{{.*}}, %{{.*}} kernel_size [3] stride [1] padding [1] : (tensor<1x6x8xf32>, tensor<6x4x3xf32>) -> tensor<1x4x8xf32>
// GENERIC-LABEL: sym_name = "conv1d_backward_input_1x6x8_6x4x3_f32"
// GENERIC:     <{kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64}>
func.func @conv1d_backward_input_1x6x8_6x4x3_f32(%0: tensor<1x6x8xf32>, %1: tensor<6x4x3xf32>) -> tensor<1x4x8xf32> {
  %2 = rlx.conv1d_backward_input %0, %1 kernel_size [3] stride [1] padding [1] : (tensor<1x6x8xf32>, tensor<6x4x3xf32>) -> tensor<1x4x8xf32>
  return %2 : tensor<1x4x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose1d_backward_input_1x2x8_4x2x3_f32
// CHECK:       rlx.conv_transpose1d_backward_input %{{.*}}, %{{.*}} stride [2] padding [1] : (tensor<1x2x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x4xf32>
// GENERIC-LABEL: sym_name = "conv_transpose1d_backward_input_1x2x8_4x2x3_f32"
// GENERIC:     <{stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64}>
func.func @conv_transpose1d_backward_input_1x2x8_4x2x3_f32(%0: tensor<1x2x8xf32>, %1: tensor<4x2x3xf32>) -> tensor<1x4x4xf32> {
  %2 = rlx.conv_transpose1d_backward_input %0, %1 stride [2] padding [1] : (tensor<1x2x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x4xf32>
  return %2 : tensor<1x4x4xf32>
}

// CHECK-LABEL: func.func @conv_transpose1d_backward_weight_1x4x4_1x2x8_f32
// CHECK:       rlx.conv_transpose1d_backward_weight %{{.*}}, %{{.*}} kernel_size [3] stride [2] padding [1] : (tensor<1x4x4xf32>, tensor<1x2x8xf32>) -> tensor<4x2x3xf32>
// GENERIC-LABEL: sym_name = "conv_transpose1d_backward_weight_1x4x4_1x2x8_f32"
// GENERIC:     <{kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64}>
func.func @conv_transpose1d_backward_weight_1x4x4_1x2x8_f32(%0: tensor<1x4x4xf32>, %1: tensor<1x2x8xf32>) -> tensor<4x2x3xf32> {
  %2 = rlx.conv_transpose1d_backward_weight %0, %1 kernel_size [3] stride [2] padding [1] : (tensor<1x4x4xf32>, tensor<1x2x8xf32>) -> tensor<4x2x3xf32>
  return %2 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @max_pool1d_backward_1x4x8_1x4x4_f32
// CHECK:       rlx.max_pool1d_backward %{{.*}}, %{{.*}} kernel_size [2] stride [2] padding [0] : (tensor<1x4x8xf32>, tensor<1x4x4xf32>) -> tensor<1x4x8xf32>
// GENERIC-LABEL: sym_name = "max_pool1d_backward_1x4x8_1x4x4_f32"
// GENERIC:     <{kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, ceil_mode = false}>
func.func @max_pool1d_backward_1x4x8_1x4x4_f32(%0: tensor<1x4x8xf32>, %1: tensor<1x4x4xf32>) -> tensor<1x4x8xf32> {
  %2 = rlx.max_pool1d_backward %0, %1 kernel_size [2] stride [2] padding [0] : (tensor<1x4x8xf32>, tensor<1x4x4xf32>) -> tensor<1x4x8xf32>
  return %2 : tensor<1x4x8xf32>
}

// CHECK-LABEL: func.func @avg_pool1d_backward_1x4x4_f32
// CHECK:       rlx.avg_pool1d_backward %{{.*}} kernel_size [2] stride [2] padding [0] : (tensor<1x4x4xf32>) -> tensor<1x4x8xf32>
// GENERIC-LABEL: sym_name = "avg_pool1d_backward_1x4x4_f32"
// GENERIC:     <{kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64}>
func.func @avg_pool1d_backward_1x4x4_f32(%0: tensor<1x4x4xf32>) -> tensor<1x4x8xf32> {
  %1 = rlx.avg_pool1d_backward %0 kernel_size [2] stride [2] padding [0] : (tensor<1x4x4xf32>) -> tensor<1x4x8xf32>
  return %1 : tensor<1x4x8xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool1d_2x3x7_f32
// CHECK:       rlx.adaptive_avg_pool1d %{{.*}} : (tensor<2x3x7xf32>) -> tensor<2x3x3xf32>
func.func @adaptive_avg_pool1d_2x3x7_f32(%0: tensor<2x3x7xf32>) -> tensor<2x3x3xf32> {
  %1 = rlx.adaptive_avg_pool1d %0 : (tensor<2x3x7xf32>) -> tensor<2x3x3xf32>
  return %1 : tensor<2x3x3xf32>
}

// CHECK-LABEL: func.func @adaptive_max_pool1d_2x3x7_f32
// CHECK:       rlx.adaptive_max_pool1d %{{.*}} : (tensor<2x3x7xf32>) -> tensor<2x3x3xf32>
func.func @adaptive_max_pool1d_2x3x7_f32(%0: tensor<2x3x7xf32>) -> tensor<2x3x3xf32> {
  %1 = rlx.adaptive_max_pool1d %0 : (tensor<2x3x7xf32>) -> tensor<2x3x3xf32>
  return %1 : tensor<2x3x3xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool1d_backward_2x3x3_f32
// CHECK:       rlx.adaptive_avg_pool1d_backward %{{.*}} : (tensor<2x3x3xf32>) -> tensor<2x3x7xf32>
func.func @adaptive_avg_pool1d_backward_2x3x3_f32(%0: tensor<2x3x3xf32>) -> tensor<2x3x7xf32> {
  %1 = rlx.adaptive_avg_pool1d_backward %0 : (tensor<2x3x3xf32>) -> tensor<2x3x7xf32>
  return %1 : tensor<2x3x7xf32>
}

// CHECK-LABEL: func.func @adaptive_max_pool1d_backward_2x3x7_2x3x3_f32
// CHECK:       rlx.adaptive_max_pool1d_backward %{{.*}}, %{{.*}} : (tensor<2x3x7xf32>, tensor<2x3x3xf32>) -> tensor<2x3x7xf32>
func.func @adaptive_max_pool1d_backward_2x3x7_2x3x3_f32(%0: tensor<2x3x7xf32>, %1: tensor<2x3x3xf32>) -> tensor<2x3x7xf32> {
  %2 = rlx.adaptive_max_pool1d_backward %0, %1 : (tensor<2x3x7xf32>, tensor<2x3x3xf32>) -> tensor<2x3x7xf32>
  return %2 : tensor<2x3x7xf32>
}

// CHECK-LABEL: func.func @conv3d_1x4x6x6x6_6x4x3x3x3_f32
// CHECK:       rlx.conv3d %{{.*}}, %{{.*}} stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x4x6x6x6xf32>, tensor<6x4x3x3x3xf32>) -> tensor<1x6x6x6x6xf32>
// GENERIC-LABEL: sym_name = "conv3d_1x4x6x6x6_6x4x3x3x3_f32"
// GENERIC:     <{stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, groups = 1 : i64}>
func.func @conv3d_1x4x6x6x6_6x4x3x3x3_f32(%0: tensor<1x4x6x6x6xf32>, %1: tensor<6x4x3x3x3xf32>) -> tensor<1x6x6x6x6xf32> {
  %2 = rlx.conv3d %0, %1 stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x4x6x6x6xf32>, tensor<6x4x3x3x3xf32>) -> tensor<1x6x6x6x6xf32>
  return %2 : tensor<1x6x6x6x6xf32>
}

// CHECK-LABEL: func.func @conv_transpose3d_1x4x3x3x3_4x2x2x2x2_f32
// CHECK:       rlx.conv_transpose3d %{{.*}}, %{{.*}} stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x3x3x3xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x2x6x6x6xf32>
// GENERIC-LABEL: sym_name = "conv_transpose3d_1x4x3x3x3_4x2x2x2x2_f32"
// GENERIC:     <{stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64}>
func.func @conv_transpose3d_1x4x3x3x3_4x2x2x2x2_f32(%0: tensor<1x4x3x3x3xf32>, %1: tensor<4x2x2x2x2xf32>) -> tensor<1x2x6x6x6xf32> {
  %2 = rlx.conv_transpose3d %0, %1 stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x3x3x3xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x2x6x6x6xf32>
  return %2 : tensor<1x2x6x6x6xf32>
}

// CHECK-LABEL: func.func @max_pool3d_2x3x8x9x10_f32
// CHECK:       rlx.max_pool3d %{{.*}} kernel_size [2, 3, 3] stride [2, 2, 2] padding [0, 1, 1] dilation [1, 2, 2] ceil_mode true : (tensor<2x3x8x9x10xf32>) -> tensor<2x3x4x4x5xf32>
// GENERIC-LABEL: sym_name = "max_pool3d_2x3x8x9x10_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 1, 1>, dilation = array<i64: 1, 2, 2>, ceil_mode = true}>
func.func @max_pool3d_2x3x8x9x10_f32(%0: tensor<2x3x8x9x10xf32>) -> tensor<2x3x4x4x5xf32> {
  %1 = rlx.max_pool3d %0 kernel_size [2, 3, 3] stride [2, 2, 2] padding [0, 1, 1] dilation [1, 2, 2] ceil_mode true : (tensor<2x3x8x9x10xf32>) -> tensor<2x3x4x4x5xf32>
  return %1 : tensor<2x3x4x4x5xf32>
}

// CHECK-LABEL: func.func @avg_pool3d_1x4x4x4x4_f32
// CHECK:       rlx.avg_pool3d %{{.*}} kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x4x4x4xf32>) -> tensor<1x4x2x2x2xf32>
// GENERIC-LABEL: sym_name = "avg_pool3d_1x4x4x4x4_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64}>
func.func @avg_pool3d_1x4x4x4x4_f32(%0: tensor<1x4x4x4x4xf32>) -> tensor<1x4x2x2x2xf32> {
  %1 = rlx.avg_pool3d %0 kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x4x4x4xf32>) -> tensor<1x4x2x2x2xf32>
  return %1 : tensor<1x4x2x2x2xf32>
}

// CHECK-LABEL: func.func @im2col3d_1x2x4x4x4_f32
// CHECK:       rlx.im2col3d %{{.*}} kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x2x4x4x4xf32>) -> tensor<64x54xf32>
// GENERIC-LABEL: sym_name = "im2col3d_1x2x4x4x4_f32"
// GENERIC:     <{kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>}>
func.func @im2col3d_1x2x4x4x4_f32(%0: tensor<1x2x4x4x4xf32>) -> tensor<64x54xf32> {
  %1 = rlx.im2col3d %0 kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x2x4x4x4xf32>) -> tensor<64x54xf32>
  return %1 : tensor<64x54xf32>
}

// CHECK-LABEL: func.func @conv3d_backward_weight_1x4x6x6x6_1x6x6x6x6_f32
// CHECK:       rlx.conv3d_backward_weight %{{.*}}, %{{.*}} kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x4x6x6x6xf32>, tensor<1x6x6x6x6xf32>) -> tensor<6x4x3x3x3xf32>
// GENERIC-LABEL: sym_name = "conv3d_backward_weight_1x4x6x6x6_1x6x6x6x6_f32"
// GENERIC:     <{kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, groups = 1 : i64}>
func.func @conv3d_backward_weight_1x4x6x6x6_1x6x6x6x6_f32(%0: tensor<1x4x6x6x6xf32>, %1: tensor<1x6x6x6x6xf32>) -> tensor<6x4x3x3x3xf32> {
  %2 = rlx.conv3d_backward_weight %0, %1 kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x4x6x6x6xf32>, tensor<1x6x6x6x6xf32>) -> tensor<6x4x3x3x3xf32>
  return %2 : tensor<6x4x3x3x3xf32>
}

// CHECK-LABEL: func.func @conv3d_backward_input__x6x6x6x6_6x4x3x3x3_f32
// CHECK:       rlx.conv3d_backward_input %{{.*}}, %{{.*}} kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<?x6x6x6x6xf32>, tensor<6x4x3x3x3xf32>) -> tensor<?x4x6x6x6xf32>
// GENERIC-LABEL: sym_name = "conv3d_backward_input__x6x6x6x6_6x4x3x3x3_f32"
// GENERIC:     <{kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, groups = 1 : i64}>
func.func @conv3d_backward_input__x6x6x6x6_6x4x3x3x3_f32(%0: tensor<?x6x6x6x6xf32>, %1: tensor<6x4x3x3x3xf32>) -> tensor<?x4x6x6x6xf32> {
  %2 = rlx.conv3d_backward_input %0, %1 kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<?x6x6x6x6xf32>, tensor<6x4x3x3x3xf32>) -> tensor<?x4x6x6x6xf32>
  return %2 : tensor<?x4x6x6x6xf32>
}

// CHECK-LABEL: func.func @conv_transpose3d_backward_input_1x2x6x6x6_4x2x2x2x2_f32
// CHECK:       rlx.conv_transpose3d_backward_input %{{.*}}, %{{.*}} stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x2x6x6x6xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x4x3x3x3xf32>
// GENERIC-LABEL: sym_name = "conv_transpose3d_backward_input_1x2x6x6x6_4x2x2x2x2_f32"
// GENERIC:     <{stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, groups = 1 : i64}>
func.func @conv_transpose3d_backward_input_1x2x6x6x6_4x2x2x2x2_f32(%0: tensor<1x2x6x6x6xf32>, %1: tensor<4x2x2x2x2xf32>) -> tensor<1x4x3x3x3xf32> {
  %2 = rlx.conv_transpose3d_backward_input %0, %1 stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x2x6x6x6xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x4x3x3x3xf32>
  return %2 : tensor<1x4x3x3x3xf32>
}

// CHECK-LABEL: func.func @conv_transpose3d_backward_weight_1x4x3x3x3_1x2x6x6x6_f32
// CHECK:       rlx.conv_transpose3d_backward_weight %{{.*}}, %{{.*}} kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x3x3x3xf32>, tensor<1x2x6x6x6xf32>) -> tensor<4x2x2x2x2xf32>
// GENERIC-LABEL: sym_name = "conv_transpose3d_backward_weight_1x4x3x3x3_1x2x6x6x6_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, groups = 1 : i64}>
func.func @conv_transpose3d_backward_weight_1x4x3x3x3_1x2x6x6x6_f32(%0: tensor<1x4x3x3x3xf32>, %1: tensor<1x2x6x6x6xf32>) -> tensor<4x2x2x2x2xf32> {
  %2 = rlx.conv_transpose3d_backward_weight %0, %1 kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x3x3x3xf32>, tensor<1x2x6x6x6xf32>) -> tensor<4x2x2x2x2xf32>
  return %2 : tensor<4x2x2x2x2xf32>
}

// CHECK-LABEL: func.func @max_pool3d_backward_1x4x4x4x4_1x4x2x2x2_f32
// CHECK:       rlx.max_pool3d_backward %{{.*}}, %{{.*}} kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x4x4x4xf32>, tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x4x4xf32>
// GENERIC-LABEL: sym_name = "max_pool3d_backward_1x4x4x4x4_1x4x2x2x2_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false}>
func.func @max_pool3d_backward_1x4x4x4x4_1x4x2x2x2_f32(%0: tensor<1x4x4x4x4xf32>, %1: tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x4x4xf32> {
  %2 = rlx.max_pool3d_backward %0, %1 kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x4x4x4xf32>, tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x4x4xf32>
  return %2 : tensor<1x4x4x4x4xf32>
}

// CHECK-LABEL: func.func @avg_pool3d_backward_1x4x2x2x2_f32
// CHECK:       rlx.avg_pool3d_backward %{{.*}} kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x4x4xf32>
// GENERIC-LABEL: sym_name = "avg_pool3d_backward_1x4x2x2x2_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64}>
func.func @avg_pool3d_backward_1x4x2x2x2_f32(%0: tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x4x4xf32> {
  %1 = rlx.avg_pool3d_backward %0 kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x4x4xf32>
  return %1 : tensor<1x4x4x4x4xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool3d_2x3x5x7x9_f32
// CHECK:       rlx.adaptive_avg_pool3d %{{.*}} : (tensor<2x3x5x7x9xf32>) -> tensor<2x3x2x3x4xf32>
func.func @adaptive_avg_pool3d_2x3x5x7x9_f32(%0: tensor<2x3x5x7x9xf32>) -> tensor<2x3x2x3x4xf32> {
  %1 = rlx.adaptive_avg_pool3d %0 : (tensor<2x3x5x7x9xf32>) -> tensor<2x3x2x3x4xf32>
  return %1 : tensor<2x3x2x3x4xf32>
}

// CHECK-LABEL: func.func @adaptive_max_pool3d_2x3x5x7x9_f32
// CHECK:       rlx.adaptive_max_pool3d %{{.*}} : (tensor<2x3x5x7x9xf32>) -> tensor<2x3x2x3x4xf32>
func.func @adaptive_max_pool3d_2x3x5x7x9_f32(%0: tensor<2x3x5x7x9xf32>) -> tensor<2x3x2x3x4xf32> {
  %1 = rlx.adaptive_max_pool3d %0 : (tensor<2x3x5x7x9xf32>) -> tensor<2x3x2x3x4xf32>
  return %1 : tensor<2x3x2x3x4xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool3d_backward_2x3x2x3x4_f32
// CHECK:       rlx.adaptive_avg_pool3d_backward %{{.*}} : (tensor<2x3x2x3x4xf32>) -> tensor<2x3x5x7x9xf32>
func.func @adaptive_avg_pool3d_backward_2x3x2x3x4_f32(%0: tensor<2x3x2x3x4xf32>) -> tensor<2x3x5x7x9xf32> {
  %1 = rlx.adaptive_avg_pool3d_backward %0 : (tensor<2x3x2x3x4xf32>) -> tensor<2x3x5x7x9xf32>
  return %1 : tensor<2x3x5x7x9xf32>
}

// CHECK-LABEL: func.func @adaptive_max_pool3d_backward_2x3x5x7x9_2x3x2x3x4_f32
// CHECK:       rlx.adaptive_max_pool3d_backward %{{.*}}, %{{.*}} : (tensor<2x3x5x7x9xf32>, tensor<2x3x2x3x4xf32>) -> tensor<2x3x5x7x9xf32>
func.func @adaptive_max_pool3d_backward_2x3x5x7x9_2x3x2x3x4_f32(%0: tensor<2x3x5x7x9xf32>, %1: tensor<2x3x2x3x4xf32>) -> tensor<2x3x5x7x9xf32> {
  %2 = rlx.adaptive_max_pool3d_backward %0, %1 : (tensor<2x3x5x7x9xf32>, tensor<2x3x2x3x4xf32>) -> tensor<2x3x5x7x9xf32>
  return %2 : tensor<2x3x5x7x9xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d_backward_input_1x2x8x8_4x2x3x3_f32
// CHECK:       rlx.conv_transpose2d_backward_input %{{.*}}, %{{.*}} stride [2, 2] padding [1, 1] : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
// GENERIC-LABEL: sym_name = "conv_transpose2d_backward_input_1x2x8x8_4x2x3x3_f32"
// GENERIC:     <{stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv_transpose2d_backward_input_1x2x8x8_4x2x3x3_f32(%0: tensor<1x2x8x8xf32>, %1: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %2 = rlx.conv_transpose2d_backward_input %0, %1 stride [2, 2] padding [1, 1] : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d_backward_weight_1x4x4x4_1x2x8x8_f32
// CHECK:       rlx.conv_transpose2d_backward_weight %{{.*}}, %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<1x2x8x8xf32>) -> tensor<4x2x3x3xf32>
// GENERIC-LABEL: sym_name = "conv_transpose2d_backward_weight_1x4x4x4_1x2x8x8_f32"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv_transpose2d_backward_weight_1x4x4x4_1x2x8x8_f32(%0: tensor<1x4x4x4xf32>, %1: tensor<1x2x8x8xf32>) -> tensor<4x2x3x3xf32> {
  %2 = rlx.conv_transpose2d_backward_weight %0, %1 kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<1x2x8x8xf32>) -> tensor<4x2x3x3xf32>
  return %2 : tensor<4x2x3x3xf32>
}

// CHECK-LABEL: func.func @conv2d_per_side_padding_f32
// CHECK:       rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [0, 1, 1, 2] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x7x9xf32>
// GENERIC-LABEL: sym_name = "conv2d_per_side_padding_f32"
// GENERIC:     <{stride = array<i64: 1, 1>, padding = array<i64: 0, 1, 1, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv2d_per_side_padding_f32(%0: tensor<1x4x8x8xf32>, %1: tensor<6x4x3x3xf32>) -> tensor<1x6x7x9xf32> {
  %2 = rlx.conv2d %0, %1 stride [1, 1] padding [0, 1, 1, 2] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x7x9xf32>
  return %2 : tensor<1x6x7x9xf32>
}

// CHECK-LABEL: func.func @conv2d_same_even_kernel_f32
// CHECK:       rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [0, 1, 1, 2] : (tensor<1x4x8x8xf32>, tensor<6x4x2x4xf32>) -> tensor<1x6x8x8xf32>
// GENERIC-LABEL: sym_name = "conv2d_same_even_kernel_f32"
// GENERIC:     <{stride = array<i64: 1, 1>, padding = array<i64: 0, 1, 1, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv2d_same_even_kernel_f32(%0: tensor<1x4x8x8xf32>, %1: tensor<6x4x2x4xf32>) -> tensor<1x6x8x8xf32> {
  %2 = rlx.conv2d %0, %1 stride [1, 1] padding [0, 1, 1, 2] : (tensor<1x4x8x8xf32>, tensor<6x4x2x4xf32>) -> tensor<1x6x8x8xf32>
  return %2 : tensor<1x6x8x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d_per_side_padding_f32
// CHECK:       rlx.conv_transpose2d %{{.*}}, %{{.*}} stride [2, 2] padding [0, 1, 1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x9x8xf32>
// GENERIC-LABEL: sym_name = "conv_transpose2d_per_side_padding_f32"
// GENERIC:     <{stride = array<i64: 2, 2>, padding = array<i64: 0, 1, 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64}>
func.func @conv_transpose2d_per_side_padding_f32(%0: tensor<1x4x4x4xf32>, %1: tensor<4x2x3x3xf32>) -> tensor<1x2x9x8xf32> {
  %2 = rlx.conv_transpose2d %0, %1 stride [2, 2] padding [0, 1, 1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x9x8xf32>
  return %2 : tensor<1x2x9x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d_backward_input_output_padding_past_stride_f32
// CHECK:       rlx.conv_transpose2d_backward_input %{{.*}}, %{{.*}} stride [3, 2] padding [1, 1] dilation [4, 4] : (tensor<1x2x16x13xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
// GENERIC-LABEL: sym_name = "conv_transpose2d_backward_input_output_padding_past_stride_f32"
// GENERIC:     <{stride = array<i64: 3, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 4, 4>, groups = 1 : i64}>
func.func @conv_transpose2d_backward_input_output_padding_past_stride_f32(%0: tensor<1x2x16x13xf32>, %1: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %2 = rlx.conv_transpose2d_backward_input %0, %1 stride [3, 2] padding [1, 1] dilation [4, 4] : (tensor<1x2x16x13xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @max_pool2d_ceil_changes_size_f32
// CHECK:       rlx.max_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// GENERIC-LABEL: sym_name = "max_pool2d_ceil_changes_size_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true}>
func.func @max_pool2d_ceil_changes_size_f32(%0: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  %1 = rlx.max_pool2d %0 kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @max_pool2d_ceil_keeps_size_f32
// CHECK:       rlx.max_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// GENERIC-LABEL: sym_name = "max_pool2d_ceil_keeps_size_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true}>
func.func @max_pool2d_ceil_keeps_size_f32(%0: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %1 = rlx.max_pool2d %0 kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @max_pool2d_dilated_per_side_f32
// CHECK:       rlx.max_pool2d %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 0, 0, 1] dilation [2, 2] : (tensor<1x4x9x9xf32>) -> tensor<1x4x3x3xf32>
// GENERIC-LABEL: sym_name = "max_pool2d_dilated_per_side_f32"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, dilation = array<i64: 2, 2>, ceil_mode = false}>
func.func @max_pool2d_dilated_per_side_f32(%0: tensor<1x4x9x9xf32>) -> tensor<1x4x3x3xf32> {
  %1 = rlx.max_pool2d %0 kernel_size [3, 3] stride [2, 2] padding [1, 0, 0, 1] dilation [2, 2] : (tensor<1x4x9x9xf32>) -> tensor<1x4x3x3xf32>
  return %1 : tensor<1x4x3x3xf32>
}

// CHECK-LABEL: func.func @avg_pool2d_ceil_divisor_override_f32
// CHECK:       rlx.avg_pool2d %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true divisor_override 3 : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// GENERIC-LABEL: sym_name = "avg_pool2d_ceil_divisor_override_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = true, count_include_pad = true, divisor_override = 3 : i64}>
func.func @avg_pool2d_ceil_divisor_override_f32(%0: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  %1 = rlx.avg_pool2d %0 kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true divisor_override 3 : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @avg_pool2d_backward_ceil_exclude_pad_f32
// CHECK:       rlx.avg_pool2d_backward %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true count_include_pad false : (tensor<1x4x4x4xf32>) -> tensor<1x4x7x7xf32>
// GENERIC-LABEL: sym_name = "avg_pool2d_backward_ceil_exclude_pad_f32"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false, divisor_override = 0 : i64}>
func.func @avg_pool2d_backward_ceil_exclude_pad_f32(%0: tensor<1x4x4x4xf32>) -> tensor<1x4x7x7xf32> {
  %1 = rlx.avg_pool2d_backward %0 kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true count_include_pad false : (tensor<1x4x4x4xf32>) -> tensor<1x4x7x7xf32>
  return %1 : tensor<1x4x7x7xf32>
}

// CHECK-LABEL: func.func @max_pool2d_backward_ceil_dilated_f32
// CHECK:       rlx.max_pool2d_backward %{{.*}}, %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] dilation [2, 2] ceil_mode true : (tensor<1x4x7x7xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x7x7xf32>
// GENERIC-LABEL: sym_name = "max_pool2d_backward_ceil_dilated_f32"
// GENERIC:     <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>, ceil_mode = true}>
func.func @max_pool2d_backward_ceil_dilated_f32(%0: tensor<1x4x7x7xf32>, %1: tensor<1x4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  %2 = rlx.max_pool2d_backward %0, %1 kernel_size [2, 2] stride [2, 2] padding [0, 0] dilation [2, 2] ceil_mode true : (tensor<1x4x7x7xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %2 : tensor<1x4x7x7xf32>
}

