// RUN: rlx-opt %s --decompose-backward | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --decompose-backward | mlir-opt > /dev/null

// The flash backward: D = rowsum(dout * out) once, then one scf.for over key blocks that
// recomputes P = exp(t - lse) from the scores, accumulates dq in place and writes each
// block's dk and dv rows; the padded dk and dv lose their padding keys at the end. Every
// block contraction is a batched product over the B * Hkv = 4 kv heads, each kv head's
// 2 query heads' rows stacked ([4, 2 * 8, *]): scores = q . kᵀ, dv = Pᵀ . dout,
// dp = dout . vᵀ, dq += dS . k, dk = dSᵀ . q, with kᵀ, vᵀ, Pᵀ and dSᵀ transposed once per
// block so that each product reads contiguous rows. No [L, S] = 8x70 tensor exists.
// CHECK-LABEL: func.func @attention_backward_blocks
// CHECK-NOT:   x8x70x
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%do, %o : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>)
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (tensor<2x4x8x16xf32>, tensor<2x2x96x16xf32>, tensor<2x2x96x8xf32>)
// CHECK:         linalg.transpose ins(%{{.*}}:tensor<4x32x16xf32>) outs(%{{.*}}:tensor<4x16x32xf32>) permutation = [0, 2, 1]
// CHECK:         linalg.generic {indexing_maps = [[BMM:\[affine_map<\(d0, d1, d2, d3\) -> \(d0, d1, d3\)>, affine_map<\(d0, d1, d2, d3\) -> \(d0, d3, d2\)>, affine_map<\(d0, d1, d2, d3\) -> \(d0, d1, d2\)>\]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4x16x16xf32>, tensor<4x16x32xf32>) outs(%{{.*}} : tensor<4x16x32xf32>)
// CHECK:         math.exp
// CHECK:         linalg.transpose ins(%{{.*}}:tensor<4x16x32xf32>) outs(%{{.*}}:tensor<4x32x16xf32>) permutation = [0, 2, 1]
// CHECK:         linalg.generic {indexing_maps = [[BMM]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4x32x16xf32>, tensor<4x16x8xf32>) outs(%{{.*}} : tensor<4x32x8xf32>)
// CHECK:         linalg.transpose ins(%{{.*}}:tensor<4x32x8xf32>) outs(%{{.*}}:tensor<4x8x32xf32>) permutation = [0, 2, 1]
// CHECK:         linalg.generic {indexing_maps = [[BMM]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4x16x8xf32>, tensor<4x8x32xf32>) outs(%{{.*}} : tensor<4x16x32xf32>)
// CHECK:         linalg.generic {indexing_maps = [[BMM]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4x16x32xf32>, tensor<4x32x16xf32>) outs(%{{.*}} : tensor<4x16x16xf32>)
// CHECK:         linalg.transpose ins(%{{.*}}:tensor<4x16x32xf32>) outs(%{{.*}}:tensor<4x32x16xf32>) permutation = [0, 2, 1]
// CHECK:         linalg.generic {indexing_maps = [[BMM]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4x32x16xf32>, tensor<4x16x16xf32>) outs(%{{.*}} : tensor<4x32x16xf32>)
// CHECK:         tensor.insert_slice
// CHECK:         tensor.insert_slice
// CHECK:         scf.yield
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 2, 70, 16] [1, 1, 1, 1] : tensor<2x2x96x16xf32> to tensor<2x2x70x16xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 2, 70, 8] [1, 1, 1, 1] : tensor<2x2x96x8xf32> to tensor<2x2x70x8xf32>
// CHECK-NOT:   x8x70x
// CHECK-NOT:   rlx.
func.func @attention_backward_blocks(%do: tensor<2x4x8x8xf32>, %q: tensor<2x4x8x16xf32>, %k: tensor<2x2x70x16xf32>, %v: tensor<2x2x70x8xf32>, %o: tensor<2x4x8x8xf32>, %l: tensor<2x4x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>) {
  %dq, %dk, %dv = rlx.attention_backward %do, %q, %k, %v, %o, %l scale 0.25 is_causal true : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>)
  return %dq, %dk, %dv : tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>
}

// A bias [H, L, 1] broadcast over the batch and the keys: its gradient dS = p (dp - D)
// is reduced over b and j into a [1, H, L, 1] accumulator the loop carries (every block
// adds to it in place), then returned in the bias's own rank.
// CHECK-LABEL: func.func @attention_bias_gradient
// CHECK:       scf.for {{.*}} -> (tensor<2x2x5x4xf32>, tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>, tensor<1x2x5x1xf32>)
// CHECK:         linalg.generic {{.*}} affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>], iterator_types = ["reduction", "parallel", "parallel", "reduction"]
// CHECK:         scf.yield
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64]] : tensor<1x2x5x1xf32> into tensor<2x5x1xf32>
func.func @attention_bias_gradient(%do: tensor<2x2x5x4xf32>, %q: tensor<2x2x5x4xf32>, %k: tensor<2x2x7x4xf32>, %v: tensor<2x2x7x4xf32>, %o: tensor<2x2x5x4xf32>, %l: tensor<2x2x5xf32>, %b: tensor<2x5x1xf32>) -> tensor<2x5x1xf32> {
  %dq, %dk, %dv, %db = rlx.attention_backward %do, %q, %k, %v, %o, %l mask %b scale 0.5 : (tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5xf32>, tensor<2x5x1xf32>) -> (tensor<2x2x5x4xf32>, tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>, tensor<2x5x1xf32>)
  return %db : tensor<2x5x1xf32>
}
