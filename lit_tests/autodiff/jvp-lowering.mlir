// RUN: rlx-opt %s --jvp="func=pool,norm_grad,attend" --decompose-backward --convert-rlx-to-linalg > %t
// RUN: mlir-opt %t -o /dev/null
// RUN: FileCheck %s < %t
// RUN: rlx-opt %s --autodiff="func=pool" --jvp="func=pool_vjp" --decompose-backward --convert-rlx-to-linalg > %t.hvp
// RUN: mlir-opt %t.hvp -o /dev/null
// RUN: FileCheck %s --check-prefix=HVP < %t.hvp

// Every op a JVP rule emits is lowered by the plain passes, and mlir-opt verifies the result.
// A max pool's tangent is x_dot read at each window's argmax (`rlx.max_pool2d_gather`):
// one reduction over the window for the argmax's flat index, then x_dot's planes read
// at that index.
// CHECK-LABEL: func.func @pool_jvp
// CHECK-SAME:    (%x: tensor<1x2x5x5xf32>, %x_dot: tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
// CHECK:         %y = linalg.pooling_nchw_max
// CHECK:         %[[ARG:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      outs(%{{.+}} : tensor<1x2x3x3xi32>)
// CHECK:         %[[PLANES:.+]] = tensor.collapse_shape %x_dot
// CHECK:         %[[T:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[ARG]] : tensor<1x2x3x3xi32>)
// CHECK:           tensor.extract %[[PLANES]]
// CHECK:         func.return %y, %[[T]]
// CHECK-NOT:     rlx.
func.func @pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// A norm's gradient: its JVP is composed of elementwise ops and reductions.
// CHECK-LABEL: func.func @norm_grad_jvp
// CHECK-NOT:     rlx.
// CHECK:         func.return
func.func @norm_grad(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %m: tensor<2x1xf32>, %r: tensor<2x1xf32>, %w: tensor<4xf32>) -> tensor<2x4xf32> {
  %gx, %gw, %gb = rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %gx : tensor<2x4xf32>
}

// Attention's JVP: the scores, weights and their tangents as generics (matmuls, exp, sums).
// CHECK-LABEL: func.func @attend_jvp
// CHECK-SAME:    (%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %q_dot: tensor<1x2x3x4xf32>, %k_dot: tensor<1x2x5x4xf32>, %v_dot: tensor<1x2x5x4xf32>)
// CHECK-NOT:     rlx.
// CHECK:         func.return
func.func @attend(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %o, %l = rlx.attention %q, %k, %v scale 0.5 is_causal true : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>)
  return %o : tensor<1x2x3x4xf32>
}

// Forward over reverse: the HVP of a max pool is its gradient op again, in y_bar's tangent.
// HVP-LABEL: func.func @pool_vjp_jvp
// HVP-SAME:    (%x: tensor<1x2x5x5xf32>, %y_bar: tensor<1x2x3x3xf32>, %x_dot: tensor<1x2x5x5xf32>, %y_bar_dot: tensor<1x2x3x3xf32>)
// HVP-NOT:     rlx.
// HVP:         func.return
