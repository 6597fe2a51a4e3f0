// RUN: rlx-opt %s --autodiff="func=conv,bwd_input,bwd_weight,transposed,cols" | FileCheck %s

// A conv's VJP: the input gradient and the weight gradient, with the conv's window and
// the kernel size read from the weight. The forward conv is not needed, so it is gone.
// CHECK-LABEL: func.func @conv_vjp
// CHECK-SAME:    (%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %y_bar: tensor<2x4x4x4xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>)
// CHECK-NEXT:    %[[DX:.+]] = rlx.conv2d_backward_input %y_bar, %w kernel_size [3, 3] stride [2, 2] padding [1, 2] dilation [1, 2] :
// CHECK-NEXT:    %[[DW:.+]] = rlx.conv2d_backward_weight %x, %y_bar kernel_size [3, 3] stride [2, 2] padding [1, 2] dilation [1, 2] :
// CHECK-NEXT:    func.return %[[DX]], %[[DW]]
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = rlx.conv2d %x, %w stride [2, 2] padding [1, 2] dilation [1, 2] : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// The input gradient is linear in dy and w: a forward conv, and a weight gradient with
// the roles swapped (dx_bar as the input, dy as the grad_output).
// CHECK-LABEL: func.func @bwd_input_vjp
// CHECK-SAME:    (%dy: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>, %dx_bar: tensor<2x3x8x8xf32>)
// CHECK-NEXT:    %[[DDY:.+]] = rlx.conv2d %dx_bar, %w stride [2, 2] padding [1, 1] :
// CHECK-NEXT:    %[[DW:.+]] = rlx.conv2d_backward_weight %dx_bar, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] :
// CHECK-NEXT:    func.return %[[DDY]], %[[DW]]
func.func @bwd_input(%dy: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// The weight gradient is bilinear in x and dy.
// CHECK-LABEL: func.func @bwd_weight_vjp
// CHECK-NEXT:    %[[DX:.+]] = rlx.conv2d_backward_input %dy, %dw_bar kernel_size [3, 3] stride [2, 2] padding [1, 1] groups 2 :
// CHECK-NEXT:    %[[DDY:.+]] = rlx.conv2d %x, %dw_bar stride [2, 2] padding [1, 1] groups 2 :
// CHECK-NEXT:    func.return %[[DX]], %[[DDY]]
func.func @bwd_weight(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x4x4x4xf32>) -> tensor<4x2x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] groups 2 : (tensor<2x4x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<4x2x3x3xf32>
  return %dw : tensor<4x2x3x3xf32>
}

// A transposed conv's VJP: its own gradients (the output_padding is solved from the sizes).
// CHECK-LABEL: func.func @transposed_vjp
// CHECK-NEXT:    rlx.conv_transpose2d_backward_input %y_bar, %w stride [2, 2] padding [1, 1] :
// CHECK-NEXT:    rlx.conv_transpose2d_backward_weight %x, %y_bar kernel_size [3, 3] stride [2, 2] padding [1, 1] :
func.func @transposed(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  %y = rlx.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] : (tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// im2col copies; its VJP sums each copy's cotangent back (rlx.col2im2d, the adjoint op).
// CHECK-LABEL: func.func @cols_vjp
// CHECK-NEXT:    rlx.col2im2d %c_bar kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<128x27xf32>) -> tensor<2x3x8x8xf32>
func.func @cols(%x: tensor<2x3x8x8xf32>) -> tensor<128x27xf32> {
  %c = rlx.im2col %x kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>) -> tensor<128x27xf32>
  return %c : tensor<128x27xf32>
}
