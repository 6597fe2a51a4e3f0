// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per diagnostic of the loss ops: the exact message and its file:line:col.
// The i32 target is in the generic form: the custom form's parser checks the operand
// constraints itself, before the op's worded check can run.

func.func @dim_out_of_range_log_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.log_softmax' op expected 'dim' to be an axis of the input (0 <= dim < 2), got 2
  %r = rlx.log_softmax %x dim 2 : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

// -----

func.func @zero_d_softmax(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.softmax' op expected the input to have rank >= 1 (an axis to reduce), got tensor<f32>
  %r = rlx.softmax %x dim 0 : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @result_shape_log_softmax(%x: tensor<4x10xf32>) -> tensor<4x9xf32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.log_softmax' op expected the result type to be tensor<4x10xf32> as the geometry implies, got tensor<4x9xf32>
  %r = rlx.log_softmax %x dim 1 : (tensor<4x10xf32>) -> tensor<4x9xf32>
  return %r : tensor<4x9xf32>
}

// -----

func.func @element_type_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf64> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.softmax' op expected all operands and the result to have one element type, got f32 and f64
  %r = rlx.softmax %x dim 1 : (tensor<4x10xf32>) -> tensor<4x10xf64>
  return %r : tensor<4x10xf64>
}

// -----

func.func @output_shape_softmax_backward(%dy: tensor<4x10xf32>, %y: tensor<4x9xf32>) -> tensor<4x10xf32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.softmax_backward' op expected the output to have the shape of the grad_output (4x10), got 4x9
  %r = rlx.softmax_backward %dy, %y dim 1 : (tensor<4x10xf32>, tensor<4x9xf32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

// -----

func.func @dim_out_of_range_log_softmax_backward(%dy: tensor<4x10xf32>, %y: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.log_softmax_backward' op expected 'dim' to be an axis of the grad_output (0 <= dim < 2), got 3
  %r = rlx.log_softmax_backward %dy, %y dim 3 : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

// -----

func.func @reduction_nll_loss(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected 'reduction' to be one of "mean", "sum", "none", got "average"
  %r, %tw = rlx.nll_loss %x, %t, %w reduction "average" : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @target_shape_nll_loss(%x: tensor<4x10x3xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the target to have shape [4, 3] (the input [4, 10, 3] without its class axis), got [4]
  %r, %tw = rlx.nll_loss %x, %t, %w : (tensor<4x10x3xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @target_type_nll_loss(%x: tensor<4x10xf32>, %t: tensor<4xi32>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the target to be a tensor of i64 class indices, got tensor<4xi32>
  %r, %tw = "rlx.nll_loss"(%x, %t, %w) <{reduction = "mean", ignore_index = -100 : i64}> : (tensor<4x10xf32>, tensor<4xi32>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @weight_shape_nll_loss(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<4xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the weight to have shape [10] (one per class), got [4]
  %r, %tw = rlx.nll_loss %x, %t, %w : (tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @loss_shape_nll_loss(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the loss to have shape [4] (reduction "none" of input [4, 10]), got []
  %r, %tw = rlx.nll_loss %x, %t, %w reduction "none" : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @total_weight_shape_nll_loss(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the total_weight to be 0-d, got tensor<1xf32>
  %r, %tw = rlx.nll_loss %x, %t, %w : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<1xf32>)
  return %r : tensor<f32>
}

// -----

func.func @zero_d_nll_loss(%x: tensor<f32>, %t: tensor<i64>, %w: tensor<1xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the input to have rank >= 1 ([N, C, *d] or unbatched [C]), got tensor<f32>
  %r, %tw = rlx.nll_loss %x, %t, %w : (tensor<f32>, tensor<i64>, tensor<1xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @unbatched_dynamic_nll_loss(%x: tensor<?xf32>, %t: tensor<i64>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss' op expected the input to have a static shape, got tensor<?xf32>
  %r, %tw = rlx.nll_loss %x, %t, %w : (tensor<?xf32>, tensor<i64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %r : tensor<f32>
}

// -----

func.func @grad_output_shape_nll_loss_backward(%g: tensor<f32>, %x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>, %tw: tensor<f32>) -> tensor<4x10xf32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss_backward' op expected the grad_output to have shape [4] (the loss of reduction "none" of input [4, 10]), got []
  %r = rlx.nll_loss_backward %g, %x, %t, %w, %tw reduction "none" : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>, tensor<f32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

// -----

func.func @result_shape_nll_loss_backward(%g: tensor<f32>, %x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>, %tw: tensor<f32>) -> tensor<10x4xf32> {
  // CHECK: {{.*}}loss-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.nll_loss_backward' op expected the result type to be tensor<4x10xf32> as the geometry implies, got tensor<10x4xf32>
  %r = rlx.nll_loss_backward %g, %x, %t, %w, %tw : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>, tensor<f32>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}
