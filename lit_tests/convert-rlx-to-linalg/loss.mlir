// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// log_softmax: y = (x - m) - log(sum exp(x - m)), m = max x along dim.
// The max reduces into -inf, the sum into 0, each a generic with one reduction iterator.
// CHECK-LABEL: func.func @log_softmax_dim1
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:   %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK:       %[[MINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK:       %[[M:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%x : tensor<4x10xf32>) outs(%[[MINIT]] : tensor<4xf32>)
// CHECK:         arith.maximumf
// CHECK:       %[[SINIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK:       %[[S:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%x, %[[M]] : tensor<4x10xf32>, tensor<4xf32>) outs(%[[SINIT]] : tensor<4xf32>)
// CHECK:         %[[D:.*]] = arith.subf
// CHECK:         math.exp %[[D]]
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%x, %[[M]], %[[S]] : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[XM:.*]] = arith.subf
// CHECK:         %[[LOG:.*]] = math.log
// CHECK:         arith.subf %[[XM]], %[[LOG]]
// CHECK-NOT:   rlx.
func.func @log_softmax_dim1(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %y = rlx.log_softmax %x dim 1 : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

// -----

// softmax along dim 0 of a rank-3 tensor: the reduced tensors drop axis 0, read as (d1, d2).
// CHECK-LABEL: func.func @softmax_dim0
// CHECK:       linalg.generic {indexing_maps = [affine_map<[[FULL:\(d0, d1, d2\) -> \(d0, d1, d2\)]]>, affine_map<[[ROW:\(d0, d1, d2\) -> \(d1, d2\)]]>], iterator_types = ["reduction", "parallel", "parallel"]}
// CHECK:       linalg.generic {indexing_maps = [affine_map<[[FULL]]>, affine_map<[[ROW]]>, affine_map<[[ROW]]>], iterator_types = ["reduction", "parallel", "parallel"]}
// CHECK:       linalg.generic {indexing_maps = [affine_map<[[FULL]]>, affine_map<[[ROW]]>, affine_map<[[ROW]]>, affine_map<[[FULL]]>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         %[[E:.*]] = math.exp
// CHECK:         arith.divf %[[E]], %{{.*}} : f64
// CHECK-NOT:   rlx.
func.func @softmax_dim0(%x: tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  %y = rlx.softmax %x dim 0 : (tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  return %y : tensor<3x4x5xf64>
}

// -----

// A dynamic batch: the reductions' inits read it from the input.
// CHECK-LABEL: func.func @log_softmax_dynamic_batch
// CHECK:       %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x10xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK:       tensor.empty(%[[N]]) : tensor<?x10xf32>
// CHECK-NOT:   rlx.
func.func @log_softmax_dynamic_batch(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %y = rlx.log_softmax %x dim 1 : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

// -----

// nll_loss "mean" over [N, C]: one generic reduces every target into two 0-d sums
// (loss, total weight); the class is clamped into [0, C) before tensor.extract reads it;
// an ignored target adds 0 to both, an out-of-range one NaN to the loss. Then loss / weight.
// CHECK-LABEL: func.func @nll_loss_mean
// CHECK:       %[[SUM:.*]], %[[TW:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>]
// CHECK-SAME:    iterator_types = ["reduction"]
// CHECK-SAME:    ins(%t : tensor<4xi64>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK:         %[[T:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[C:.*]] = arith.constant 10 : index
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[T]], %[[C]] : index
// CHECK:         %[[SAFE:.*]] = arith.select %[[IN]], %[[T]], %{{.*}} : index
// CHECK:         %[[W:.*]] = tensor.extract %w[%[[SAFE]]] : tensor<10xf32>
// CHECK:         %[[N:.*]] = linalg.index 0 : index
// CHECK:         %[[X:.*]] = tensor.extract %logp[%[[N]], %[[SAFE]]] : tensor<4x10xf32>
// CHECK:         %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK:         %[[L:.*]] = arith.mulf %[[NEG]], %[[W]] : f32
// CHECK:         %[[II:.*]] = arith.constant -100 : i64
// CHECK:         %[[IGN:.*]] = arith.cmpi eq, %{{.*}}, %[[II]] : i64
// CHECK:         %[[NAN:.*]] = arith.constant 0x7fc00000 : f32
// CHECK:         %[[LIN:.*]] = arith.select %[[IN]], %[[L]], %[[NAN]] : f32
// CHECK:         arith.select %[[IGN]], %{{.*}}, %[[LIN]] : f32
// CHECK:         linalg.yield
// CHECK:       %[[LOSS:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = []
// CHECK-SAME:    ins(%[[SUM]], %[[TW]] : tensor<f32>, tensor<f32>)
// CHECK:         arith.divf
// CHECK:       return %[[LOSS]], %[[TW]]
// CHECK-NOT:   rlx.
func.func @nll_loss_mean(%logp: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>) -> (tensor<f32>, tensor<f32>) {
  %l, %tw = rlx.nll_loss %logp, %t, %w : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %l, %tw : tensor<f32>, tensor<f32>
}

// -----

// nll_loss "sum": the two sums are the results, no division.
// CHECK-LABEL: func.func @nll_loss_sum
// CHECK:       %[[L:.*]], %[[TW:.*]] = linalg.generic
// CHECK-NOT:   arith.divf
// CHECK:       return %[[L]], %[[TW]]
func.func @nll_loss_sum(%logp: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf32>) -> (tensor<f32>, tensor<f32>) {
  %l, %tw = rlx.nll_loss %logp, %t, %w reduction "sum" : (tensor<4x10xf32>, tensor<4xi64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %l, %tw : tensor<f32>, tensor<f32>
}

// -----

// nll_loss "none" over [N, C, H, W]: a parallel gather over the target's (n, h, w), reading
// logp[n, t, h, w]; total_weight is a 0-d zero (ATen's).
// CHECK-LABEL: func.func @nll_loss2d_none
// CHECK:       %[[L:.*]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    ins(%t : tensor<?x5x5xi64>) outs(%{{.*}} : tensor<?x5x5xf64>)
// CHECK-DAG:     %[[N:.*]] = linalg.index 0 : index
// CHECK-DAG:     %[[H:.*]] = linalg.index 1 : index
// CHECK-DAG:     %[[W:.*]] = linalg.index 2 : index
// CHECK:         tensor.extract %logp[%[[N]], %{{.*}}, %[[H]], %[[W]]] : tensor<?x3x5x5xf64>
// CHECK:         arith.constant 0 : i64
// CHECK:       %[[TW:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<f64>)
// CHECK:       return %[[L]], %[[TW]]
func.func @nll_loss2d_none(%logp: tensor<?x3x5x5xf64>, %t: tensor<?x5x5xi64>, %w: tensor<3xf64>) -> (tensor<?x5x5xf64>, tensor<f64>) {
  %l, %tw = rlx.nll_loss %logp, %t, %w reduction "none" ignore_index 0 : (tensor<?x3x5x5xf64>, tensor<?x5x5xi64>, tensor<3xf64>) -> (tensor<?x5x5xf64>, tensor<f64>)
  return %l, %tw : tensor<?x5x5xf64>, tensor<f64>
}

// -----

// Unbatched [C] with a 0-d target, "none": a generic of no loops reads logp[t]; the loss and
// total weight are both 0-d sums of one term (ATen's total weight is weight[t] here).
// CHECK-LABEL: func.func @nll_loss_unbatched_none
// CHECK:       %[[L:.*]], %[[TW:.*]] = linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []
// CHECK-SAME:    ins(%t : tensor<i64>)
// CHECK:         tensor.extract %logp[%{{.*}}] : tensor<10xf32>
// CHECK:       return %[[L]], %[[TW]]
func.func @nll_loss_unbatched_none(%logp: tensor<10xf32>, %t: tensor<i64>, %w: tensor<10xf32>) -> (tensor<f32>, tensor<f32>) {
  %l, %tw = rlx.nll_loss %logp, %t, %w reduction "none" : (tensor<10xf32>, tensor<i64>, tensor<10xf32>) -> (tensor<f32>, tensor<f32>)
  return %l, %tw : tensor<f32>, tensor<f32>
}
