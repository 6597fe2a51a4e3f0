// REQUIRES: mlir-opt
// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --split-input-file --print-op-generic --print-no-properties | not mlir-opt --irdl-file=%rlx_dialects/rlx.irdl.mlir --split-input-file 2>&1 | FileCheck %s --check-prefix=IRDL

// rlx.concat of inputs of different shapes and rlx.split into pieces of different sizes.
//
// A known limitation of the IRDL description, not of the ops: upstream IRDL binds each
// constraint value once per op, so every value of a variadic operand or result list must
// have the same type, and mlir-opt --irdl-file rejects these (the round-trip files, which
// tests/test_irdl.py feeds to mlir-opt, hold the equal-typed forms). If this RUN line
// starts to fail, the description has learnt heterogeneous variadics: move the cases
// into layout-roundtrip.mlir.

// CHECK-LABEL: func.func @concat_different_sizes
// CHECK:       rlx.concat %{{.*}}, %{{.*}}, %{{.*}} dim 1 : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
// IRDL:        error: expected 'tensor<2x1xf32>' but got 'tensor<2x3xf32>'
func.func @concat_different_sizes(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>, %c: tensor<2x1xf32>) -> tensor<2x5xf32> {
  %y = rlx.concat %a, %b, %c dim 1 : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @split_unequal
// CHECK:       %{{.*}}, %{{.*}} = rlx.split %{{.*}} dim 1 sizes [2, 3] : (tensor<4x5xi64>) -> (tensor<4x2xi64>, tensor<4x3xi64>)
// IRDL:        error: expected 'tensor<4x2xi64>' but got 'tensor<4x3xi64>'
func.func @split_unequal(%x: tensor<4x5xi64>) -> (tensor<4x2xi64>, tensor<4x3xi64>) {
  %p:2 = rlx.split %x dim 1 sizes [2, 3] : (tensor<4x5xi64>) -> (tensor<4x2xi64>, tensor<4x3xi64>)
  return %p#0, %p#1 : tensor<4x2xi64>, tensor<4x3xi64>
}
