// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the layout ops: the exact message and its location.
// rlx-opt's --verify-diagnostics prints each chunk's first diagnostic, so the CHECK lines
// state it in full (as invalid.mlir does).

// a reshape cannot convert f32 to f64.
func.func @element_type(%x: tensor<2x3xf32>) -> tensor<6xf64> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the result to have the element type of the input, f32 (a layout op moves data, it does not convert it), got f64
  %r = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<6xf64>
  return %r : tensor<6xf64>
}

// -----

// 6 elements cannot be viewed as 7.
func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the result to have as many elements as the input (6), got 7: tensor<2x3xf32> -> tensor<7xf32>
  %r = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

// a dynamic dim must stay leading.
func.func @reshape_dynamic(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<3x?xf32>
  %r = rlx.reshape %x : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// a dynamic leading dim cannot be folded into a static one.
func.func @reshape_dynamic2(%x: tensor<?x3xf32>) -> tensor<6xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the input to have a static shape (a reshape carries a dynamic dim only as the leading dim of both input and result), got tensor<?x3xf32>
  %r = rlx.reshape %x : (tensor<?x3xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// per leading index, 3 elements cannot be viewed as 4.
func.func @reshape_dyn_count(%x: tensor<?x3xf32>) -> tensor<?x4xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.reshape' op expected the result to have as many elements as the input (3 per leading index), got 4: tensor<?x3xf32> -> tensor<?x4xf32>
  %r = rlx.reshape %x : (tensor<?x3xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// dims repeats an axis.
func.func @perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.permute' op expected 'dims' to be a permutation of [0, 2) for a rank-2 input, got [1, 1]
  %r = rlx.permute %x dims [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// the result is not the permuted input.
func.func @perm_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.permute' op expected the result type to be tensor<3x2xf32> (the input permuted by [1, 0]), got tensor<2x3xf32>
  %r = rlx.permute %x dims [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// a permutation that moves the dynamic dim.
func.func @perm_dyn(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.permute' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<3x?xf32>
  %r = rlx.permute %x dims [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// an expand cannot drop dims.
func.func @expand_rank(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.expand' op expected the result rank to be at least the input's (2), got tensor<3xf32>
  %r = rlx.expand %x : (tensor<2x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// size 2 is neither 1 nor the target 4.
func.func @expand_size(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.expand' op expected input dim 0 (size 2) to be 1 or the result's dim 0 (size 4): tensor<2x3xf32> does not expand to tensor<4x3xf32>
  %r = rlx.expand %x : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// new leading dims in front of a dynamic one.
func.func @expand_dyn(%x: tensor<?x3xf32>) -> tensor<2x?x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.expand' op expected only the leading (batch) dimension of the result to be dynamic, got tensor<2x?x3xf32>
  %r = rlx.expand %x : (tensor<?x3xf32>) -> tensor<2x?x3xf32>
  return %r : tensor<2x?x3xf32>
}

// -----

// dim out of range.
func.func @slice_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice' op expected 'dim' to be in [0, 2) for a rank-2 input, got 2
  %r = rlx.slice %x dim 2 start 0 end 3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// end past the size.
func.func @slice_bounds(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice' op expected 0 <= start <= end <= 3 (the input's dim 1), got start 0 and end 4
  %r = rlx.slice %x dim 1 start 0 end 4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// a negative start (the importer normalizes it).
func.func @slice_neg(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice' op expected 0 <= start <= end <= 3 (the input's dim 1), got start -1 and end 2
  %r = rlx.slice %x dim 1 start -1 end 2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// step 0.
func.func @slice_step(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice' op expected 'step' to be at least 1, got 0
  %r = rlx.slice %x dim 1 start 0 end 3 step 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// 0:5:2 has ceil(5 / 2) = 3 elements.
func.func @slice_result(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice' op expected the result type to be tensor<2x3xf32> (the input sliced 0:5:2 along dim 1), got tensor<2x2xf32>
  %r = rlx.slice %x dim 1 start 0 end 5 step 2 : (tensor<2x5xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// slicing the dynamic dim.
func.func @slice_dyn(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice' op expected the input to have a static shape (a slice carries a dynamic dim only when it slices another dim), got tensor<?x5xf32>
  %r = rlx.slice %x dim 0 start 0 end 1 : (tensor<?x5xf32>) -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}

// -----

// dy must have the slice's shape.
func.func @sb(%x: tensor<2x2xf32>) -> tensor<2x5xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice_backward' op expected the grad_output type to be tensor<2x3xf32> (the result sliced 0:5:2 along dim 1), got tensor<2x2xf32>
  %r = rlx.slice_backward %x dim 1 start 0 end 5 step 2 : (tensor<2x2xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// dy of another rank.
func.func @sb_rank(%x: tensor<2xf32>) -> tensor<2x5xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.slice_backward' op expected the grad_output to have rank 2, got tensor<2xf32>
  %r = rlx.slice_backward %x dim 1 start 0 end 2 : (tensor<2xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// inputs disagree off the concat dim.
func.func @cat_shape(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.concat' op expected every input to have the shape of input 0 (tensor<2x3xf32>) except on dim 1, got input 1 tensor<3x3xf32>
  %r = rlx.concat %a, %b dim 1 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

// inputs of two element types.
func.func @cat_type(%a: tensor<2x3xf32>, %b: tensor<2x3xi64>) -> tensor<2x6xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.concat' op expected the input 1 to have the element type of the input 0, f32 (a layout op moves data, it does not convert it), got i64
  %r = rlx.concat %a, %b dim 1 : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

// the result size on dim is the sum, 6.
func.func @cat_result(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.concat' op expected the result type to be tensor<2x6xf32> (the inputs concatenated along dim 1), got tensor<2x5xf32>
  %r = rlx.concat %a, %b dim 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// a concat of nothing.
func.func @cat_none() -> tensor<2x5xf32> {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.concat' op expected at least one input to concatenate
  %r = rlx.concat dim 1 : () -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// sizes sum to 4, not 5.
func.func @split_sum(%x: tensor<4x5xf32>) -> () {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.split' op expected 'sizes' to sum to the input's dim 1 (5), got [2, 2] (sum 4)
  %p:2 = rlx.split %x dim 1 sizes [2, 2] : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  return
}

// -----

// two sizes, one result.
func.func @split_count(%x: tensor<4x5xf32>) -> () {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.split' op expected one result per size (2), got 1
  %p:1 = rlx.split %x dim 1 sizes [2, 3] : (tensor<4x5xf32>) -> (tensor<4x2xf32>)
  return
}

// -----

// result 1 has the wrong size.
func.func @split_shape(%x: tensor<4x5xf32>) -> () {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.split' op expected the result 1 type to be tensor<4x3xf32> (size 3 of the input along dim 1), got tensor<4x2xf32>
  %p:2 = rlx.split %x dim 1 sizes [2, 3] : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  return
}

// -----

// a result of another element type.
func.func @split_type(%x: tensor<4x5xf32>) -> () {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.split' op expected the result 1 to have the element type of the input, f32 (a layout op moves data, it does not convert it), got i64
  %p:2 = rlx.split %x dim 1 sizes [2, 3] : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xi64>)
  return
}

// -----

// splitting the dynamic dim.
func.func @split_dyn(%x: tensor<?x5xf32>) -> () {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.split' op expected the input to have a static shape (a split carries a dynamic dim only when it splits another dim), got tensor<?x5xf32>
  %p:2 = rlx.split %x dim 0 sizes [2, 3] : (tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>)
  return
}

// -----

// a negative size.
func.func @split_neg(%x: tensor<4x5xf32>) -> () {
  // CHECK: {{.*}}layout-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.split' op expected 'sizes' to be non-negative, got [-1, 6]
  %p:2 = rlx.split %x dim 1 sizes [-1, 6] : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
  return
}
