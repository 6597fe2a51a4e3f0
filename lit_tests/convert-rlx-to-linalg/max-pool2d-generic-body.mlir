// RUN: rlx-opt %s --convert-rlx-to-linalg --print-op-generic | FileCheck %s

// The generic form prints linalg.pooling_nchw_max's body, and the backend parses that form:
// the body must be upstream's max(out, in), not xDSL 0.75's default max(in, window).
// CHECK:       "linalg.pooling_nchw_max"
// CHECK-NEXT:  ^{{.*}}(%[[IN:.*]]: f32, %[[WINDOW:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:    %[[MAX:.*]] = "arith.maximumf"(%[[OUT]], %[[IN]])
// CHECK-NEXT:    "linalg.yield"(%[[MAX]])
func.func @max_body(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}
