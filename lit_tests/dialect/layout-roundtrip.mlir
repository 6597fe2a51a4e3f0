// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The layout ops in their custom form, any element type. `step 1` (the default) is left
// out when printed; the generic form always carries it.

// [2, 3, 4] -> [3, 8]: the result type is the shape.
// CHECK-LABEL: func.func @reshape
// CHECK:       rlx.reshape %{{.*}} : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
// GENERIC:     "rlx.reshape"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<3x8xf32> {
  %y = rlx.reshape %x : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// 0-d to [1], i64.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK:       rlx.reshape %{{.*}} : (tensor<i64>) -> tensor<1xi64>
func.func @reshape_scalar(%x: tensor<i64>) -> tensor<1xi64> {
  %y = rlx.reshape %x : (tensor<i64>) -> tensor<1xi64>
  return %y : tensor<1xi64>
}

// A dynamic leading dim carried by a reshape of the others.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK:       rlx.reshape %{{.*}} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
func.func @reshape_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %y = rlx.reshape %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %y : tensor<?x12xf32>
}

// CHECK-LABEL: func.func @permute
// CHECK:       rlx.permute %{{.*}} dims [0, 2, 1] : (tensor<?x3x4xf64>) -> tensor<?x4x3xf64>
// GENERIC:     "rlx.permute"(%{{.*}}) <{dims = array<i64: 0, 2, 1>}> : (tensor<?x3x4xf64>) -> tensor<?x4x3xf64>
func.func @permute(%x: tensor<?x3x4xf64>) -> tensor<?x4x3xf64> {
  %y = rlx.permute %x dims [0, 2, 1] : (tensor<?x3x4xf64>) -> tensor<?x4x3xf64>
  return %y : tensor<?x4x3xf64>
}

// A new leading dim, and the size-1 dim stretched.
// CHECK-LABEL: func.func @expand
// CHECK:       rlx.expand %{{.*}} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = rlx.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @slice_step
// CHECK:       rlx.slice %{{.*}} dim 1 start 1 end 6 step 2 : (tensor<2x7xi64>) -> tensor<2x3xi64>
// GENERIC:     "rlx.slice"(%{{.*}}) <{dim = 1 : i64, start = 1 : i64, end = 6 : i64, step = 2 : i64}>
func.func @slice_step(%x: tensor<2x7xi64>) -> tensor<2x3xi64> {
  %y = rlx.slice %x dim 1 start 1 end 6 step 2 : (tensor<2x7xi64>) -> tensor<2x3xi64>
  return %y : tensor<2x3xi64>
}

// `step 1` spelled out is dropped on printing; an empty slice is valid.
// CHECK-LABEL: func.func @slice_default_step
// CHECK:       rlx.slice %{{.*}} dim 0 start 2 end 2 : (tensor<4xf32>) -> tensor<0xf32>
// GENERIC:     "rlx.slice"(%{{.*}}) <{dim = 0 : i64, start = 2 : i64, end = 2 : i64, step = 1 : i64}>
func.func @slice_default_step(%x: tensor<4xf32>) -> tensor<0xf32> {
  %y = rlx.slice %x dim 0 start 2 end 2 step 1 : (tensor<4xf32>) -> tensor<0xf32>
  return %y : tensor<0xf32>
}

// CHECK-LABEL: func.func @slice_backward
// CHECK:       rlx.slice_backward %{{.*}} dim 1 start 1 end 6 step 2 : (tensor<?x3xf32>) -> tensor<?x7xf32>
// GENERIC:     "rlx.slice_backward"(%{{.*}}) <{dim = 1 : i64, start = 1 : i64, end = 6 : i64, step = 2 : i64}>
func.func @slice_backward(%dy: tensor<?x3xf32>) -> tensor<?x7xf32> {
  %dx = rlx.slice_backward %dy dim 1 start 1 end 6 step 2 : (tensor<?x3xf32>) -> tensor<?x7xf32>
  return %dx : tensor<?x7xf32>
}

// (Inputs of different shapes, and pieces of different sizes: layout-variadic.mlir.)
// CHECK-LABEL: func.func @concat
// CHECK:       rlx.concat %{{.*}}, %{{.*}}, %{{.*}} dim 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
// GENERIC:     "rlx.concat"(%{{.*}}, %{{.*}}, %{{.*}}) <{dim = 1 : i64}>
func.func @concat(%a: tensor<2x3xf32>) -> tensor<2x9xf32> {
  %y = rlx.concat %a, %a, %a dim 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}

// One input.
// CHECK-LABEL: func.func @concat_one
// CHECK:       rlx.concat %{{.*}} dim 0 : (tensor<2xi64>) -> tensor<2xi64>
func.func @concat_one(%a: tensor<2xi64>) -> tensor<2xi64> {
  %y = rlx.concat %a dim 0 : (tensor<2xi64>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// CHECK-LABEL: func.func @split
// CHECK:       %{{.*}}, %{{.*}} = rlx.split %{{.*}} dim 1 sizes [3, 3] : (tensor<4x6xi64>) -> (tensor<4x3xi64>, tensor<4x3xi64>)
// GENERIC:     "rlx.split"(%{{.*}}) <{dim = 1 : i64, sizes = array<i64: 3, 3>}> : (tensor<4x6xi64>) -> (tensor<4x3xi64>, tensor<4x3xi64>)
func.func @split(%x: tensor<4x6xi64>) -> (tensor<4x3xi64>, tensor<4x3xi64>) {
  %p:2 = rlx.split %x dim 1 sizes [3, 3] : (tensor<4x6xi64>) -> (tensor<4x3xi64>, tensor<4x3xi64>)
  return %p#0, %p#1 : tensor<4x3xi64>, tensor<4x3xi64>
}
