// RUN: rlx-opt %s --decompose-backward --convert-rlx-to-linalg | FileCheck %s
// RUN: rlx-opt %s --decompose-backward --convert-rlx-to-linalg | mlir-opt | FileCheck %s

// math.erfc in a user's input: xDSL 0.75 lacks the op (rlx_mlir/compat.py defines it), so
// rlx-opt reads and prints it, and mlir-opt reads the same op back. (Our own lowerings no
// longer emit it: IREE rejects math.erfc, and gelu evaluates its tail from math.exp.)
// CHECK-LABEL: func.func @complement
// CHECK:         math.erfc %{{.*}} : f32
func.func @complement(%x: f32) -> f32 {
  %y = math.erfc %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @gelu_and_its_gradient
// CHECK-NOT:     math.erfc
// CHECK-NOT:     rlx.
func.func @gelu_and_its_gradient(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = rlx.gelu %x : (tensor<4xf32>) -> tensor<4xf32>
  %dx = rlx.gelu_backward %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}
