// The backward pass of a small conv net block (conv 3x3 -> max-pool 2x2 -> avg-pool),
// batch dynamic: the gradients a training step needs, as RLX backward ops.
//
//   rlx-opt examples/lenet_backward.mlir --decompose-backward
//   rlx-opt examples/lenet_backward.mlir --decompose-backward --convert-rlx-to-linalg
func.func @conv_block_backward(%x: tensor<?x3x32x32xf32>, %w: tensor<16x3x3x3xf32>,
                               %y: tensor<?x16x32x32xf32>, %dpool: tensor<?x16x16x16xf32>)
    -> (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>) {
  // d(max_pool2d(y, 2, 2)) / dy
  %dy = rlx.max_pool2d_backward %y, %dpool kernel_size [2, 2] stride [2, 2] padding [0, 0]
      : (tensor<?x16x32x32xf32>, tensor<?x16x16x16xf32>) -> tensor<?x16x32x32xf32>
  // d(conv2d(x, w, padding 1)) / dw and / dx
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1]
      : (tensor<?x3x32x32xf32>, tensor<?x16x32x32xf32>) -> tensor<16x3x3x3xf32>
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [1, 1]
      : (tensor<?x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x3x32x32xf32>
  return %dx, %dw : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>
}
