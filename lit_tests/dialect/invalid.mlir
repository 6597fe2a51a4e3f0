// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier error class and op: the exact message and its file:line:col.
// rlx-opt's --verify-diagnostics prints each chunk's first diagnostic instead of
// checking expected-error comments, so the CHECK lines state the diagnostic in full.

// wrong rank: rlx.conv2d.
func.func @wrong_rank_conv2d(%x: tensor<1x4x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected the input to have rank 4, got tensor<1x4x8xf32>
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// wrong rank: rlx.conv_transpose2d.
func.func @wrong_rank_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected the weight to have rank 4, got tensor<4x2x3xf32>
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// wrong rank: rlx.max_pool2d.
func.func @wrong_rank_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected the result to have rank 4, got tensor<4x4x4xf32>
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<4x4x4xf32>
  return %r : tensor<4x4x4xf32>
}

// -----

// wrong rank: rlx.avg_pool2d.
func.func @wrong_rank_avg_pool2d(%x: tensor<1x1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected the input to have rank 4, got tensor<1x1x4x8x8xf32>
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// wrong rank: rlx.matmul.
func.func @wrong_rank_matmul(%a: tensor<2x4x8x2xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected the lhs to have rank 2 or 3, got tensor<2x4x8x2xf32>
  %r = rlx.matmul %a, %b : (tensor<2x4x8x2xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// wrong rank: rlx.im2col.
func.func @wrong_rank_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<1x64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected the result to have rank 2, got tensor<1x64x36xf32>
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<1x64x36xf32>
  return %r : tensor<1x64x36xf32>
}

// -----

// wrong rank: rlx.conv2d_backward_weight.
func.func @wrong_rank_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected the grad_output to have rank 4, got tensor<6x8x8xf32>
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// wrong rank: rlx.conv2d_backward_input.
func.func @wrong_rank_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected the result to have rank 4, got tensor<4x8x8xf32>
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<4x8x8xf32>
  return %r : tensor<4x8x8xf32>
}

// -----

// wrong rank: rlx.max_pool2d_backward.
func.func @wrong_rank_max_pool2d_backward(%x: tensor<4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected the input to have rank 4, got tensor<4x8x8xf32>
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// wrong rank: rlx.avg_pool2d_backward.
func.func @wrong_rank_avg_pool2d_backward(%dy: tensor<1x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected the grad_output to have rank 4, got tensor<1x4x4xf32>
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// wrong array length: rlx.conv2d.
func.func @wrong_array_length_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected 'dilation' to have 2 values (height, width), got 3
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// wrong array length: rlx.conv_transpose2d.
func.func @wrong_array_length_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected 'output_padding' to have 2 values (height, width), got 1
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// wrong array length: rlx.max_pool2d.
func.func @wrong_array_length_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected 'kernel_size' to have 2 values (height, width), got 1
  %r = rlx.max_pool2d %x kernel_size [2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// wrong array length: rlx.avg_pool2d.
func.func @wrong_array_length_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected 'stride' to have 2 values (height, width), got 3
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// wrong array length: rlx.im2col.
func.func @wrong_array_length_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected 'padding' to have 2 values (each side alike) or 4 (low then high per axis), got 0
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// wrong array length: rlx.conv2d_backward_weight.
func.func @wrong_array_length_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected 'kernel_size' to have 2 values (height, width), got 3
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// wrong array length: rlx.conv2d_backward_input.
func.func @wrong_array_length_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected 'stride' to have 2 values (height, width), got 1
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// wrong array length: rlx.max_pool2d_backward.
func.func @wrong_array_length_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected 'padding' to have 2 values (each side alike) or 4 (low then high per axis), got 3
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// wrong array length: rlx.avg_pool2d_backward.
func.func @wrong_array_length_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected 'kernel_size' to have 2 values (height, width), got 3
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2, 1] stride [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive kernel: rlx.conv2d.
func.func @nonpositive_kernel_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x0x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected kernel_size to be positive, got [0, 3]
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x0x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// nonpositive kernel: rlx.conv_transpose2d.
func.func @nonpositive_kernel_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x0xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected kernel_size to be positive, got [3, 0]
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x0xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// nonpositive kernel: rlx.max_pool2d.
func.func @nonpositive_kernel_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected kernel_size to be positive, got [0, 2]
  %r = rlx.max_pool2d %x kernel_size [0, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// nonpositive kernel: rlx.avg_pool2d.
func.func @nonpositive_kernel_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected kernel_size to be positive, got [2, -2]
  %r = rlx.avg_pool2d %x kernel_size [2, -2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// nonpositive kernel: rlx.im2col.
func.func @nonpositive_kernel_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x0xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected kernel_size to be positive, got [0, 0]
  %r = rlx.im2col %x kernel_size [0, 0] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<64x0xf32>
  return %r : tensor<64x0xf32>
}

// -----

// nonpositive kernel: rlx.conv2d_backward_weight.
func.func @nonpositive_kernel_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected kernel_size to be positive, got [-3, 3]
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [-3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// nonpositive kernel: rlx.conv2d_backward_input.
func.func @nonpositive_kernel_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected kernel_size to be positive, got [3, 0]
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 0] stride [1, 1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive kernel: rlx.max_pool2d_backward.
func.func @nonpositive_kernel_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected kernel_size to be positive, got [0, 2]
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [0, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive kernel: rlx.avg_pool2d_backward.
func.func @nonpositive_kernel_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected kernel_size to be positive, got [2, 0]
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 0] stride [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive stride: rlx.conv2d.
func.func @nonpositive_stride_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected stride to be positive, got [0, 1]
  %r = rlx.conv2d %x, %w stride [0, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// nonpositive stride: rlx.conv_transpose2d.
func.func @nonpositive_stride_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected stride to be positive, got [2, -2]
  %r = rlx.conv_transpose2d %x, %w stride [2, -2] padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// nonpositive stride: rlx.max_pool2d.
func.func @nonpositive_stride_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected stride to be positive, got [0, 0]
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [0, 0] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// nonpositive stride: rlx.avg_pool2d.
func.func @nonpositive_stride_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected stride to be positive, got [-1, 2]
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [-1, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// nonpositive stride: rlx.im2col.
func.func @nonpositive_stride_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected stride to be positive, got [1, 0]
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 0] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// nonpositive stride: rlx.conv2d_backward_weight.
func.func @nonpositive_stride_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected stride to be positive, got [0, 1]
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [0, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// nonpositive stride: rlx.conv2d_backward_input.
func.func @nonpositive_stride_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected stride to be positive, got [1, -1]
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, -1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive stride: rlx.max_pool2d_backward.
func.func @nonpositive_stride_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected stride to be positive, got [0, 2]
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [0, 2] padding [0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive stride: rlx.avg_pool2d_backward.
func.func @nonpositive_stride_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected stride to be positive, got [2, 0]
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 0] padding [0, 0] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive dilation: rlx.conv2d.
func.func @nonpositive_dilation_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected dilation to be positive, got [0, 1]
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [0, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// nonpositive dilation: rlx.conv_transpose2d.
func.func @nonpositive_dilation_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected dilation to be positive, got [1, -1]
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] dilation [1, -1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// nonpositive dilation: rlx.im2col.
func.func @nonpositive_dilation_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected dilation to be positive, got [0, 0]
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] dilation [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// nonpositive dilation: rlx.conv2d_backward_weight.
func.func @nonpositive_dilation_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected dilation to be positive, got [-2, 1]
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] dilation [-2, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// nonpositive dilation: rlx.conv2d_backward_input.
func.func @nonpositive_dilation_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected dilation to be positive, got [1, 0]
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] dilation [1, 0] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// negative padding: rlx.conv2d.
func.func @negative_padding_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected padding to be non-negative, got [-1, 1]
  %r = rlx.conv2d %x, %w stride [1, 1] padding [-1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// negative padding: rlx.conv_transpose2d.
func.func @negative_padding_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected padding to be non-negative, got [1, -1]
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, -1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// negative padding: rlx.max_pool2d.
func.func @negative_padding_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected padding to be non-negative, got [-1, 0]
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [-1, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// negative padding: rlx.avg_pool2d.
func.func @negative_padding_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected padding to be non-negative, got [0, -1]
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, -1] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// negative padding: rlx.im2col.
func.func @negative_padding_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected padding to be non-negative, got [-1, -1]
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [-1, -1] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// negative padding: rlx.conv2d_backward_weight.
func.func @negative_padding_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected padding to be non-negative, got [-1, 1]
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [-1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// negative padding: rlx.conv2d_backward_input.
func.func @negative_padding_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected padding to be non-negative, got [1, -1]
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, -1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// negative padding: rlx.max_pool2d_backward.
func.func @negative_padding_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected padding to be non-negative, got [-1, 0]
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [-1, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// negative padding: rlx.avg_pool2d_backward.
func.func @negative_padding_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected padding to be non-negative, got [0, -1]
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, -1] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// groups not dividing: rlx.conv2d.
func.func @groups_not_dividing_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected the input channels (4) to be divisible by groups (3)
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] groups 3 : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// groups not dividing output: rlx.conv2d.
func.func @groups_not_dividing_output_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<5x1x3x3xf32>) -> tensor<1x5x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected the output (weight dimension 0) channels (5) to be divisible by groups (4)
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] groups 4 : (tensor<1x4x8x8xf32>, tensor<5x1x3x3xf32>) -> tensor<1x5x8x8xf32>
  return %r : tensor<1x5x8x8xf32>
}

// -----

// groups not dividing: rlx.conv_transpose2d.
func.func @groups_not_dividing_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected the input channels (4) to be divisible by groups (3)
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] groups 3 : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// groups not dividing: rlx.conv2d_backward_weight.
func.func @groups_not_dividing_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x1x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected the input channels (4) to be divisible by groups (3)
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 3 : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x1x3x3xf32>
  return %r : tensor<6x1x3x3xf32>
}

// -----

// groups not dividing output: rlx.conv2d_backward_weight.
func.func @groups_not_dividing_output_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x5x8x8xf32>) -> tensor<5x2x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected the grad_output channels (5) to be divisible by groups (2)
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 2 : (tensor<1x4x8x8xf32>, tensor<1x5x8x8xf32>) -> tensor<5x2x3x3xf32>
  return %r : tensor<5x2x3x3xf32>
}

// -----

// groups not dividing: rlx.conv2d_backward_input.
func.func @groups_not_dividing_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected the output (weight dimension 0) channels (6) to be divisible by groups (4)
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 4 : (tensor<1x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// nonpositive groups: rlx.conv2d.
func.func @nonpositive_groups_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected groups to be positive, got 0
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] groups 0 : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// nonpositive groups: rlx.conv_transpose2d.
func.func @nonpositive_groups_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected groups to be positive, got -1
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] groups -1 : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// nonpositive groups: rlx.conv2d_backward_weight.
func.func @nonpositive_groups_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected groups to be positive, got 0
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 0 : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// nonpositive groups: rlx.conv2d_backward_input.
func.func @nonpositive_groups_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected groups to be positive, got -2
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] groups -2 : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// mixed element types: rlx.conv2d.
func.func @mixed_element_types_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf16>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf16>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// mixed element types: rlx.conv_transpose2d.
func.func @mixed_element_types_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf16> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf16>
  return %r : tensor<1x2x8x8xf16>
}

// -----

// mixed element types: rlx.max_pool2d.
func.func @mixed_element_types_max_pool2d(%x: tensor<1x4x8x8xf16>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected all operands and the result to have one element type, got f16 and f32
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf16>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// mixed element types: rlx.avg_pool2d.
func.func @mixed_element_types_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf16> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf16>
  return %r : tensor<1x4x4x4xf16>
}

// -----

// mixed element types: rlx.matmul.
func.func @mixed_element_types_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// mixed element types: rlx.im2col.
func.func @mixed_element_types_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf16> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf16>
  return %r : tensor<64x36xf16>
}

// -----

// mixed element types: rlx.conv2d_backward_weight.
func.func @mixed_element_types_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf16> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf16>
  return %r : tensor<6x4x3x3xf16>
}

// -----

// mixed element types: rlx.conv2d_backward_input.
func.func @mixed_element_types_conv2d_backward_input(%dy: tensor<1x6x8x8xf16>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected all operands and the result to have one element type, got f16 and f32
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x6x8x8xf16>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// mixed element types: rlx.max_pool2d_backward.
func.func @mixed_element_types_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf16>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf16>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// mixed element types: rlx.avg_pool2d_backward.
func.func @mixed_element_types_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf16> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected all operands and the result to have one element type, got f32 and f16
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf16>
  return %r : tensor<1x4x8x8xf16>
}

// -----

// dynamic non batch: rlx.conv2d.
func.func @dynamic_non_batch_conv2d(%x: tensor<1x?x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected only the leading (batch) dimension of the input to be dynamic, got tensor<1x?x8x8xf32>
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x?x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// dynamic non batch: rlx.conv_transpose2d.
func.func @dynamic_non_batch_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x?x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected the weight to have a static shape, got tensor<4x2x?x3xf32>
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x?x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// dynamic non batch: rlx.max_pool2d.
func.func @dynamic_non_batch_max_pool2d(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x?x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<?x4x?x4xf32>
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x8x8xf32>) -> tensor<?x4x?x4xf32>
  return %r : tensor<?x4x?x4xf32>
}

// -----

// dynamic non batch: rlx.avg_pool2d.
func.func @dynamic_non_batch_avg_pool2d(%x: tensor<?x4x8x?xf32>) -> tensor<?x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected only the leading (batch) dimension of the input to be dynamic, got tensor<?x4x8x?xf32>
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x8x?xf32>) -> tensor<?x4x4x4xf32>
  return %r : tensor<?x4x4x4xf32>
}

// -----

// dynamic non batch: rlx.matmul.
func.func @dynamic_non_batch_matmul(%a: tensor<4x?xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected only the leading (batch) dimension of the lhs to be dynamic, got tensor<4x?xf32>
  %r = rlx.matmul %a, %b : (tensor<4x?xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// dynamic non batch: rlx.im2col.
func.func @dynamic_non_batch_im2col(%x: tensor<?x4x8x8xf32>) -> tensor<?x?xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<?x?xf32>
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// dynamic non batch: rlx.conv2d_backward_weight.
func.func @dynamic_non_batch_conv2d_backward_weight(%x: tensor<?x4x8x8xf32>, %dy: tensor<?x?x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected only the leading (batch) dimension of the grad_output to be dynamic, got tensor<?x?x8x8xf32>
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>, tensor<?x?x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// dynamic non batch: rlx.conv2d_backward_input.
func.func @dynamic_non_batch_conv2d_backward_input(%dy: tensor<?x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x4x?x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<?x4x?x8xf32>
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<?x4x?x8xf32>
  return %r : tensor<?x4x?x8xf32>
}

// -----

// dynamic non batch: rlx.max_pool2d_backward.
func.func @dynamic_non_batch_max_pool2d_backward(%x: tensor<?x?x8x8xf32>, %dy: tensor<?x4x4x4xf32>) -> tensor<?x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected only the leading (batch) dimension of the input to be dynamic, got tensor<?x?x8x8xf32>
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x?x8x8xf32>, tensor<?x4x4x4xf32>) -> tensor<?x4x8x8xf32>
  return %r : tensor<?x4x8x8xf32>
}

// -----

// dynamic non batch: rlx.avg_pool2d_backward.
func.func @dynamic_non_batch_avg_pool2d_backward(%dy: tensor<?x4x4x?xf32>) -> tensor<?x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected only the leading (batch) dimension of the grad_output to be dynamic, got tensor<?x4x4x?xf32>
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x4x?xf32>) -> tensor<?x4x8x8xf32>
  return %r : tensor<?x4x8x8xf32>
}

// -----

// result shape: rlx.conv2d. Stride 2 halves the spatial size: (8 + 2 - 2 - 1) floordiv 2 + 1 = 4.
func.func @result_shape_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected the result type to be tensor<1x6x4x4xf32> as the geometry implies, got tensor<1x6x8x8xf32>
  %r = rlx.conv2d %x, %w stride [2, 2] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// result shape: rlx.conv2d. A dynamic input batch gives a dynamic result batch.
func.func @result_shape_conv2d_2(%x: tensor<?x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected the result type to be tensor<?x6x8x8xf32> as the geometry implies, got tensor<1x6x8x8xf32>
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// result shape: rlx.conv_transpose2d. Without output_padding the transposed output is (4 - 1)*2 - 2 + 2 + 1 = 7.
func.func @result_shape_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected the result type to be tensor<1x2x7x7xf32> as the geometry implies, got tensor<1x2x8x8xf32>
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// result shape: rlx.max_pool2d.
func.func @result_shape_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected the result type to be tensor<1x4x4x4xf32> as the geometry implies, got tensor<1x4x8x8xf32>
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// result shape: rlx.avg_pool2d. Pools keep the channels.
func.func @result_shape_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected the result type to be tensor<1x4x4x4xf32> as the geometry implies, got tensor<1x3x4x4xf32>
  %r = rlx.avg_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// -----

// result shape: rlx.matmul.
func.func @result_shape_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected the result type to be tensor<4x16xf32> as the geometry implies, got tensor<4x8xf32>
  %r = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// result shape: rlx.im2col. Rows are N*Ho*Wo = 2*8*8.
func.func @result_shape_im2col(%x: tensor<2x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op expected the result type to be tensor<128x36xf32> as the geometry implies, got tensor<64x36xf32>
  %r = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// result shape: rlx.conv2d_backward_weight. The weight gradient has C/groups input channels.
func.func @result_shape_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected the result type to be tensor<6x2x3x3xf32> as the geometry implies, got tensor<6x4x3x3xf32>
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 2 : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// result shape: rlx.max_pool2d_backward. The input gradient has the input's shape.
func.func @result_shape_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected the result type to be tensor<1x4x8x8xf32> as the geometry implies, got tensor<1x4x4x4xf32>
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// channel mismatch: rlx.conv2d.
func.func @channel_mismatch_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected weight dimension 1 to be input channels / groups = 4, got 3
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// channel mismatch: rlx.conv_transpose2d.
func.func @channel_mismatch_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected weight dimension 0 to be the input channels (4), got 5
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<5x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// channel mismatch: rlx.conv2d_backward_input.
func.func @channel_mismatch_conv2d_backward_input(%dy: tensor<1x5x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected grad_output channels (5) to equal weight dimension 0 (6)
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x5x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// channel mismatch result: rlx.conv2d_backward_input.
func.func @channel_mismatch_result_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected result channels to be weight dimension 1 x groups = 6, got 4
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] groups 3 : (tensor<1x6x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// channel mismatch: rlx.avg_pool2d_backward.
func.func @channel_mismatch_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected result channels to equal grad_output channels (4), got 3
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %r : tensor<1x3x8x8xf32>
}

// -----

// kernel mismatch: rlx.conv2d_backward_input.
func.func @kernel_mismatch_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x5x5xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected kernel_size [3, 3] to match the weight spatial size [5, 5]
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x5x5xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// no output: rlx.conv2d.
func.func @no_output_conv2d(%x: tensor<1x4x2x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x0x6xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op the height has no complete window: input 2 padded by 0 on each side is smaller than the (dilated) kernel extent 3
  %r = rlx.conv2d %x, %w stride [1, 1] padding [0, 0] : (tensor<1x4x2x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x0x6xf32>
  return %r : tensor<1x6x0x6xf32>
}

// -----

// no output: rlx.conv2d. Dilation 2 stretches a 3-wide kernel to 5.
func.func @no_output_conv2d_2(%x: tensor<1x4x8x4xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x0xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op the width has no complete window: input 4 padded by 0 on each side is smaller than the (dilated) kernel extent 5
  %r = rlx.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 2] : (tensor<1x4x8x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x0xf32>
  return %r : tensor<1x6x6x0xf32>
}

// -----

// no output: rlx.conv_transpose2d.
func.func @no_output_conv_transpose2d(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op the transposed convolution's output height would be -1
  %r = rlx.conv_transpose2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %r : tensor<1x2x1x1xf32>
}

// -----

// no output: rlx.max_pool2d.
func.func @no_output_max_pool2d(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op the height has no complete window: input 2 padded by 0 on each side is smaller than the (dilated) kernel extent 3
  %r = rlx.max_pool2d %x kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32>
  return %r : tensor<1x4x1x1xf32>
}

// -----

// no output: rlx.avg_pool2d.
func.func @no_output_avg_pool2d(%x: tensor<1x4x8x1xf32>) -> tensor<1x4x8x1xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op the width has no complete window: input 1 padded by 0 on each side is smaller than the (dilated) kernel extent 3
  %r = rlx.avg_pool2d %x kernel_size [1, 3] stride [1, 1] padding [0, 0] : (tensor<1x4x8x1xf32>) -> tensor<1x4x8x1xf32>
  return %r : tensor<1x4x8x1xf32>
}

// -----

// no output: rlx.im2col.
func.func @no_output_im2col(%x: tensor<1x4x2x2xf32>) -> tensor<1x100xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col' op the height has no complete window: input 2 padded by 1 on each side is smaller than the (dilated) kernel extent 5
  %r = rlx.im2col %x kernel_size [5, 5] stride [1, 1] padding [1, 1] : (tensor<1x4x2x2xf32>) -> tensor<1x100xf32>
  return %r : tensor<1x100xf32>
}

// -----

// no output: rlx.conv2d_backward_weight.
func.func @no_output_conv2d_backward_weight(%x: tensor<1x4x2x2xf32>, %dy: tensor<1x6x1x1xf32>) -> tensor<6x4x5x5xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op the height has no complete window: input 2 padded by 1 on each side is smaller than the (dilated) kernel extent 5
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [5, 5] stride [1, 1] padding [1, 1] : (tensor<1x4x2x2xf32>, tensor<1x6x1x1xf32>) -> tensor<6x4x5x5xf32>
  return %r : tensor<6x4x5x5xf32>
}

// -----

// no output: rlx.conv2d_backward_input.
func.func @no_output_conv2d_backward_input(%dy: tensor<1x6x1x1xf32>, %w: tensor<6x4x5x5xf32>) -> tensor<1x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op the height has no complete window: input 3 padded by 0 on each side is smaller than the (dilated) kernel extent 5
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [5, 5] stride [1, 1] padding [0, 0] : (tensor<1x6x1x1xf32>, tensor<6x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// -----

// no output: rlx.max_pool2d_backward.
func.func @no_output_max_pool2d_backward(%x: tensor<1x4x2x2xf32>, %dy: tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op the height has no complete window: input 2 padded by 0 on each side is smaller than the (dilated) kernel extent 3
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  return %r : tensor<1x4x2x2xf32>
}

// -----

// no output: rlx.avg_pool2d_backward.
func.func @no_output_avg_pool2d_backward(%dy: tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op the height has no complete window: input 2 padded by 0 on each side is smaller than the (dilated) kernel extent 3
  %r = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  return %r : tensor<1x4x2x2xf32>
}

// -----

// pool padding: rlx.max_pool2d.
func.func @pool_padding_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x10x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected padding to be at most half the kernel size, got padding [2, 1] for kernel_size [3, 3]
  %r = rlx.max_pool2d %x kernel_size [3, 3] stride [1, 1] padding [2, 1] : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x8xf32>
  return %r : tensor<1x4x10x8xf32>
}

// -----

// pool padding: rlx.avg_pool2d.
func.func @pool_padding_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x6xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected padding to be at most half the kernel size, got padding [0, 2] for kernel_size [2, 2]
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 2] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x6xf32>
  return %r : tensor<1x4x4x6xf32>
}

// -----

// pool padding: rlx.max_pool2d_backward.
func.func @pool_padding_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x5x5xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected padding to be at most half the kernel size, got padding [2, 2] for kernel_size [2, 2]
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [2, 2] : (tensor<1x4x8x8xf32>, tensor<1x4x5x5xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// pool padding: rlx.avg_pool2d_backward.
func.func @pool_padding_avg_pool2d_backward(%dy: tensor<1x4x5x5xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected padding to be at most half the kernel size, got padding [1, 1] for kernel_size [1, 1]
  %r = rlx.avg_pool2d_backward %dy kernel_size [1, 1] stride [2, 2] padding [1, 1] : (tensor<1x4x5x5xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// grad output shape: rlx.conv2d_backward_weight.
func.func @grad_output_shape_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x7x7xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected grad_output spatial size [8, 8] (the forward conv's output for input [8, 8]), got [7, 7]
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x7x7xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// grad output shape: rlx.max_pool2d_backward.
func.func @grad_output_shape_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x3x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected grad_output of shape 1x4x4x4 (the pool's output for input 1x4x8x8), got 1x4x3x4
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>, tensor<1x4x3x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// grad output shape: rlx.avg_pool2d_backward.
func.func @grad_output_shape_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected grad_output spatial size [8, 8] (the pool's output for input [8, 8]), got [4, 4]
  %r = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// batch mismatch: rlx.matmul.
func.func @batch_mismatch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<2x4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected the lhs and the rhs to have the same batch size, got 2 and 3
  %r = rlx.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

// batch mismatch: rlx.conv2d_backward_weight.
func.func @batch_mismatch_conv2d_backward_weight(%x: tensor<2x4x8x8xf32>, %dy: tensor<?x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_weight' op expected the input and the grad_output to have the same batch size, got 2 and ?
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<?x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// batch mismatch: rlx.conv2d_backward_input.
func.func @batch_mismatch_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op expected the grad_output and the result to have the same batch size, got 1 and 2
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %r : tensor<2x4x8x8xf32>
}

// -----

// batch mismatch: rlx.max_pool2d_backward.
func.func @batch_mismatch_max_pool2d_backward(%x: tensor<2x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<2x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_backward' op expected grad_output of shape 2x4x4x4 (the pool's output for input 2x4x8x8), got 1x4x4x4
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<2x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<2x4x8x8xf32>
  return %r : tensor<2x4x8x8xf32>
}

// -----

// batch mismatch: rlx.avg_pool2d_backward.
func.func @batch_mismatch_avg_pool2d_backward(%dy: tensor<?x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d_backward' op expected the grad_output and the result to have the same batch size, got ? and 1
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// input size not mapping: rlx.conv2d_backward_input. Stride 2: inputs of 7 and 8 give 4 outputs, 10 gives 5.
func.func @input_size_not_mapping_conv2d_backward_input(%dy: tensor<1x6x4x4xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x10x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op an input height of 10 does not give 4 outputs; expected an input height of 7..8
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x6x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x10x8xf32>
  return %r : tensor<1x4x10x8xf32>
}

// -----

// input size not mapping: rlx.conv2d_backward_input. Stride 1: exactly one input size per output size.
func.func @input_size_not_mapping_conv2d_backward_input_2(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x9xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d_backward_input' op an input width of 9 does not give 8 outputs; expected an input width of 8
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x9xf32>
  return %r : tensor<1x4x8x9xf32>
}

// -----

// output padding range: rlx.conv_transpose2d.
func.func @output_padding_range_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x9x7xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected output_padding to be non-negative and smaller than stride or dilation, got [2, 0] with stride [2, 2] and dilation [1, 1]
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [2, 0] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x9x7xf32>
  return %r : tensor<1x2x9x7xf32>
}

// -----

// output padding range: rlx.conv_transpose2d. The bound is max(stride, dilation) = 2.
func.func @output_padding_range_conv_transpose2d_2(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x6x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected output_padding to be non-negative and smaller than stride or dilation, got [0, 2] with stride [1, 1] and dilation [2, 2]
  %r = rlx.conv_transpose2d %x, %w stride [1, 1] padding [1, 1] dilation [2, 2] output_padding [0, 2] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x8xf32>
  return %r : tensor<1x2x6x8xf32>
}

// -----

// output padding range: rlx.conv_transpose2d.
func.func @output_padding_range_conv_transpose2d_3(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x6x7xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d' op expected output_padding to be non-negative and smaller than stride or dilation, got [-1, 0] with stride [2, 2] and dilation [1, 1]
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [-1, 0] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x7xf32>
  return %r : tensor<1x2x6x7xf32>
}

// -----

// contraction mismatch: rlx.matmul.
func.func @contraction_mismatch_matmul(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected the contraction sizes to agree: lhs tensor<4x8xf32> has 8 columns, rhs tensor<7x16xf32> has 7 rows
  %r = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// contraction mismatch: rlx.matmul.
func.func @contraction_mismatch_matmul_2(%a: tensor<?x4x8xf32>, %b: tensor<?x9x16xf32>) -> tensor<?x4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected the contraction sizes to agree: lhs tensor<?x4x8xf32> has 8 columns, rhs tensor<?x9x16xf32> has 9 rows
  %r = rlx.matmul %a, %b : (tensor<?x4x8xf32>, tensor<?x9x16xf32>) -> tensor<?x4x16xf32>
  return %r : tensor<?x4x16xf32>
}

// -----

// rank mismatch: rlx.matmul.
func.func @rank_mismatch_matmul(%a: tensor<4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected lhs and rhs of equal rank, got 2 and 3
  %r = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<2x8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// dynamic rhs 2d: rlx.matmul.
func.func @dynamic_rhs_2d_matmul(%a: tensor<4x8xf32>, %b: tensor<?x16xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.matmul' op expected the rhs to have a static shape, got tensor<?x16xf32>
  %r = rlx.matmul %a, %b : (tensor<4x8xf32>, tensor<?x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// not float: rlx.conv2d.
func.func @not_float_conv2d(%x: tensor<1x4x8x8xi32>, %w: tensor<6x4x3x3xi32>) -> tensor<1x6x8x8xi32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected a floating-point element type, got i32
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xi32>, tensor<6x4x3x3xi32>) -> tensor<1x6x8x8xi32>
  return %r : tensor<1x6x8x8xi32>
}

// -----

// missing property: rlx.conv2d.
func.func @missing_property_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'padding'
  %r = rlx.conv2d %x, %w stride [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// missing property: rlx.conv_transpose2d.
func.func @missing_property_conv_transpose2d(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'stride'
  %r = rlx.conv_transpose2d %x, %w padding [1, 1] output_padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// missing property: rlx.max_pool2d.
func.func @missing_property_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'kernel_size'
  %r = rlx.max_pool2d %x stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// missing property: rlx.avg_pool2d.
func.func @missing_property_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'stride'
  %r = rlx.avg_pool2d %x kernel_size [2, 2] count_include_pad false : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// missing property: rlx.im2col.
func.func @missing_property_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'kernel_size'
  %r = rlx.im2col %x : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// missing property: rlx.conv2d_backward_weight.
func.func @missing_property_conv2d_backward_weight(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'kernel_size'
  %r = rlx.conv2d_backward_weight %x, %dy stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %r : tensor<6x4x3x3xf32>
}

// -----

// missing property: rlx.conv2d_backward_input.
func.func @missing_property_conv2d_backward_input(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'stride'
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] padding [1, 1] groups 1 : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// missing property: rlx.max_pool2d_backward.
func.func @missing_property_max_pool2d_backward(%x: tensor<1x4x8x8xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'padding'
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// missing property: rlx.avg_pool2d_backward.
func.func @missing_property_avg_pool2d_backward(%dy: tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'stride'
  %r = rlx.avg_pool2d_backward %dy kernel_size [2, 2] padding [0, 0] : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// parse misspelled property: rlx.conv2d. An unknown keyword ends the properties.
func.func @parse_misspelled_property_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 'padding'
  %r = rlx.conv2d %x, %w stride [1, 1] paddding [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// parse property twice: rlx.conv2d.
func.func @parse_property_twice_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected ':'
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] stride [1, 1] : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// parse not an integer: rlx.max_pool2d.
func.func @parse_not_an_integer_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected integer literal
  %r = rlx.max_pool2d %x kernel_size [2, two] stride [2, 2] padding [0, 0] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// parse not a boolean: rlx.avg_pool2d.
func.func @parse_not_a_boolean_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected integer literal
  %r = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] count_include_pad yes : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// parse operand count: rlx.conv2d.
func.func @parse_operand_count_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected 2 operand types, but got 1
  %r = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// parse no type: rlx.matmul.
func.func @parse_no_type_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: Expected ':'
  %r = rlx.matmul %a, %b transpose_b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// parse pair not a list: rlx.im2col.
func.func @parse_pair_not_a_list_im2col(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: '[' expected
  %r = rlx.im2col %x kernel_size 3 stride [1, 1] padding [1, 1] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}

// -----

// generic missing property: rlx.conv2d. A property without a default must be given in the
// generic form too (one with a default is filled in, and printed, as in the custom form).
func.func @generic_missing_property_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected the property 'stride' (array<i64: ...>)
  %r = "rlx.conv2d"(%x, %w) <{padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// generic wrong property type: rlx.conv2d.
func.func @generic_wrong_property_type_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv2d' op expected 'groups' to be an i64 integer, got 1 : i32
  %r = "rlx.conv2d"(%x, %w) <{stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i32}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %r : tensor<1x6x8x8xf32>
}

// -----

// wrong rank: rlx.conv1d.
func.func @wrong_rank_conv1d(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x8xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv1d' op expected the input to have rank 3, got tensor<1x4x8x8xf32>
  %r = rlx.conv1d %x, %w stride [1] padding [1] : (tensor<1x4x8x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x8xf32>
  return %r : tensor<1x6x8xf32>
}

// -----

// wrong padding length: rlx.conv3d.
func.func @wrong_padding_length_conv3d(%x: tensor<1x4x6x6x6xf32>, %w: tensor<6x4x3x3x3xf32>) -> tensor<1x6x6x6x6xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv3d' op expected 'padding' to have 3 values (each side alike) or 6 (low then high per axis), got 5
  %r = rlx.conv3d %x, %w stride [1, 1, 1] padding [1, 1, 1, 1, 1] : (tensor<1x4x6x6x6xf32>, tensor<6x4x3x3x3xf32>) -> tensor<1x6x6x6x6xf32>
  return %r : tensor<1x6x6x6x6xf32>
}

// -----

// wrong dilation length: rlx.max_pool3d.
func.func @wrong_dilation_length_max_pool3d(%x: tensor<1x4x8x8x8xf32>) -> tensor<1x4x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool3d' op expected 'dilation' to have 3 values (depth, height, width), got 2
  %r = rlx.max_pool3d %x kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] dilation [1, 1] : (tensor<1x4x8x8x8xf32>) -> tensor<1x4x4x4x4xf32>
  return %r : tensor<1x4x4x4x4xf32>
}

// -----

// per-side pool padding over half the kernel: rlx.max_pool2d.
func.func @per_side_padding_over_half_max_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected padding to be at most half the kernel size, got padding [1, 0, 2, 1] for kernel_size [3, 3]
  %r = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 0, 2, 1] : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  return %r : tensor<1x4x5x5xf32>
}

// -----

// ceil_mode output size: rlx.max_pool2d.
func.func @ceil_mode_size_max_pool2d(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d' op expected the result type to be tensor<1x4x4x4xf32> as the geometry implies, got tensor<1x4x3x3xf32>
  %r = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] ceil_mode true : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// -----

// generic wrong ceil_mode type: rlx.avg_pool1d.
func.func @generic_wrong_ceil_mode_avg_pool1d(%x: tensor<1x4x8xf32>) -> tensor<1x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool1d' op expected 'ceil_mode' to be true or false, got 1 : i64
  %r = "rlx.avg_pool1d"(%x) <{kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, ceil_mode = 1 : i64, count_include_pad = true, divisor_override = 0 : i64}> : (tensor<1x4x8xf32>) -> tensor<1x4x4xf32>
  return %r : tensor<1x4x4xf32>
}

// -----

// generic wrong divisor_override type: rlx.avg_pool2d.
func.func @generic_wrong_divisor_avg_pool2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.avg_pool2d' op expected 'divisor_override' to be an i64 integer, got 3 : i32
  %r = "rlx.avg_pool2d"(%x) <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true, divisor_override = 3 : i32}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// output_padding not below stride or dilation: rlx.conv_transpose3d.
func.func @output_padding_conv_transpose3d(%x: tensor<1x4x3x3x3xf32>, %w: tensor<4x2x2x2x2xf32>) -> tensor<1x2x8x7x7xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose3d' op expected output_padding to be non-negative and smaller than stride or dilation, got [2, 1, 1] with stride [2, 2, 2] and dilation [1, 1, 1]
  %r = rlx.conv_transpose3d %x, %w stride [2, 2, 2] padding [0, 0, 0] output_padding [2, 1, 1] : (tensor<1x4x3x3x3xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x2x8x7x7xf32>
  return %r : tensor<1x2x8x7x7xf32>
}

// -----

// transposed-conv gradient size: rlx.conv_transpose2d_backward_input.
func.func @size_conv_transpose2d_backward_input(%dy: tensor<1x2x10x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose2d_backward_input' op a transposed convolution of input height 4 gives an output height of 7..8, got 10
  %r = rlx.conv_transpose2d_backward_input %dy, %w stride [2, 2] padding [1, 1] : (tensor<1x2x10x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// transposed-conv weight gradient channels: rlx.conv_transpose1d_backward_weight.
func.func @channels_conv_transpose1d_backward_weight(%x: tensor<1x4x4xf32>, %dy: tensor<1x2x8xf32>) -> tensor<4x3x3xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.conv_transpose1d_backward_weight' op expected the result type to be tensor<4x2x3xf32> as the geometry implies, got tensor<4x3x3xf32>
  %r = rlx.conv_transpose1d_backward_weight %x, %dy kernel_size [3] stride [2] padding [1] : (tensor<1x4x4xf32>, tensor<1x2x8xf32>) -> tensor<4x3x3xf32>
  return %r : tensor<4x3x3xf32>
}

// -----

// empty input: rlx.adaptive_avg_pool2d.
func.func @empty_input_adaptive_avg_pool2d(%x: tensor<1x4x0x8xf32>) -> tensor<1x4x2x2xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_avg_pool2d' op expected the input to have a non-empty spatial size (an adaptive pool needs a cell for every window), got [0, 8]
  %r = rlx.adaptive_avg_pool2d %x : (tensor<1x4x0x8xf32>) -> tensor<1x4x2x2xf32>
  return %r : tensor<1x4x2x2xf32>
}

// -----

// channels: rlx.adaptive_max_pool3d.
func.func @channels_adaptive_max_pool3d(%x: tensor<1x4x5x5x5xf32>) -> tensor<1x3x2x2x2xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_max_pool3d' op expected the result type to be tensor<1x4x2x2x2xf32> as the geometry implies, got tensor<1x3x2x2x2xf32>
  %r = rlx.adaptive_max_pool3d %x : (tensor<1x4x5x5x5xf32>) -> tensor<1x3x2x2x2xf32>
  return %r : tensor<1x3x2x2x2xf32>
}

// -----

// grad_output shape: rlx.adaptive_max_pool1d_backward.
func.func @grad_output_adaptive_max_pool1d_backward(%x: tensor<2x4x9xf32>, %dy: tensor<1x4x3xf32>) -> tensor<2x4x9xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_max_pool1d_backward' op expected the input and the grad_output to have the same batch size, got 2 and 1
  %r = rlx.adaptive_max_pool1d_backward %x, %dy : (tensor<2x4x9xf32>, tensor<1x4x3xf32>) -> tensor<2x4x9xf32>
  return %r : tensor<2x4x9xf32>
}

// -----

// wrong rank: rlx.im2col3d.
func.func @wrong_rank_im2col3d(%x: tensor<1x4x8x8xf32>) -> tensor<64x36xf32> {
  // CHECK: {{.*}}invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.im2col3d' op expected the input to have rank 5, got tensor<1x4x8x8xf32>
  %r = rlx.im2col3d %x kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<1x4x8x8xf32>) -> tensor<64x36xf32>
  return %r : tensor<64x36xf32>
}
