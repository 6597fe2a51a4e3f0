// RUN: rlx-opt %s --decompose-backward --convert-rlx-to-linalg | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --decompose-backward --convert-rlx-to-linalg | mlir-opt | FileCheck %s

// gelu lowers through math.erfc, which xDSL 0.75 lacks (rlx_mlir/compat.py defines it):
// rlx-opt parses its own output back, and mlir-opt reads the same op.
// CHECK-LABEL: func.func @gelu_and_its_gradient
// CHECK:         math.erfc
// CHECK:         math.erfc
// CHECK-NOT:     rlx.
func.func @gelu_and_its_gradient(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = rlx.gelu %x : (tensor<4xf32>) -> tensor<4xf32>
  %dx = rlx.gelu_backward %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}
