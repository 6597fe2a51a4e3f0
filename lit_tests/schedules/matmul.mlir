// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// The `optimizing` pipelines' schedule (main.mlir and its libraries) on rlx.matmul as
// convert-rlx-to-linalg emits it (linalg.matmul of a zero fill), 64x48 @ 48x128 (K below
// the packing threshold of 64): threads over n, a 32-column cache tile, 8 rows x 1 k per
// register tile; the contraction's rows become FMAs on whole rows of the tile.
// CHECK-LABEL: func.func @mm
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK:             scf.for %{{.*}} = %c0 to %c48 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-8:       vector.fma {{.*}} : vector<32xf32>
// CHECK:               scf.yield
// CHECK:             vector.transfer_write {{.*}} : vector<8x32xf32>

// A dynamic M, and 100 columns (50 per thread): whole 8-row tiles up to the last multiple
// of 8, the remaining rows one at a time; in each, two 32-column tiles and a peeled 18-column
// one. Every tile is vector code: no linalg.matmul is left.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %[[WHOLE:.*]] step %c8
// CHECK:           scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-8:     vector.fma {{.*}} : vector<32xf32>
// CHECK:         scf.for %{{.*}} = %[[WHOLE]] to %{{.*}} step %c8
// CHECK:             vector.fma {{.*}} : vector<32xf32>
// CHECK:         scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8x18xf32>)
// CHECK-COUNT-8:     vector.fma {{.*}} : vector<18xf32>
// CHECK:             vector.fma {{.*}} : vector<18xf32>
// CHECK-NOT:   linalg.matmul

// A one-term product (K = 1, here with dynamic rows) is not scheduled: the k loop of the
// register tile would fold away, and hoisting out of it aborts mlir-opt 22. Only its zero
// init is split across the threads (threads.mlir), the product stays outside any thread loop.
// CHECK-LABEL: func.func @outer_product
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK-NEXT:    affine.min
// CHECK:         linalg.fill
// CHECK-NEXT:  }
// CHECK-NOT:   scf.forall
// CHECK:       linalg.matmul

builtin.module {
  func.func @mm(%a: tensor<64x48xf32>, %b: tensor<48x128xf32>) -> tensor<64x128xf32> {
    %0 = tensor.empty() : tensor<64x128xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<64x128xf32>) -> tensor<64x128xf32>
    %y = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x128xf32>) outs(%2 : tensor<64x128xf32>) -> tensor<64x128xf32>
    func.return %y : tensor<64x128xf32>
  }
  func.func @dynamic_rows(%a: tensor<?x48xf32>, %b: tensor<48x100xf32>) -> tensor<?x100xf32> {
    %c0 = arith.constant 0 : index
    %m = tensor.dim %a, %c0 : tensor<?x48xf32>
    %0 = tensor.empty(%m) : tensor<?x100xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x100xf32>) -> tensor<?x100xf32>
    %y = linalg.matmul ins(%a, %b : tensor<?x48xf32>, tensor<48x100xf32>) outs(%2 : tensor<?x100xf32>) -> tensor<?x100xf32>
    func.return %y : tensor<?x100xf32>
  }
  func.func @outer_product(%a: tensor<?x1xf32>, %b: tensor<1x9xf32>) -> tensor<?x9xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?x1xf32>
    %0 = tensor.empty(%n) : tensor<?x9xf32>
    %1 = arith.constant 0.000000e+00 : f32
    %2 = linalg.fill ins(%1 : f32) outs(%0 : tensor<?x9xf32>) -> tensor<?x9xf32>
    %y = linalg.matmul ins(%a, %b : tensor<?x1xf32>, tensor<1x9xf32>) outs(%2 : tensor<?x9xf32>) -> tensor<?x9xf32>
    func.return %y : tensor<?x9xf32>
  }
}
