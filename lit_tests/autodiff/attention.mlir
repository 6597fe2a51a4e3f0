// RUN: rlx-opt %s --autodiff="func=f,g" | FileCheck %s
// RUN: not rlx-opt %s --autodiff="func=f" --autodiff="func=f_vjp" 2>&1 | FileCheck %s --check-prefix=SECOND
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --autodiff="func=f,g" --decompose-backward --convert-rlx-to-linalg | mlir-opt > /dev/null

// The VJP of attention's output is the flash backward, fed the forward's own output and
// logsumexp, with the forward's properties.
// CHECK-LABEL: func.func @f_vjp
// CHECK-SAME:    -> (tensor<1x4x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x3xf32>)
// CHECK:         %[[OUT:.*]], %[[LSE:.*]] = rlx.attention %q, %k, %v scale 5.000000e-01 is_causal true
// CHECK:         rlx.attention_backward %{{.*}}, %q, %k, %v, %[[OUT]], %[[LSE]] scale 5.000000e-01 is_causal true
// CHECK:         func.return

// The second order is refused, at the op.
// SECOND: attention.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'rlx.attention_backward' op has no VJP rule yet: autodiff cannot differentiate attention twice
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
