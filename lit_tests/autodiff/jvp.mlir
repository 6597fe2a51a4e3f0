// RUN: rlx-opt %s --jvp="func=layer wrt=1" --jvp="func=pool,mixed" | FileCheck %s
// RUN: rlx-opt %s --autodiff="func=square" --jvp="func=square_vjp wrt=0" | FileCheck %s --check-prefix=HVP

// Only w has a tangent: x and b have none, and no zero tensor stands for them.
// y = tanh(x w + b): y_dot = (1 - y^2) (x w_dot), written as w_dot's term minus y y w_dot's.
// CHECK-LABEL: func.func @layer_jvp
// CHECK-SAME:    (%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>, %w_dot: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-NEXT:    %m = rlx.matmul %x, %w
// CHECK-NEXT:    %[[MD:.+]] = rlx.matmul %x, %w_dot
// CHECK-NEXT:    %a = rlx.add %m, %b
// CHECK-NEXT:    %y = rlx.tanh %a
// CHECK-NEXT:    %[[P:.+]] = rlx.mul %y, %[[MD]]
// CHECK-NEXT:    %[[Q:.+]] = rlx.mul %[[P]], %y
// CHECK-NEXT:    %[[YD:.+]] = rlx.sub %[[MD]], %[[Q]]
// CHECK-NEXT:    func.return %y, %[[YD]]
// CHECK-NOT:     arith.constant
func.func @layer(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %m = rlx.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a = rlx.add %m, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = rlx.tanh %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// A max pool's tangent is the input tangent read at each window's argmax.
// CHECK-LABEL: func.func @pool_jvp
// CHECK-NEXT:    %y = rlx.max_pool2d %x
// CHECK-NEXT:    %[[T:.+]] = rlx.max_pool2d_gather %x, %x_dot kernel_size [2, 2] stride [2, 2]
// CHECK-NEXT:    func.return %y, %[[T]]
func.func @pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// The i1 result of a comparison has no tangent, so @mixed_jvp returns one tangent, for
// the float result; the integer argument takes none.
// CHECK-LABEL: func.func @mixed_jvp
// CHECK-SAME:    (%x: tensor<4xf32>, %n: tensor<4xi64>, %x_dot: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[D:.+]] = rlx.where %c, %x_dot, %{{.+}} :
// CHECK-NEXT:    func.return %c, %y, %[[D]]
func.func @mixed(%x: tensor<4xf32>, %n: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %c = rlx.gt %x, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %y = rlx.where %c, %x, %zero : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %c, %y : tensor<4xi1>, tensor<4xf32>
}

// Forward over reverse: the JVP of the gradient 2 x y_bar is the Hessian-vector product 2 x_dot y_bar.
// HVP-LABEL: func.func @square_vjp_jvp
// HVP-SAME:    (%x: tensor<3xf32>, %y_bar: tensor<3xf32>, %x_dot: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// HVP-DAG:     %[[G:.+]] = rlx.mul %y_bar, %x :
// HVP-DAG:     %[[H:.+]] = rlx.mul %x_dot, %y_bar :
// HVP-DAG:     %[[G2:.+]] = rlx.add %[[G]], %[[G]]
// HVP-DAG:     %[[H2:.+]] = rlx.add %[[H]], %[[H]]
// HVP:         func.return %[[G2]], %[[H2]]
func.func @square(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
