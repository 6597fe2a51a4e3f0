// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The comparison family in its custom form: every result is i1. An empty dims and keepdim
// false are left out of any/all when printed; the generic form carries them.

// Comparisons broadcast as rlx.add does; floats, integers and i1.
// CHECK-LABEL: func.func @compare
// CHECK:       rlx.eq %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
// CHECK:       rlx.ne %{{.*}}, %{{.*}} : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xi1>
// CHECK:       rlx.lt %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK:       rlx.le %{{.*}}, %{{.*}} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
// CHECK:       rlx.gt %{{.*}}, %{{.*}} : (tensor<?x4xf64>, tensor<1x4xf64>) -> tensor<?x4xi1>
// CHECK:       rlx.ge %{{.*}}, %{{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i1>
// GENERIC-LABEL: sym_name = "compare"
// GENERIC:     "rlx.eq"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
func.func @compare(%a: tensor<2x3xf32>, %s: tensor<f32>, %b: tensor<4x1x3xf32>, %c: tensor<2x1xf32>,
                   %i: tensor<3xi64>, %j: tensor<2x3xi64>, %p: tensor<2xi1>, %d: tensor<?x4xf64>,
                   %e: tensor<1x4xf64>, %k: tensor<i32>)
    -> (tensor<2x3xi1>, tensor<4x2x3xi1>, tensor<2x3xi1>, tensor<2xi1>, tensor<?x4xi1>, tensor<i1>) {
  %0 = rlx.eq %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %1 = rlx.ne %b, %c : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xi1>
  %2 = rlx.lt %i, %j : (tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
  %3 = rlx.le %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %4 = rlx.gt %d, %e : (tensor<?x4xf64>, tensor<1x4xf64>) -> tensor<?x4xi1>
  %5 = rlx.ge %k, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi1>, tensor<4x2x3xi1>, tensor<2x3xi1>, tensor<2xi1>, tensor<?x4xi1>, tensor<i1>
}

// The logical ops read any element type as "nonzero is true".
// CHECK-LABEL: func.func @logical
// CHECK:       rlx.logical_and %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK:       rlx.logical_or %{{.*}}, %{{.*}} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
// CHECK:       rlx.logical_xor %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
// CHECK:       rlx.logical_not %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi1>
func.func @logical(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %p: tensor<2xi1>, %i: tensor<3xi64>, %s: tensor<i64>)
    -> (tensor<2x3xi1>, tensor<2xi1>, tensor<3xi1>, tensor<2x3xi1>) {
  %0 = rlx.logical_and %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = rlx.logical_or %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %2 = rlx.logical_xor %i, %s : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %3 = rlx.logical_not %a : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return %0, %1, %2, %3 : tensor<2x3xi1>, tensor<2xi1>, tensor<3xi1>, tensor<2x3xi1>
}

// any/all over listed dims, over every dim (no dims), with keepdim.
// CHECK-LABEL: func.func @reductions
// CHECK:       rlx.any %{{.*}} dims [0, 2] : (tensor<2x3x4xf32>) -> tensor<3xi1>
// CHECK:       rlx.all %{{.*}} : (tensor<2x3x4xf32>) -> tensor<i1>
// CHECK:       rlx.any %{{.*}} dims [1] keepdim true : (tensor<?x3xi1>) -> tensor<?x1xi1>
// CHECK:       rlx.all %{{.*}} keepdim true : (tensor<2x3x4xf32>) -> tensor<1x1x1xi1>
// GENERIC-LABEL: sym_name = "reductions"
// GENERIC:     "rlx.any"(%{{.*}}) <{dims = array<i64: 0, 2>, keepdim = false}> : (tensor<2x3x4xf32>) -> tensor<3xi1>
// GENERIC:     "rlx.all"(%{{.*}}) <{dims = array<i64>, keepdim = false}> : (tensor<2x3x4xf32>) -> tensor<i1>
func.func @reductions(%x: tensor<2x3x4xf32>, %m: tensor<?x3xi1>) -> (tensor<3xi1>, tensor<i1>, tensor<?x1xi1>, tensor<1x1x1xi1>) {
  %0 = rlx.any %x dims [0, 2] : (tensor<2x3x4xf32>) -> tensor<3xi1>
  %1 = rlx.all %x : (tensor<2x3x4xf32>) -> tensor<i1>
  %2 = rlx.any %m dims [1] keepdim true : (tensor<?x3xi1>) -> tensor<?x1xi1>
  %3 = rlx.all %x dims [] keepdim true : (tensor<2x3x4xf32>) -> tensor<1x1x1xi1>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<i1>, tensor<?x1xi1>, tensor<1x1x1xi1>
}
