// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// A linear scan is one scf.for over the T steps: the state slab [N, 1, F] and the result
// are its iter_args; per step the operands' slabs at t are read, one all-parallel generic
// computes a * h + x, and the slab is written back at t. The dynamic batch is read once,
// before the loop.
// CHECK-LABEL: func.func @linear_scan_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x16x8xf32>
// CHECK:       %[[H0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x1x8xf32>)
// CHECK:       %[[OUT0:.*]] = tensor.empty(%[[N]]) : tensor<?x16x8xf32>
// CHECK:       scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[OUT:.*]] = %[[OUT0]]) -> (tensor<?x1x8xf32>, tensor<?x16x8xf32>)
// CHECK-NEXT:    %[[A:.*]] = tensor.extract_slice %{{.*}}[0, %[[T]], 0] [%[[N]], 1, 8] [1, 1, 1] : tensor<?x16x8xf32> to tensor<?x1x8xf32>
// CHECK-NEXT:    %[[X:.*]] = tensor.extract_slice %{{.*}}[0, %[[T]], 0] [%[[N]], 1, 8] [1, 1, 1] : tensor<?x16x8xf32> to tensor<?x1x8xf32>
// CHECK-NEXT:    %[[NEW:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[A]], %[[X]] : tensor<?x1x8xf32>, tensor<?x1x8xf32>) outs(%[[H]] : tensor<?x1x8xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         %[[WRITTEN:.*]] = tensor.insert_slice %[[NEW]] into %[[OUT]][0, %[[T]], 0] [%[[N]], 1, 8] [1, 1, 1]
// CHECK-NEXT:    scf.yield %[[NEW]], %[[WRITTEN]]
// CHECK-NOT:   rlx.
func.func @linear_scan_dynamic_batch(%a: tensor<?x16x8xf32>, %x: tensor<?x16x8xf32>) -> tensor<?x16x8xf32> {
  %h = rlx.linear_scan %a, %x dim 1 : (tensor<?x16x8xf32>, tensor<?x16x8xf32>) -> tensor<?x16x8xf32>
  return %h : tensor<?x16x8xf32>
}

// -----

// Reverse: step i works on t = T - 1 - i.
// CHECK-LABEL: func.func @linear_scan_reverse
// CHECK:       %[[LAST:.*]] = arith.constant 4 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:    %[[T:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[%[[T]], 0] [1, 3] [1, 1] : tensor<5x3xf64> to tensor<1x3xf64>
func.func @linear_scan_reverse(%a: tensor<5x3xf64>, %x: tensor<5x3xf64>) -> tensor<5x3xf64> {
  %h = rlx.linear_scan %a, %x dim 0 reverse true : (tensor<5x3xf64>, tensor<5x3xf64>) -> tensor<5x3xf64>
  return %h : tensor<5x3xf64>
}

// -----

// The IR does not grow with T: a scan of 100000 steps is the same one loop and one
// generic, T only its upper bound.
// CHECK-LABEL: func.func @linear_scan_long
// CHECK:       %[[T:.*]] = arith.constant 100000 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[T]] step
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   scf.for
// CHECK:       func.return
func.func @linear_scan_long(%a: tensor<2x100000xf32>, %x: tensor<2x100000xf32>) -> tensor<2x100000xf32> {
  %h = rlx.linear_scan %a, %x dim 1 : (tensor<2x100000xf32>, tensor<2x100000xf32>) -> tensor<2x100000xf32>
  return %h : tensor<2x100000xf32>
}

// -----

// cumsum is the same loop with one operand: y[t] = y[t-1] + x[t].
// CHECK-LABEL: func.func @cumsum
// CHECK:       scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[Y:.*]] = %{{.*}}, %[[OUT:.*]] = %{{.*}}) -> (tensor<3x1xf32>, tensor<3x7xf32>)
// CHECK-NEXT:    %[[X:.*]] = tensor.extract_slice %{{.*}}[0, %[[T]]] [3, 1] [1, 1] : tensor<3x7xf32> to tensor<3x1xf32>
// CHECK-NEXT:    %[[NEW:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<3x1xf32>) outs(%[[Y]] : tensor<3x1xf32>)
// CHECK:           arith.addf
// CHECK:         tensor.insert_slice %[[NEW]] into %[[OUT]][0, %[[T]]] [3, 1] [1, 1]
// CHECK-NOT:   rlx.
func.func @cumsum(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %y = rlx.cumsum %x dim 1 : (tensor<3x7xf32>) -> tensor<3x7xf32>
  return %y : tensor<3x7xf32>
}
