// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @smoke
// CHECK: rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [1, 1] :
func.func @smoke(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}
