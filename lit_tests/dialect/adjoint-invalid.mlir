// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the adjoint ops (dialects/adjoint.py), and the
// window and rank checks they inherit: the exact message and its location.
// rlx-opt's --verify-diagnostics prints each chunk's first diagnostic, so the CHECK lines
// state it in full (as invalid.mlir does).

// The source z is read at x's argmax positions, so it has x's shape.
func.func @max_pool_gather_source_shape(%x: tensor<1x2x8x8xf32>, %z: tensor<1x2x8x6xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_gather' op expected the source to have the input's shape 1x2x8x8, got 1x2x8x6
  %g = rlx.max_pool2d_gather %x, %z kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x8x8xf32>, tensor<1x2x8x6xf32>) -> tensor<1x2x4x4xf32>
  return %g : tensor<1x2x4x4xf32>
}

// -----

// PyTorch's max pool limit: padding at most half the kernel.
func.func @max_pool_gather_padding(%x: tensor<1x2x8x8xf32>, %z: tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_gather' op expected padding to be at most half the kernel size, got padding [2, 2] for kernel_size [2, 2]
  %g = rlx.max_pool2d_gather %x, %z kernel_size [2, 2] stride [2, 2] padding [2, 2] : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32>
  return %g : tensor<1x2x5x5xf32>
}

// -----

// g has the pool's output shape: 8 / 2 = 4, not 5.
func.func @max_pool_gather_result_shape(%x: tensor<1x2x8x8xf32>, %z: tensor<1x2x8x8xf32>) -> tensor<1x2x5x4xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_gather' op expected the result type to be tensor<1x2x4x4xf32> as the geometry implies, got tensor<1x2x5x4xf32>
  %g = rlx.max_pool2d_gather %x, %z kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x5x4xf32>
  return %g : tensor<1x2x5x4xf32>
}

// -----

// The gathers are spatial ops of their rank: a 3-D gather of 4-D tensors.
func.func @max_pool_gather_rank(%x: tensor<1x2x8x8xf32>, %z: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool3d_gather' op expected the input to have rank 5, got tensor<1x2x8x8xf32>
  %g = rlx.max_pool3d_gather %x, %z kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %g : tensor<1x2x4x4xf32>
}

// -----

// One kernel size per spatial axis.
func.func @max_pool_gather_kernel_length(%x: tensor<1x2x8xf32>, %z: tensor<1x2x8xf32>) -> tensor<1x2x4xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool1d_gather' op expected 'kernel_size' to have 1 value (length), got 2
  %g = rlx.max_pool1d_gather %x, %z kernel_size [2, 2] stride [2] padding [0] : (tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
  return %g : tensor<1x2x4xf32>
}

// -----

// A stride of 0 is no window.
func.func @max_pool_gather_stride_zero(%x: tensor<1x2x8xf32>, %z: tensor<1x2x8xf32>) -> tensor<1x2x4xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool1d_gather' op expected stride to be positive, got [0]
  %g = rlx.max_pool1d_gather %x, %z kernel_size [2] stride [0] padding [0] : (tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
  return %g : tensor<1x2x4xf32>
}

// -----

// A kernel larger than the input leaves no complete window.
func.func @max_pool_gather_no_window(%x: tensor<1x2x2xf32>, %z: tensor<1x2x2xf32>) -> tensor<1x2x1xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool1d_gather' op the length has no complete window: input 2 padded by 0 on each side is smaller than the (dilated) kernel extent 3
  %g = rlx.max_pool1d_gather %x, %z kernel_size [3] stride [1] padding [0] : (tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x1xf32>
  return %g : tensor<1x2x1xf32>
}

// -----

// The adaptive gather's source has the input's shape too.
func.func @adaptive_gather_source_shape(%x: tensor<1x2x6x6xf32>, %z: tensor<1x3x6x6xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_max_pool2d_gather' op expected the source to have the input's shape 1x2x6x6, got 1x3x6x6
  %g = rlx.adaptive_max_pool2d_gather %x, %z : (tensor<1x2x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %g : tensor<1x2x3x3xf32>
}

// -----

// Every adaptive window needs a cell: an empty spatial axis has none.
func.func @adaptive_gather_empty_input(%x: tensor<1x2x0x6xf32>, %z: tensor<1x2x0x6xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_max_pool2d_gather' op expected the input to have a non-empty spatial size (an adaptive pool needs a cell for every window), got [0, 6]
  %g = rlx.adaptive_max_pool2d_gather %x, %z : (tensor<1x2x0x6xf32>, tensor<1x2x0x6xf32>) -> tensor<1x2x3x3xf32>
  return %g : tensor<1x2x3x3xf32>
}

// -----

func.func @adaptive_gather_batch(%x: tensor<2x2x6x6xf32>, %z: tensor<2x2x6x6xf32>) -> tensor<3x2x3x3xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_max_pool2d_gather' op expected the input and the result to have the same batch size, got 2 and 3
  %g = rlx.adaptive_max_pool2d_gather %x, %z : (tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>) -> tensor<3x2x3x3xf32>
  return %g : tensor<3x2x3x3xf32>
}

// -----

// The result keeps the input's channels; only its spatial size is free.
func.func @adaptive_gather_channels(%x: tensor<1x2x6x6xf32>, %z: tensor<1x2x6x6xf32>) -> tensor<1x4x3x3xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.adaptive_max_pool2d_gather' op expected the result type to be tensor<1x2x3x3xf32> as the geometry implies, got tensor<1x4x3x3xf32>
  %g = rlx.adaptive_max_pool2d_gather %x, %z : (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x4x3x3xf32>
  return %g : tensor<1x4x3x3xf32>
}

// -----

// col2im's columns are im2col of its result: [2 * 8 * 8, 3 * 3 * 3] = [128, 27], not [128, 26].
func.func @col2im_columns_shape(%cols: tensor<128x26xf32>) -> tensor<2x3x8x8xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.col2im2d' op expected the columns to have shape 128x27 (im2col of the result 2x3x8x8), got 128x26
  %x = rlx.col2im2d %cols kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<128x26xf32>) -> tensor<2x3x8x8xf32>
  return %x : tensor<2x3x8x8xf32>
}

// -----

// The columns are a matrix.
func.func @col2im_columns_rank(%cols: tensor<2x64x27xf32>) -> tensor<2x3x8x8xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.col2im2d' op expected the input to have rank 2, got tensor<2x64x27xf32>
  %x = rlx.col2im2d %cols kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x64x27xf32>) -> tensor<2x3x8x8xf32>
  return %x : tensor<2x3x8x8xf32>
}

// -----

// The result of a 3-D col2im is [N, C, D, H, W].
func.func @col2im_result_rank(%cols: tensor<128x27xf32>) -> tensor<2x3x8x8xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.col2im3d' op expected the result to have rank 5, got tensor<2x3x8x8xf32>
  %x = rlx.col2im3d %cols kernel_size [3, 3, 3] stride [1, 1, 1] padding [1, 1, 1] : (tensor<128x27xf32>) -> tensor<2x3x8x8xf32>
  return %x : tensor<2x3x8x8xf32>
}

// -----

// col2im's result type is its only source of N, C and the input size: static shapes only.
func.func @col2im_dynamic(%cols: tensor<?x27xf32>) -> tensor<?x3x8x8xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.col2im2d' op expected the input to have a static shape, got tensor<?x27xf32>
  %x = rlx.col2im2d %cols kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<?x27xf32>) -> tensor<?x3x8x8xf32>
  return %x : tensor<?x3x8x8xf32>
}

// -----

// Element types: the operands and the result share one float type.
func.func @max_pool_gather_element_type(%x: tensor<1x2x8x8xf32>, %z: tensor<1x2x8x8xf64>) -> tensor<1x2x4x4xf32> {
  // CHECK: {{.*}}adjoint-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.max_pool2d_gather' op expected all operands and the result to have one element type, got f32 and f64
  %g = rlx.max_pool2d_gather %x, %z kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf64>) -> tensor<1x2x4x4xf32>
  return %g : tensor<1x2x4x4xf32>
}
