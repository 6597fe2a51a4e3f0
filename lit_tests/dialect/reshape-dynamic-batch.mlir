// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// A reshape may merge a dynamic batch with the dims after it, or split it: the result's `?`
// is then a whole multiple of the input's (B' = B*T), or the input's of the result's.

// GPT's `logits.view(-1, V)`: [B, T, V] -> [B*T, V].
// CHECK-LABEL: func.func @merge
// CHECK:       rlx.reshape %{{.*}} : (tensor<?x32x64xf32>) -> tensor<?x64xf32>
func.func @merge(%x: tensor<?x32x64xf32>) -> tensor<?x64xf32> {
  %y = rlx.reshape %x : (tensor<?x32x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// The targets' `view(-1)`: [B, T] -> [B*T].
// CHECK-LABEL: func.func @merge_every_dim
// CHECK:       rlx.reshape %{{.*}} : (tensor<?x32xi64>) -> tensor<?xi64>
func.func @merge_every_dim(%x: tensor<?x32xi64>) -> tensor<?xi64> {
  %y = rlx.reshape %x : (tensor<?x32xi64>) -> tensor<?xi64>
  return %y : tensor<?xi64>
}

// The merge's gradient: [B*T, V] -> [B, T, V].
// CHECK-LABEL: func.func @split
// CHECK:       rlx.reshape %{{.*}} : (tensor<?x64xf64>) -> tensor<?x32x64xf64>
func.func @split(%x: tensor<?x64xf64>) -> tensor<?x32x64xf64> {
  %y = rlx.reshape %x : (tensor<?x64xf64>) -> tensor<?x32x64xf64>
  return %y : tensor<?x32x64xf64>
}

// A merge that also regroups the static dims after it: [B, 4, 6] -> [4B, 2, 3].
// CHECK-LABEL: func.func @merge_and_regroup
// CHECK:       rlx.reshape %{{.*}} : (tensor<?x4x6xf32>) -> tensor<?x2x3xf32>
func.func @merge_and_regroup(%x: tensor<?x4x6xf32>) -> tensor<?x2x3xf32> {
  %y = rlx.reshape %x : (tensor<?x4x6xf32>) -> tensor<?x2x3xf32>
  return %y : tensor<?x2x3xf32>
}

// Merged with a dim and split into another: [B, 4, 6] -> [2B, 2, 6].
// CHECK-LABEL: func.func @merge_then_split
// CHECK:       rlx.reshape %{{.*}} : (tensor<?x4x6xf32>) -> tensor<?x2x6xf32>
func.func @merge_then_split(%x: tensor<?x4x6xf32>) -> tensor<?x2x6xf32> {
  %y = rlx.reshape %x : (tensor<?x4x6xf32>) -> tensor<?x2x6xf32>
  return %y : tensor<?x2x6xf32>
}
