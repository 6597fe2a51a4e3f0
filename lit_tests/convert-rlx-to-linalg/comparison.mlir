// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// z[i, j] = lhs[i, j] != rhs[j]: one all-parallel generic into i1, the rhs read through its
// broadcast map; a float `ne` is unordered (NaN != NaN), the dynamic batch read from lhs.
// CHECK-LABEL: func.func @ne_dynamic_broadcast
// CHECK:       %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3xi1>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:       ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK-NEXT:    %[[C:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    linalg.yield %[[C]] : i1
// CHECK-NOT:   rlx.
func.func @ne_dynamic_broadcast(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xi1> {
  %0 = rlx.ne %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xi1>
  return %0 : tensor<?x3xi1>
}

// -----

// Floats compare ordered (false at NaN), integers signed, i1 unsigned (false < true).
// CHECK-LABEL: func.func @predicates
// CHECK:       arith.cmpf oeq
// CHECK:       arith.cmpf olt
// CHECK:       arith.cmpf oge
// CHECK:       arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK:       arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK:       arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK:       arith.cmpi ne, %{{.*}}, %{{.*}} : i1
func.func @predicates(%a: tensor<2xf32>, %i: tensor<2xi64>, %j: tensor<i32>, %p: tensor<2xi1>)
    -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<i1>, tensor<2xi1>, tensor<2xi1>) {
  %0 = rlx.eq %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = rlx.lt %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = rlx.ge %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %3 = rlx.le %i, %i : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  %4 = rlx.gt %j, %j : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %5 = rlx.lt %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %6 = rlx.ne %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<i1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// logical_xor of floats: each side's truth value is x != 0 (unordered: NaN is true).
// CHECK-LABEL: func.func @logical_xor_floats
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[L:.*]] = arith.cmpf une, %{{.*}}, %[[ZERO]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.cmpf une, %{{.*}}, %[[ZERO]] : f32
// CHECK-NEXT:    %[[X:.*]] = arith.xori %[[L]], %[[R]] : i1
// CHECK-NEXT:    linalg.yield %[[X]] : i1
func.func @logical_xor_floats(%a: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xi1> {
  %0 = rlx.logical_xor %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// logical_and of i1 reads the bools as they are; logical_not of integers is (x != 0) xor true.
// CHECK-LABEL: func.func @logical_bool_and_not
// CHECK:       ^bb0(%[[P:.*]]: i1, %[[Q:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:    %[[A:.*]] = arith.andi %[[P]], %[[Q]] : i1
// CHECK-NEXT:    linalg.yield %[[A]] : i1
// CHECK:       %[[NZ:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK:       arith.xori %[[NZ]], %{{.*}} : i1
func.func @logical_bool_and_not(%p: tensor<4xi1>, %i: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = rlx.logical_and %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = rlx.logical_not %i : (tensor<4xi64>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// any[k] = OR_{r} (x[k, r] != 0): one generic into false with a reduction iterator, then
// keepdim's unit dim by expand_shape (its dynamic batch from the reduced tensor).
// CHECK-LABEL: func.func @any_keepdim_dynamic
// CHECK:       %[[FALSE:.*]] = arith.constant false
// CHECK:       %[[INIT:.*]] = linalg.fill ins(%[[FALSE]] : i1) outs(%{{.*}} : tensor<?xi1>) -> tensor<?xi1>
// CHECK:       %[[ANY:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x3xf32>) outs(%[[INIT]] : tensor<?xi1>)
// CHECK:         arith.cmpf une
// CHECK-NEXT:    arith.ori
// CHECK:       tensor.expand_shape %[[ANY]] {{\[\[}}0 : i64, 1 : i64]] output_shape [%{{.*}}, 1] : tensor<?xi1> into tensor<?x1xi1>
func.func @any_keepdim_dynamic(%x: tensor<?x3xf32>) -> tensor<?x1xi1> {
  %0 = rlx.any %x dims [1] keepdim true : (tensor<?x3xf32>) -> tensor<?x1xi1>
  return %0 : tensor<?x1xi1>
}

// -----

// all over every dim (no dims) into true, to 0-d.
// CHECK-LABEL: func.func @all_every_dim
// CHECK:       %[[TRUE:.*]] = arith.constant true
// CHECK:       linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>) -> tensor<i1>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK:         arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    arith.andi
func.func @all_every_dim(%x: tensor<2x3x4xi64>) -> tensor<i1> {
  %0 = rlx.all %x : (tensor<2x3x4xi64>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// An empty reduced extent: all is its identity, true, with no generic.
// CHECK-LABEL: func.func @all_empty_extent
// CHECK:       %[[TRUE:.*]] = arith.constant true
// CHECK:       %[[R:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<2x4xi1>) -> tensor<2x4xi1>
// CHECK-NOT:   linalg.generic
// CHECK:       tensor.expand_shape %[[R]]
func.func @all_empty_extent(%x: tensor<2x0x4xf32>) -> tensor<2x1x4xi1> {
  %0 = rlx.all %x dims [1] keepdim true : (tensor<2x0x4xf32>) -> tensor<2x1x4xi1>
  return %0 : tensor<2x1x4xi1>
}
