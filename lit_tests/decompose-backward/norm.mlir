// RUN: rlx-opt %s --decompose-backward --split-input-file | FileCheck %s

// native_batch_norm_backward(train=True): one reduction over (n, *s) with two
// accumulators, sum(dy) and sum(dy * (x - mean)); per-channel coefficients (n = 8); one
// parallel generic for dx. dbias is the first accumulator itself.
// CHECK-LABEL: func.func @batch_norm_backward
// CHECK:       %[[DB:.*]], %[[DOT:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%dy, %x, %mean :
// CHECK:         arith.subf
// CHECK:       %[[MEAN_DY:.*]], %[[PROJ:.*]], %[[SCALE:.*]], %[[DW:.*]] = linalg.generic
// CHECK-SAME:    ins(%[[DB]], %[[DOT]], %invstd, %w :
// CHECK:         arith.constant 8.000000e+00 : f32
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %x, %mean, %[[MEAN_DY]], %[[PROJ]], %[[SCALE]] :
// CHECK:       return %[[DX]], %[[DW]], %[[DB]]
// CHECK-NOT:   rlx.
func.func @batch_norm_backward(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %w: tensor<3xf32>, %mean: tensor<3xf32>, %invstd: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dw, %db = rlx.batch_norm_backward %dy, %x, %w, %mean, %invstd : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw, %db : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// A dynamic batch: the count is 3 * dim(x, 0), as a float, used in the coefficients.
// CHECK-LABEL: func.func @batch_norm_backward_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x3xf64>
// CHECK:       arith.muli %{{.*}}, %[[N]] : index
// CHECK:       %[[COUNT:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK:         arith.divf %{{.*}}, %[[COUNT]] : f64
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x3xf64>
func.func @batch_norm_backward_dynamic_batch(%dy: tensor<?x3x3xf64>, %x: tensor<?x3x3xf64>, %c: tensor<3xf64>) -> tensor<?x3x3xf64> {
  %dx, %dw, %db = rlx.batch_norm_backward %dy, %x, %c, %c, %c : (tensor<?x3x3xf64>, tensor<?x3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<?x3x3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %dx : tensor<?x3x3xf64>
}

// -----

// native_layer_norm_backward over the last dim: mean and rstd ([?, 3, 1], ATen's shape)
// are viewed as [?, 3] and read at (d0, d1), projected permutations; row sums of g = dy * w and of g * xhat, one generic each, their
// sums reassociable (m = 5); dx in one parallel generic; dweight and dbias sum over the
// rows in x's own loop order (o0, o1, j), the rows outside, so the inner loop has unit stride.
// CHECK-LABEL: func.func @layer_norm_backward
// CHECK:       %[[M:.*]] = tensor.collapse_shape %m {{.*}} : tensor<?x3x1xf32> into tensor<?x3xf32>
// CHECK:       %[[R:.*]] = tensor.collapse_shape %r {{.*}} : tensor<?x3x1xf32> into tensor<?x3xf32>
// CHECK:       %[[SG:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%dy, %w :
// CHECK-SAME:    outs(%{{.*}} : tensor<?x3xf32>)
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:       %[[SGX:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%dy, %x, %[[M]], %[[R]], %w :
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:       %[[MG:.*]], %[[MGX:.*]] = linalg.generic {{.*}} ins(%[[SG]], %[[SGX]] :
// CHECK:         arith.constant 5.000000e+00 : f32
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %x, %[[M]], %[[R]], %w, %[[MG]], %[[MGX]] :
// CHECK:       %[[DW:.*]], %[[DB:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>
// CHECK-SAME:    iterator_types = ["reduction", "reduction", "parallel"]
// CHECK-SAME:    outs(%{{.*}}, %{{.*}} : tensor<5xf32>, tensor<5xf32>)
// CHECK:       return %[[DX]], %[[DW]], %[[DB]]
// CHECK-NOT:   rlx.
func.func @layer_norm_backward(%dy: tensor<?x3x5xf32>, %x: tensor<?x3x5xf32>, %m: tensor<?x3x1xf32>, %r: tensor<?x3x1xf32>, %w: tensor<5xf32>) -> (tensor<?x3x5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %dx, %dw, %db = rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<?x3x5xf32>, tensor<?x3x5xf32>, tensor<?x3x1xf32>, tensor<?x3x1xf32>, tensor<5xf32>) -> (tensor<?x3x5xf32>, tensor<5xf32>, tensor<5xf32>)
  return %dx, %dw, %db : tensor<?x3x5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// An x that is all normalized: no rows to sum over, so dweight and dbias are one
// all-parallel generic; mean and rstd ([1, 1], viewed as [1]) are read at 0.
// CHECK-LABEL: func.func @layer_norm_backward_one_row
// CHECK:       %[[M:.*]] = tensor.collapse_shape %m {{.*}} : tensor<1x1xf32> into tensor<1xf32>
// CHECK:       %[[R:.*]] = tensor.collapse_shape %r {{.*}} : tensor<1x1xf32> into tensor<1xf32>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:       %dw, %db = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %x, %[[M]], %[[R]] :
// CHECK:       return %dx, %dw, %db
func.func @layer_norm_backward_one_row(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %m: tensor<1x1xf32>, %r: tensor<1x1xf32>, %w: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %dx, %dw, %db = rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return %dx, %dw, %db : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// native_batch_norm_backward(train=False): the running statistics are constants. One
// reduction over (n, *s) with sum(dy) (dbias) and sum(dy * (x - running_mean)); per
// channel invstd = 1 / sqrt(running_var + eps) scales both dx and dweight; dx has no mean
// terms.
// CHECK-LABEL: func.func @batch_norm_inference_backward
// CHECK:       %[[DB:.*]], %[[DOT:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%dy, %x, %rm :
// CHECK:       %[[SCALE:.*]], %[[DW:.*]] = linalg.generic
// CHECK-SAME:    ins(%rv, %[[DOT]] :
// CHECK:         arith.constant 1.000000e-03 : f32
// CHECK:         math.sqrt
// CHECK:       %[[DX:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%dy, %[[SCALE]] :
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf %[[A]], %[[B]] : f32
// CHECK:       return %[[DX]], %[[DW]], %[[DB]]
// CHECK-NOT:   rlx.
func.func @batch_norm_inference_backward(%dy: tensor<?x3x4xf32>, %x: tensor<?x3x4xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dw, %db = rlx.batch_norm_inference_backward %dy, %x, %rm, %rv eps 1.0e-03 : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw, %db : tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// native_group_norm_backward: layer norm's gradient on x viewed as [N, G, C/G, *s]
// (expand_shape), each (n, g) a row of m = 2 * 3 = 6 values; the weight [C] read as
// [G, C/G] at (g, cg); both row sums, of g and of g * xhat, in one generic (IREE rejects
// the lone sum of dy * w there). dweight and dbias reduce n and the spatial axes, and
// collapse back to [C].
// CHECK-LABEL: func.func @group_norm_backward
// CHECK:       %[[DY:.*]] = tensor.expand_shape %dy {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] output_shape [2, 2, 2, 3] : tensor<2x4x3xf32> into tensor<2x2x2x3xf32>
// CHECK:       %[[X:.*]] = tensor.expand_shape %x
// CHECK:       %[[W:.*]] = tensor.expand_shape %w {{\[}}[0 : i64, 1 : i64]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
// CHECK:       %[[SUM_G:.*]], %[[SUM_GX:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[DY]], %[[X]], %mean, %rstd, %[[W]] :
// CHECK:       %[[MG:.*]], %[[MGX:.*]] = linalg.generic
// CHECK:         arith.constant 6.000000e+00 : f32
// CHECK:       %[[DXG:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[DY]], %[[X]], %mean, %rstd, %[[W]], %[[MG]], %[[MGX]] :
// CHECK:       %[[DWG:.*]], %[[DBG:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-SAME:    iterator_types = ["reduction", "parallel", "parallel", "reduction"]
// CHECK:       %dx = tensor.collapse_shape %[[DXG]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] : tensor<2x2x2x3xf32> into tensor<2x4x3xf32>
// CHECK:       %dw = tensor.collapse_shape %[[DWG]] {{\[}}[0 : i64, 1 : i64]] : tensor<2x2xf32> into tensor<4xf32>
// CHECK:       %db = tensor.collapse_shape %[[DBG]]
// CHECK-NOT:   rlx.
func.func @group_norm_backward(%dy: tensor<2x4x3xf32>, %x: tensor<2x4x3xf32>, %mean: tensor<2x2xf32>, %rstd: tensor<2x2xf32>, %w: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dx, %dw, %db = rlx.group_norm_backward %dy, %x, %mean, %rstd weight %w groups 2 : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx, %dw, %db : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Without a weight, g is dy itself: the first row sum reads dy alone.
// CHECK-LABEL: func.func @group_norm_backward_no_weight
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%{{.*}} : tensor<2x4x1xf32>)
// CHECK-NEXT:    ^bb0(%[[DY:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      arith.addf %[[ACC]], %[[DY]] fastmath<reassoc> : f32
// CHECK-NOT:   rlx.
func.func @group_norm_backward_no_weight(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %s: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %dx, %dw, %db = rlx.group_norm_backward %dy, %x, %s, %s groups 4 : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %dx : tensor<2x4xf32>
}
