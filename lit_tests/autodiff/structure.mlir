// RUN: rlx-opt %s --autodiff="func=chain,two_results" | FileCheck %s
// RUN: rlx-opt %s --autodiff="func=two_results wrt=2,0" | FileCheck %s --check-prefix=WRT

// The forward is cloned once and the sweep reuses its values: the max-pool gradient reads
// the conv's output computed in @chain_vjp, and no forward op runs twice.
// CHECK-LABEL: func.func @chain_vjp
// CHECK-SAME:    (%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x3x3xf32>, %p_bar: tensor<1x3x3x3xf32>)
// CHECK-NEXT:    %[[Y:.+]] = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] :
// CHECK-NEXT:    %[[DY:.+]] = rlx.max_pool2d_backward %[[Y]], %p_bar kernel_size [2, 2] stride [2, 2] padding [0, 0] :
// CHECK-NEXT:    rlx.conv2d_backward_input %[[DY]], %w
// CHECK-NEXT:    rlx.conv2d_backward_weight %x, %[[DY]]
// CHECK-NOT:     rlx.conv2d %
// CHECK:         func.return
func.func @chain(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  %p = rlx.max_pool2d %y kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x6x6xf32>) -> tensor<1x3x3x3xf32>
  return %p : tensor<1x3x3x3xf32>
}

// One cotangent per result; an argument no result depends on (%unused) gets a zero
// splat; an integer argument (%labels) gets no gradient and is not in the default wrt.
// CHECK-LABEL: func.func @two_results_vjp
// CHECK-SAME:    (%x: tensor<1x2x4x4xf32>, %labels: tensor<4xi64>, %unused: tensor<3xf32>, %z: tensor<1x2x3x3xf32>, %a_bar: tensor<1x2x2x2xf32>, %b_bar: tensor<1x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<3xf32>, tensor<1x2x3x3xf32>)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG:     %[[DA:.+]] = rlx.avg_pool2d_backward %a_bar
// CHECK-DAG:     %[[DZ:.+]] = rlx.adaptive_max_pool2d_backward %z, %b_bar
// CHECK:         func.return %[[DA]], %[[ZERO]], %[[DZ]] : tensor<1x2x4x4xf32>, tensor<3xf32>, tensor<1x2x3x3xf32>
// The gradients follow wrt's order.
// WRT-LABEL: func.func @two_results_vjp
// WRT-SAME:    -> (tensor<3xf32>, tensor<1x2x4x4xf32>)
func.func @two_results(%x: tensor<1x2x4x4xf32>, %labels: tensor<4xi64>, %unused: tensor<3xf32>, %z: tensor<1x2x3x3xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) {
  %a = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %b = rlx.adaptive_max_pool2d %z : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %a, %b : tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>
}
