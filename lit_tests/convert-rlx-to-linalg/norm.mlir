// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Batch norm, training: mean[c] = sum x / n, then var_sum[c] = sum (x - mean)^2 (two
// reductions over (n, *s), c parallel), never E[x^2] - mean^2; n = 2*4*4 = 32 is a constant.
// The spatial dims are reduced as one (x viewed as [N, C, H*W]), and the sums may be
// reassociated (`fastmath<reassoc>`: LLVM vectorizes them, one partial sum per lane).
// CHECK-LABEL: func.func @batch_norm_two_reductions
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<2x3x4x4xf32> into tensor<2x3x16xf32>
// CHECK:       %[[SUM:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[FLAT]] : tensor<2x3x16xf32>)
// CHECK:         arith.addf {{.*}} fastmath<reassoc>
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK:         arith.constant 3.200000e+01 : f32
// CHECK:         arith.divf
// CHECK:       %[[VAR:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%{{.*}}, %[[MEAN]] : tensor<2x3x16xf32>, tensor<3xf32>)
// CHECK:         %[[D:.*]] = arith.subf
// CHECK:         %[[SQ:.*]] = arith.mulf %[[D]], %[[D]]
// CHECK:         arith.addf {{.*}}%[[SQ]] fastmath<reassoc>
// CHECK-NOT:   rlx.
func.func @batch_norm_two_reductions(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %invstd : tensor<3xf32>
}

// -----

// The per-channel statistics in one generic: invstd = 1 / sqrt(var_sum / n + eps) (not
// math.rsqrt), running stats (1 - momentum) * old + momentum * stat, the variance there
// unbiased (divided by n - 1 = 31).
// CHECK-LABEL: func.func @batch_norm_statistics
// CHECK:       %[[INVSTD:.*]], %[[SCALE:.*]], %[[RM:.*]], %[[RV:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel"]
// CHECK:         arith.constant 3.200000e+01 : f32
// CHECK:         arith.constant 1.000000e-03 : f32
// CHECK:         math.sqrt
// CHECK-NOT:     math.rsqrt
// CHECK:         arith.constant 7.500000e-01 : f32
// CHECK:         arith.constant 2.500000e-01 : f32
// CHECK:         arith.constant 3.100000e+01 : f32
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%x, %{{.*}}, %[[SCALE]], %c :
// CHECK:       return %{{.*}}, %{{.*}}, %[[INVSTD]], %[[RM]], %[[RV]]
func.func @batch_norm_statistics(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c momentum 0.25 eps 1.0e-03 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %mean, %invstd, %rm, %rv : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// n = 1 (BatchNorm1d on one sample): the unbiased divisor is 0, as in ATen (0/0 = NaN).
// CHECK-LABEL: func.func @batch_norm_one_value
// CHECK:       arith.constant 1.000000e+00 : f32
// CHECK:       arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  arith.divf
func.func @batch_norm_one_value(%x: tensor<1x3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %rv : tensor<3xf32>
}

// -----

// A dynamic batch: n = 5 * dim(x, 0), converted to a float once; n - 1 from it.
// CHECK-LABEL: func.func @batch_norm_dynamic_batch
// CHECK-DAG:   %[[FIVE:.*]] = arith.constant 5 : index
// CHECK-DAG:   %[[MINUS_ONE:.*]] = arith.constant -1.000000e+00 : f64
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x5xf64>
// CHECK:       %[[SIZE:.*]] = arith.muli %[[FIVE]], %[[N]] : index
// CHECK:       %[[I64:.*]] = arith.index_cast %[[SIZE]] : index to i64
// CHECK:       %[[COUNT:.*]] = arith.sitofp %[[I64]] : i64 to f64
// CHECK:       %[[BESSEL:.*]] = arith.addf %[[COUNT]], %[[MINUS_ONE]] : f64
// CHECK:       linalg.generic
// CHECK:         arith.divf %{{.*}}, %[[COUNT]] : f64
// CHECK:       arith.divf %{{.*}}, %[[BESSEL]] : f64
// CHECK:       tensor.empty(%[[N]]) : tensor<?x3x5xf64>
func.func @batch_norm_dynamic_batch(%x: tensor<?x3x5xf64>, %c: tensor<3xf64>) -> (tensor<?x3x5xf64>, tensor<3xf64>) {
  %y, %mean, %invstd, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c : (tensor<?x3x5xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<?x3x5xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %y, %rv : tensor<?x3x5xf64>, tensor<3xf64>
}

// -----

// Eval mode: scale[c] = 1 / sqrt(running_var + eps) * weight, then one parallel generic.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK:       %[[SCALE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK:         arith.constant 1.000000e-03 : f32
// CHECK:         math.sqrt
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%x, %rm, %[[SCALE]], %b :
// CHECK-NOT:   rlx.
func.func @batch_norm_inference(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = rlx.batch_norm_inference %x, %w, %b, %rm, %rv eps 1.0e-03 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Layer norm over the last 2 dims: per-row reductions over (d1, d2), m = 15; the rows
// [?] are expanded to ATen's [?, 1, 1]; the weight is read at (d1, d2).
// CHECK-LABEL: func.func @layer_norm_two_dims
// CHECK:       %[[SUM:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>)
// CHECK:         arith.constant 1.500000e+01 : f32
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%x, %[[MEAN]] : tensor<?x3x5xf32>, tensor<?xf32>)
// CHECK:       %[[RSTD:.*]] = linalg.generic
// CHECK:         math.sqrt
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:       tensor.expand_shape %[[MEAN]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] output_shape [%{{.*}}, 1, 1] : tensor<?xf32> into tensor<?x1x1xf32>
// CHECK:       tensor.expand_shape %[[RSTD]]
// CHECK-NOT:   rlx.
func.func @layer_norm_two_dims(%x: tensor<?x3x5xf32>, %w: tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>) {
  %y, %mean, %rstd = rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<?x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<?x3x5xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
  return %y, %mean, %rstd : tensor<?x3x5xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>
}

// -----

// An x that is all normalized is one row: a unit loop d0 (from the [1] init) stands for
// it, so outputs stay indexed by loop dims; the normalization reads the row at 0.
// CHECK-LABEL: func.func @layer_norm_one_row
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:    iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.*}} : tensor<1xf32>)
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>
// CHECK:       tensor.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
func.func @layer_norm_one_row(%x: tensor<3x5xf32>, %w: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<1x1xf32>) {
  %y, %mean, %rstd = rlx.layer_norm %x, %w, %w normalized_rank 2 : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return %y, %mean : tensor<3x5xf32>, tensor<1x1xf32>
}

// -----

// Group norm: x viewed as [N, G, C/G, *s] (expand_shape, the batch dynamic), each (n, g)
// a row of layer norm's loops: mean, then the variance as the mean of squared deviations
// (two reductions), m = 2 * 4 = 8; mean and rstd are ATen's [N, G] as they stand. y is
// normalized in the grouped view, the weight and bias [C] read as [G, C/G] at (g, cg), and
// collapsed back.
// CHECK-LABEL: func.func @group_norm
// CHECK:       %[[XG:.*]] = tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] output_shape [%{{.*}}, 3, 2, 4] : tensor<?x6x4xf32> into tensor<?x3x2x4xf32>
// CHECK:       %[[SUM:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:    ins(%[[XG]] : tensor<?x3x2x4xf32>)
// CHECK:       %mean = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x3xf32>)
// CHECK:         arith.constant 8.000000e+00 : f32
// CHECK:       %[[VAR:.*]] = linalg.generic
// CHECK-SAME:    ins(%[[XG]], %mean : tensor<?x3x2x4xf32>, tensor<?x3xf32>)
// CHECK:         %[[D:.*]] = arith.subf
// CHECK:         arith.mulf %[[D]], %[[D]]
// CHECK:       %rstd = linalg.generic {{.*}} ins(%[[VAR]] : tensor<?x3xf32>)
// CHECK:         math.sqrt
// CHECK:       %[[W:.*]] = tensor.expand_shape %w {{\[}}[0 : i64, 1 : i64]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK:       %[[B:.*]] = tensor.expand_shape %b
// CHECK:       %[[YG:.*]] = linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%[[XG]], %mean, %rstd, %[[W]], %[[B]] :
// CHECK:       %y = tensor.collapse_shape %[[YG]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] : tensor<?x3x2x4xf32> into tensor<?x6x4xf32>
// CHECK:       return %y, %mean, %rstd
// CHECK-NOT:   rlx.
func.func @group_norm(%x: tensor<?x6x4xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<?x6x4xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %y, %mean, %rstd = rlx.group_norm %x affine %w, %b groups 3 eps 1.0e-03 : (tensor<?x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<?x6x4xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
  return %y, %mean, %rstd : tensor<?x6x4xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// Without the affine operands, y = (x - mean) * rstd, nothing else read.
// CHECK-LABEL: func.func @group_norm_plain
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]{{.*}} ins(%{{.*}}, %mean, %rstd : tensor<2x4x1x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[M:.*]]: f64, %[[S:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X]], %[[M]] : f64
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[D]], %[[S]] : f64
// CHECK-NEXT:      linalg.yield %[[Y]] : f64
// CHECK-NOT:   rlx.
func.func @group_norm_plain(%x: tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>) {
  %y, %mean, %rstd = rlx.group_norm %x groups 4 : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>)
  return %y, %mean, %rstd : tensor<2x4x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>
}
