// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The reshapes of a dynamic batch that are refused, each with its located diagnostic:
// the result's `?` must be the input's, or a whole multiple or divisor of it.

// [B, 2] -> [2B/3, 3] holds only for batches divisible by 3.
func.func @ratio_not_whole(%x: tensor<?x2xf32>) -> tensor<?x3xf32> {
  // CHECK: {{.*}}reshape-dynamic-batch-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the result to have as many elements as the input (2 per leading index), got 3: tensor<?x2xf32> -> tensor<?x3xf32>, nor a whole multiple or divisor of it (a merge or split of the batch)
  %y = rlx.reshape %x : (tensor<?x2xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// No element per leading index: no multiple of 0 is 5.
func.func @empty_rows(%x: tensor<?x0xf32>) -> tensor<?x5xf32> {
  // CHECK: {{.*}}reshape-dynamic-batch-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the result to have as many elements as the input (0 per leading index), got 5: tensor<?x0xf32> -> tensor<?x5xf32>, nor a whole multiple or divisor of it (a merge or split of the batch)
  %y = rlx.reshape %x : (tensor<?x0xf32>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// A static shape cannot become a dynamic batch.
func.func @static_to_dynamic(%x: tensor<6xf32>) -> tensor<?x3xf32> {
  // CHECK: {{.*}}reshape-dynamic-batch-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the result to have a static shape (a reshape carries a dynamic dim only as the leading dim of both input and result), got tensor<?x3xf32>
  %y = rlx.reshape %x : (tensor<6xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// A merged batch must stay the leading dim.
func.func @merged_not_leading(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  // CHECK: {{.*}}reshape-dynamic-batch-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<4x?xf32>
  %y = rlx.reshape %x : (tensor<?x4xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}
