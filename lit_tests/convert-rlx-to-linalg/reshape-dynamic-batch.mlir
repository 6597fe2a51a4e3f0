// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt > /dev/null

// A reshape that merges a dynamic batch with the dims after it, or splits it: the batch
// and the dims it takes are the first group of the reassociation.

// y[b*32 + t, v] = x[b, t, v] (GPT's `view(-1, V)`): one collapse_shape.
// CHECK-LABEL: func.func @merge
// CHECK-NEXT:  %[[Y:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<?x32x64xf32> into tensor<?x64xf32>
// CHECK-NEXT:  func.return %[[Y]]
func.func @merge(%x: tensor<?x32x64xf32>) -> tensor<?x64xf32> {
  %y = rlx.reshape %x : (tensor<?x32x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// y[b*32 + t] = x[b, t]: every dim joins the batch's group.
// CHECK-LABEL: func.func @merge_every_dim
// CHECK-NEXT:  tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<?x32xi64> into tensor<?xi64>
func.func @merge_every_dim(%x: tensor<?x32xi64>) -> tensor<?xi64> {
  %y = rlx.reshape %x : (tensor<?x32xi64>) -> tensor<?xi64>
  return %y : tensor<?xi64>
}

// -----

// y[b, t, v] = x[b*32 + t, v]: one expand_shape, whose batch is x's rows / 32.
// CHECK-LABEL: func.func @split
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[T:.*]] = arith.constant 32 : index
// CHECK:       %[[ROWS:.*]] = tensor.dim %x, %[[ZERO]] : tensor<?x64xf64>
// CHECK-NEXT:  %[[B:.*]] = arith.divui %[[ROWS]], %[[T]] : index
// CHECK-NEXT:  tensor.expand_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] output_shape [%[[B]], 32, 64] : tensor<?x64xf64> into tensor<?x32x64xf64>
func.func @split(%x: tensor<?x64xf64>) -> tensor<?x32x64xf64> {
  %y = rlx.reshape %x : (tensor<?x64xf64>) -> tensor<?x32x64xf64>
  return %y : tensor<?x32x64xf64>
}

// -----

// [B, 4, 6] -> [4B, 2, 3]: collapse the batch with the 4, then expand the 6; the
// expanded batch is the collapsed tensor's dim 0.
// CHECK-LABEL: func.func @merge_and_regroup
// CHECK:       %[[C:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<?x4x6xf32> into tensor<?x6xf32>
// CHECK-NEXT:  %[[B:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x6xf32>
// CHECK-NEXT:  tensor.expand_shape %[[C]] {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [%[[B]], 2, 3] : tensor<?x6xf32> into tensor<?x2x3xf32>
func.func @merge_and_regroup(%x: tensor<?x4x6xf32>) -> tensor<?x2x3xf32> {
  %y = rlx.reshape %x : (tensor<?x4x6xf32>) -> tensor<?x2x3xf32>
  return %y : tensor<?x2x3xf32>
}

// -----

// [B, 4, 6] -> [2B, 2, 6]: the batch and the 4 collapse to 4B rows, split as [2B, 2].
// CHECK-LABEL: func.func @merge_then_split
// CHECK:       %[[C:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<?x4x6xf32> into tensor<?x6xf32>
// CHECK-NEXT:  %[[ROWS:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x6xf32>
// CHECK-NEXT:  %[[B:.*]] = arith.divui %[[ROWS]], %{{.*}} : index
// CHECK-NEXT:  tensor.expand_shape %[[C]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] output_shape [%[[B]], 2, 6] : tensor<?x6xf32> into tensor<?x2x6xf32>
func.func @merge_then_split(%x: tensor<?x4x6xf32>) -> tensor<?x2x6xf32> {
  %y = rlx.reshape %x : (tensor<?x4x6xf32>) -> tensor<?x2x6xf32>
  return %y : tensor<?x2x6xf32>
}
