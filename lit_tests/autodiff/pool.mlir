// RUN: rlx-opt %s --autodiff="func=max,max_bwd,avg_bwd,adaptive_max_bwd" | FileCheck %s
// RUN: rlx-opt %s --autodiff="func=max" --autodiff="func=max_vjp" | FileCheck %s --check-prefix=SECOND

// A max pool's VJP is its gradient, with the pool's window.
// CHECK-LABEL: func.func @max_vjp
// CHECK-SAME:    (%x: tensor<1x2x7x7xf32>, %y_bar: tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
// CHECK-NEXT:    %[[DX:.+]] = rlx.max_pool2d_backward %x, %y_bar kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true :
// CHECK-NEXT:    func.return %[[DX]]
func.func @max(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %y = rlx.max_pool2d %x kernel_size [3, 3] stride [2, 2] padding [1, 1] ceil_mode true : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// The max-pool gradient is linear in dy given the argmax: dy's cotangent is read at each
// window's first maximum; x's is zero almost everywhere (a zero splat).
// CHECK-LABEL: func.func @max_bwd_vjp
// CHECK-SAME:    (%x: tensor<1x2x6x6xf32>, %dy: tensor<1x2x3x3xf32>, %dx_bar: tensor<1x2x6x6xf32>) -> (tensor<1x2x6x6xf32>, tensor<1x2x3x3xf32>)
// CHECK-DAG:     %[[DDY:.+]] = rlx.max_pool2d_gather %x, %dx_bar kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<1x2x6x6xf32>
// CHECK:         func.return %[[ZERO]], %[[DDY]]
func.func @max_bwd(%x: tensor<1x2x6x6xf32>, %dy: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x6x6xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %dx : tensor<1x2x6x6xf32>
}

// The avg-pool gradient's VJP is an avg pool, with its divisor.
// CHECK-LABEL: func.func @avg_bwd_vjp
// CHECK-NEXT:    %[[DDY:.+]] = rlx.avg_pool2d %dx_bar kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[DDY]]
func.func @avg_bwd(%dy: tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32> {
  %dx = rlx.avg_pool2d_backward %dy kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false : (tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
  return %dx : tensor<1x2x7x7xf32>
}

// The adaptive max-pool gradient reads dx_bar at each adaptive window's first maximum.
// CHECK-LABEL: func.func @adaptive_max_bwd_vjp
// CHECK:         rlx.adaptive_max_pool2d_gather %x, %dx_bar : (tensor<1x2x5x7xf32>, tensor<1x2x5x7xf32>) -> tensor<1x2x3x2xf32>
func.func @adaptive_max_bwd(%x: tensor<1x2x5x7xf32>, %dy: tensor<1x2x3x2xf32>) -> tensor<1x2x5x7xf32> {
  %dx = rlx.adaptive_max_pool2d_backward %x, %dy : (tensor<1x2x5x7xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x5x7xf32>
  return %dx : tensor<1x2x5x7xf32>
}

// The pass applies to its own output: the second order of the max pool gathers at the
// argmax of x, which the first-order function has as an argument.
// SECOND-LABEL: func.func @max_vjp_vjp
// SECOND-SAME:    (%x: tensor<1x2x7x7xf32>, %y_bar: tensor<1x2x4x4xf32>, %{{.+}}: tensor<1x2x7x7xf32>) -> (tensor<1x2x7x7xf32>, tensor<1x2x4x4xf32>)
// SECOND:         rlx.max_pool2d_gather %x,
// SECOND-NOT:     rlx.max_pool2d_backward
// SECOND:         func.return
