// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s
// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// A 0-d operand is read through a map with no results; the output by the loop dims.
// CHECK-LABEL: func.func @add_scalar
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:       arith.addf
// CHECK-NOT:   rlx.
func.func @add_scalar(%a: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = rlx.add %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Both operands expand: a size-1 dim reads index 0, a missing leading dim is dropped.
// CHECK-LABEL: func.func @sub_both_expand
// CHECK:       tensor.empty() : tensor<4x2x3xf32>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:       arith.subf
func.func @sub_both_expand(%a: tensor<4x1x3xf32>, %b: tensor<2x1xf32>) -> tensor<4x2x3xf32> {
  %0 = rlx.sub %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// A dynamic batch: the result's size is read from the operand that carries it.
// CHECK-LABEL: func.func @mul_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4x8x8xf64>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x4x8x8xf64>
// CHECK:       affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK:       arith.mulf
func.func @mul_dynamic_batch(%y: tensor<?x4x8x8xf64>, %b: tensor<4x1x1xf64>) -> tensor<?x4x8x8xf64> {
  %0 = rlx.mul %y, %b : (tensor<?x4x8x8xf64>, tensor<4x1x1xf64>) -> tensor<?x4x8x8xf64>
  return %0 : tensor<?x4x8x8xf64>
}

// -----

// Integers take the integer ops; 0-d op 0-d is a generic with no loops.
// CHECK-LABEL: func.func @integer_ops
// CHECK:       linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
// CHECK:       arith.addi
// CHECK:       arith.maxsi
// CHECK:       arith.minsi
// CHECK:       arith.muli
func.func @integer_ops(%n: tensor<i64>, %one: tensor<i64>, %a: tensor<3xi64>) -> (tensor<i64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %0 = rlx.add %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %1 = rlx.maximum %a, %n : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %2 = rlx.minimum %a, %n : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %3 = rlx.mul %a, %a : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0, %1, %2, %3 : tensor<i64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// -----

// maximum/minimum propagate NaN: arith.maximumf/minimumf, not maxnumf.
// CHECK-LABEL: func.func @float_max_min_div
// CHECK:       arith.maximumf
// CHECK:       arith.minimumf
// CHECK:       arith.divf
func.func @float_max_min_div(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = rlx.maximum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = rlx.minimum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = rlx.div %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Each unary op is one generic whose body is one arith/math op, but f32 tanh: libm's
// tanhf keeps its loop scalar, so it is a series and an exp form from arith ops
// (`polynomial_tanh`), ending in the select of the two.
// CHECK-LABEL: func.func @unary
// CHECK:       arith.negf
// CHECK:       math.exp
// CHECK:       math.log
// CHECK:       math.sqrt
// CHECK:       math.rsqrt
// CHECK:       math.absf
// CHECK-NOT:   math.tanh
// CHECK:       math.copysign
// CHECK-NEXT:  arith.select
// CHECK:       math.erf
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = rlx.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = rlx.exp %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = rlx.log %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = rlx.sqrt %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = rlx.rsqrt %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = rlx.abs %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = rlx.tanh %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = rlx.erf %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %7 : tensor<2x3xf32>
}

// -----

// A conv bias's gradient: sum over (N, H, W) into zeros, indexed by the kept dim.
// CHECK-LABEL: func.func @sum_bias_gradient
// CHECK:       linalg.fill
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
// CHECK:       arith.addf
// CHECK-NOT:   tensor.expand_shape
func.func @sum_bias_gradient(%dy: tensor<?x4x8x8xf32>) -> tensor<4xf32> {
  %0 = rlx.sum %dy dims [0, 2, 3] : (tensor<?x4x8x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keepdim: the unit dims come back with expand_shape; mean divides by the count (3 * 4).
// CHECK-LABEL: func.func @mean_keepdim
// CHECK:       %[[COUNT:.*]] = arith.constant 1.200000e+01 : f32
// CHECK:       iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(
// CHECK:       arith.divf %{{.*}}, %[[COUNT]]
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0 : i64, 1 : i64, 2 : i64]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
func.func @mean_keepdim(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = rlx.mean %x dims [1, 2] keepdim true : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Mean over a dynamic batch reads its count with tensor.dim.
// CHECK-LABEL: func.func @mean_dynamic_count
// CHECK:       tensor.dim
// CHECK:       arith.muli
// CHECK:       arith.index_cast
// CHECK:       arith.sitofp
// CHECK:       arith.divf
func.func @mean_dynamic_count(%x: tensor<?x3xf32>) -> tensor<f32> {
  %0 = rlx.mean %x dims [0, 1] : (tensor<?x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A sum over an empty dim is its zeros, with no reduction.
// CHECK-LABEL: func.func @sum_empty
// CHECK:       linalg.fill
// CHECK-NOT:   linalg.generic
func.func @sum_empty(%x: tensor<0x3xf32>) -> tensor<3xf32> {
  %0 = rlx.sum %x dims [0] : (tensor<0x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// beta = alpha = 1: linalg.matmul accumulates into the bias broadcast to [M, N].
// CHECK-LABEL: func.func @addmm_linear
// CHECK:       %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<?x16xf32>)
// CHECK-NOT:   arith.mulf
func.func @addmm_linear(%b: tensor<16xf32>, %x: tensor<?x8xf32>, %w: tensor<8x16xf32>) -> tensor<?x16xf32> {
  %0 = rlx.addmm %b, %x, %w : (tensor<16xf32>, tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Other beta, alpha: matmul into zeros, then beta * bias + alpha * p in one generic.
// CHECK-LABEL: func.func @addmm_scaled
// CHECK:       linalg.fill
// CHECK:       linalg.matmul
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:       arith.constant 5.000000e-01 : f32
// CHECK:       arith.mulf
// CHECK:       arith.constant 2.000000e+00 : f32
// CHECK:       arith.mulf
// CHECK:       arith.addf
func.func @addmm_scaled(%b: tensor<3x1xf32>, %x: tensor<3x8xf32>, %w: tensor<8x16xf32>) -> tensor<3x16xf32> {
  %0 = rlx.addmm %b, %x, %w beta 0.5 alpha 2.0 : (tensor<3x1xf32>, tensor<3x8xf32>, tensor<8x16xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}

// -----

// beta = 0: the bias is never read (its NaNs do not propagate, as in PyTorch).
// CHECK-LABEL: func.func @addmm_beta_zero(%b:
// CHECK-NOT:   %b
// CHECK:       %[[P:.*]] = linalg.matmul ins(%x, %w
// CHECK-NOT:   %b
// CHECK:       return %[[P]]
func.func @addmm_beta_zero(%b: tensor<16xf32>, %x: tensor<3x8xf32>, %w: tensor<8x16xf32>) -> tensor<3x16xf32> {
  %0 = rlx.addmm %b, %x, %w beta 0.0 : (tensor<16xf32>, tensor<3x8xf32>, tensor<8x16xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}
