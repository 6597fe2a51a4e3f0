// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// The layout ops move data: each is the upstream tensor or linalg op stating the same move.

// A coarsening of the shape: one collapse_shape.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK:       %[[Y:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = rlx.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// A refinement: one expand_shape.
// CHECK-LABEL: func.func @reshape_expand
// CHECK:       %[[Y:.*]] = tensor.expand_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] output_shape [2, 3, 4] : tensor<6x4xi64> into tensor<2x3x4xi64>
// CHECK-NEXT:  return %[[Y]]
func.func @reshape_expand(%x: tensor<6x4xi64>) -> tensor<2x3x4xi64> {
  %y = rlx.reshape %x : (tensor<6x4xi64>) -> tensor<2x3x4xi64>
  return %y : tensor<2x3x4xi64>
}

// -----

// [2, 3, 4] -> [3, 8] groups no dims: the products first agree at 24, so through [24].
// CHECK-LABEL: func.func @reshape_through_one_group
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64, 2 : i64]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:  tensor.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
func.func @reshape_through_one_group(%x: tensor<2x3x4xf32>) -> tensor<3x8xf32> {
  %y = rlx.reshape %x : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// [2, 3, 5] -> [3, 2, 5]: only the first two dims regroup; the 5 stays its own group.
// CHECK-LABEL: func.func @reshape_minimal_groups
// CHECK:       %[[MID:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x5xf32> into tensor<6x5xf32>
// CHECK-NEXT:  tensor.expand_shape %[[MID]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] output_shape [3, 2, 5] : tensor<6x5xf32> into tensor<3x2x5xf32>
func.func @reshape_minimal_groups(%x: tensor<2x3x5xf32>) -> tensor<3x2x5xf32> {
  %y = rlx.reshape %x : (tensor<2x3x5xf32>) -> tensor<3x2x5xf32>
  return %y : tensor<3x2x5xf32>
}

// -----

// squeeze: the size-1 dim joins its neighbour's group.
// CHECK-LABEL: func.func @reshape_squeeze
// CHECK:       tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64]] : tensor<2x1x3xf64> into tensor<2x3xf64>
func.func @reshape_squeeze(%x: tensor<2x1x3xf64>) -> tensor<2x3xf64> {
  %y = rlx.reshape %x : (tensor<2x1x3xf64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}

// -----

// unsqueeze at the end: the trailing size-1 dim joins the last group.
// CHECK-LABEL: func.func @reshape_unsqueeze_last
// CHECK:       tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
func.func @reshape_unsqueeze_last(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  %y = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %y : tensor<2x3x1xf32>
}

// -----

// 0-d to [1, 1]: a broadcast of the one element (xDSL rejects an expand_shape from rank 0).
// CHECK-LABEL: func.func @reshape_from_scalar
// CHECK:       %[[INIT:.*]] = tensor.empty() : tensor<1x1xf32>
// CHECK-NEXT:  linalg.broadcast ins(%x:tensor<f32>) outs(%[[INIT]]:tensor<1x1xf32>) dimensions = [0, 1]
func.func @reshape_from_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  %y = rlx.reshape %x : (tensor<f32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// [1] to 0-d: a copy with no loops, reading x[0].
// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK:       linalg.generic {indexing_maps = [affine_map<() -> (0)>, affine_map<() -> ()>], iterator_types = []} ins(%x : tensor<1xi64>) outs(%{{.*}} : tensor<i64>)
// CHECK-NEXT:  ^{{.*}}(%[[A:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:    linalg.yield %[[A]] : i64
func.func @reshape_to_scalar(%x: tensor<1xi64>) -> tensor<i64> {
  %y = rlx.reshape %x : (tensor<1xi64>) -> tensor<i64>
  return %y : tensor<i64>
}

// -----

// A dynamic leading dim stays a group of its own; the expand reads its size.
// CHECK-LABEL: func.func @reshape_dynamic_leading
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x12xf32>
// CHECK-NEXT:  tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [%[[N]], 3, 4] : tensor<?x12xf32> into tensor<?x3x4xf32>
func.func @reshape_dynamic_leading(%x: tensor<?x12xf32>) -> tensor<?x3x4xf32> {
  %y = rlx.reshape %x : (tensor<?x12xf32>) -> tensor<?x3x4xf32>
  return %y : tensor<?x3x4xf32>
}

// -----

// No elements: nothing to move.
// CHECK-LABEL: func.func @reshape_empty
// CHECK:       %[[Y:.*]] = tensor.empty() : tensor<3x0xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @reshape_empty(%x: tensor<0x3xf32>) -> tensor<3x0xf32> {
  %y = rlx.reshape %x : (tensor<0x3xf32>) -> tensor<3x0xf32>
  return %y : tensor<3x0xf32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x4xf32>
// CHECK-NEXT:  %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x4x3xf32>
// CHECK-NEXT:  linalg.transpose ins(%x:tensor<?x3x4xf32>) outs(%[[INIT]]:tensor<?x4x3xf32>) permutation = [0, 2, 1]
func.func @permute(%x: tensor<?x3x4xf32>) -> tensor<?x4x3xf32> {
  %y = rlx.permute %x dims [0, 2, 1] : (tensor<?x3x4xf32>) -> tensor<?x4x3xf32>
  return %y : tensor<?x4x3xf32>
}

// -----

// The identity permutation moves nothing.
// CHECK-LABEL: func.func @permute_identity
// CHECK-NEXT:  return %x
func.func @permute_identity(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %y = rlx.permute %x dims [0, 1] : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %y : tensor<2x3xi64>
}

// -----

// [3, 1] -> [2, 3, 4]: the stretched size-1 dim collapsed away, then broadcast adds it
// (dim 2) and the new leading dim (dim 0).
// CHECK-LABEL: func.func @expand_leading_and_stretched
// CHECK:       %[[INIT:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT:  %[[KEPT:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<3x1xf32> into tensor<3xf32>
// CHECK-NEXT:  linalg.broadcast ins(%[[KEPT]]:tensor<3xf32>) outs(%[[INIT]]:tensor<2x3x4xf32>) dimensions = [0, 2]
func.func @expand_leading_and_stretched(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = rlx.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// A size-1 dim that stays 1 is not broadcast.
// CHECK-LABEL: func.func @expand_keeps_unit_dim
// CHECK:       linalg.broadcast ins(%x:tensor<1x3xi64>) outs(%{{.*}}:tensor<5x1x3xi64>) dimensions = [0]
func.func @expand_keeps_unit_dim(%x: tensor<1x3xi64>) -> tensor<5x1x3xi64> {
  %y = rlx.expand %x : (tensor<1x3xi64>) -> tensor<5x1x3xi64>
  return %y : tensor<5x1x3xi64>
}

// -----

// An expand to the same shape moves nothing.
// CHECK-LABEL: func.func @expand_identity
// CHECK-NEXT:  return %x
func.func @expand_identity(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = rlx.expand %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// y[i, j] = x[i, 1 + 2 j]: a strided extract_slice.
// CHECK-LABEL: func.func @slice_step
// CHECK:       tensor.extract_slice %x[0, 1] [2, 3] [1, 2] : tensor<2x7xf32> to tensor<2x3xf32>
func.func @slice_step(%x: tensor<2x7xf32>) -> tensor<2x3xf32> {
  %y = rlx.slice %x dim 1 start 1 end 6 step 2 : (tensor<2x7xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// The dynamic leading dim's size comes from the input.
// CHECK-LABEL: func.func @slice_dynamic_leading
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x7xi64>
// CHECK-NEXT:  tensor.extract_slice %x[0, 2] {{\[}}%[[N]], 5] [1, 1] : tensor<?x7xi64> to tensor<?x5xi64>
func.func @slice_dynamic_leading(%x: tensor<?x7xi64>) -> tensor<?x5xi64> {
  %y = rlx.slice %x dim 1 start 2 end 7 : (tensor<?x7xi64>) -> tensor<?x5xi64>
  return %y : tensor<?x5xi64>
}

// -----

// An empty slice is tensor.empty.
// CHECK-LABEL: func.func @slice_empty
// CHECK:       %[[Y:.*]] = tensor.empty() : tensor<2x0xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @slice_empty(%x: tensor<2x7xf32>) -> tensor<2x0xf32> {
  %y = rlx.slice %x dim 1 start 7 end 7 : (tensor<2x7xf32>) -> tensor<2x0xf32>
  return %y : tensor<2x0xf32>
}

// -----

// y[:, o_k + j] = input_k[:, j], o = 0, 1, 4: one insert_slice per input.
// CHECK-LABEL: func.func @concat
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK-NEXT:  %[[Y0:.*]] = tensor.insert_slice %a into %[[E]][0, 0] [2, 1] [1, 1]
// CHECK-NEXT:  %[[Y1:.*]] = tensor.insert_slice %b into %[[Y0]][0, 1] [2, 3] [1, 1]
// CHECK-NEXT:  %[[Y2:.*]] = tensor.insert_slice %c into %[[Y1]][0, 4] [2, 1] [1, 1]
// CHECK-NEXT:  return %[[Y2]]
func.func @concat(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>, %c: tensor<2x1xf32>) -> tensor<2x5xf32> {
  %y = rlx.concat %a, %b, %c dim 1 : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// An empty input takes no slice; with one input left, the concat is that input.
// CHECK-LABEL: func.func @concat_with_empty_input
// CHECK-NEXT:  return %b
func.func @concat_with_empty_input(%a: tensor<0x3xi64>, %b: tensor<4x3xi64>) -> tensor<4x3xi64> {
  %y = rlx.concat %a, %b dim 0 : (tensor<0x3xi64>, tensor<4x3xi64>) -> tensor<4x3xi64>
  return %y : tensor<4x3xi64>
}

// -----

// piece_k = x[:, o_k : o_k + sizes[k]], o = 0, 2: one extract_slice per result.
// CHECK-LABEL: func.func @split
// CHECK:       %[[P0:.*]] = tensor.extract_slice %x[0, 0] [4, 2] [1, 1] : tensor<4x5xf64> to tensor<4x2xf64>
// CHECK-NEXT:  %[[P1:.*]] = tensor.extract_slice %x[0, 2] [4, 3] [1, 1] : tensor<4x5xf64> to tensor<4x3xf64>
// CHECK-NEXT:  return %[[P0]], %[[P1]]
func.func @split(%x: tensor<4x5xf64>) -> (tensor<4x2xf64>, tensor<4x3xf64>) {
  %p:2 = rlx.split %x dim 1 sizes [2, 3] : (tensor<4x5xf64>) -> (tensor<4x2xf64>, tensor<4x3xf64>)
  return %p#0, %p#1 : tensor<4x2xf64>, tensor<4x3xf64>
}

// -----

// A size-0 piece is tensor.empty.
// CHECK-LABEL: func.func @split_empty_piece
// CHECK:       %[[P0:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK-NEXT:  return %[[P0]], %x
func.func @split_empty_piece(%x: tensor<4x3xf32>) -> (tensor<0x3xf32>, tensor<4x3xf32>) {
  %p:2 = rlx.split %x dim 0 sizes [0, 4] : (tensor<4x3xf32>) -> (tensor<0x3xf32>, tensor<4x3xf32>)
  return %p#0, %p#1 : tensor<0x3xf32>, tensor<4x3xf32>
}
