// RUN: rlx-opt %s --autodiff="func=f,g" | FileCheck %s
// RUN: rlx-opt %s --autodiff="func=f" --autodiff="func=f_vjp" | FileCheck %s --check-prefix=SECOND
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=f,g" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null
// RUN: rlx-opt %s --autodiff="func=f,g" --autodiff="func=f_vjp,g_vjp" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// The VJP of attention's output is the flash backward, fed the forward's own output and
// logsumexp, with the forward's properties.
// CHECK-LABEL: func.func @f_vjp
// CHECK-SAME:    -> (tensor<1x4x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x3xf32>)
// CHECK:         %[[OUT:.*]], %[[LSE:.*]] = rlx.attention %q, %k, %v scale 5.000000e-01 is_causal true
// CHECK:         rlx.attention_backward %{{.*}}, %q, %k, %v, %[[OUT]], %[[LSE]] scale 5.000000e-01 is_causal true
// CHECK:         func.return

// The second order differentiates the attention math as RLX ops: the causal keys as a
// -inf bias (triu of a -inf splat), the scores as a batched matmul over B H = 4 rows with
// the 2 kv heads expanded to the 4 query heads, P = exp(t - lse); the backward's
// cotangents send a cotangent to the forward's logsumexp too, and the forward's own VJP
// stays the flash backward.
// SECOND-LABEL: func.func @f_vjp_vjp
// SECOND:         %[[OUT:.*]], %[[LSE:.*]] = rlx.attention %q, %k, %v scale 5.000000e-01 is_causal true
// SECOND:         rlx.expand {{.*}} -> tensor<1x2x2x7x4xf32>
// SECOND:         rlx.matmul {{.*}} -> tensor<4x5x7xf32>
// SECOND:         %[[DROPPED:.*]] = rlx.full value 0xfff0000000000000 : () -> tensor<5x7xf32>
// SECOND:         rlx.triu %[[DROPPED]] diagonal 1
// SECOND:         %[[ROWS:.*]] = rlx.reshape %[[LSE]] : (tensor<1x4x5xf32>) -> tensor<1x4x5x1xf32>
// SECOND:         %[[T:.*]] = rlx.sub %{{.*}}, %[[ROWS]]
// SECOND:         rlx.exp %[[T]] : (tensor<1x4x5x7xf32>) -> tensor<1x4x5x7xf32>
// SECOND:         rlx.attention_backward %{{.*}}, %q, %k, %v, %[[OUT]], %[[LSE]] scale 5.000000e-01 is_causal true
// SECOND:         func.return
func.func @f(%q: tensor<1x4x5x4xf32>, %k: tensor<1x2x7x4xf32>, %v: tensor<1x2x7x3xf32>) -> tensor<1x4x5x3xf32> {
  %o, %l = rlx.attention %q, %k, %v scale 0.5 is_causal true : (tensor<1x4x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x3xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x4x5xf32>)
  return %o : tensor<1x4x5x3xf32>
}

// A bias gets the backward's fourth result as its cotangent.
// CHECK-LABEL: func.func @g_vjp
// CHECK-SAME:    -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<5x7xf32>)
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %[[DB:.*]] = rlx.attention_backward {{.*}} mask %b scale 5.000000e-01
// CHECK:         func.return {{.*}}, %[[DB]] :
func.func @g(%q: tensor<1x2x5x4xf32>, %k: tensor<1x2x7x4xf32>, %v: tensor<1x2x7x4xf32>, %b: tensor<5x7xf32>) -> tensor<1x2x5x4xf32> {
  %o, %l = rlx.attention %q, %k, %v mask %b scale 0.5 : (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<5x7xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x2x5xf32>)
  return %o : tensor<1x2x5x4xf32>
}
