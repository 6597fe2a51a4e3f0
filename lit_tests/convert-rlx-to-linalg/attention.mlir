// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Attention, flash-style: S = 70 keys in blocks of 32. k and v are zero-padded once to three
// whole blocks (the tail block reads no element out of bounds; its padding keys are
// masked), and one scf.for over the blocks carries the running max m, the running sum l
// and the rescaled accumulator. A block's scores are [B, H, L, 32]; no [L, S] = 8x70 (or
// 8x96) score tensor exists. GQA (4 query heads, 2 kv heads): the scores are one batched
// product per kv head, its 2 query heads' 8 rows stacked, q [2 * 2, 2 * 8, 16] times the
// key block transposed once, [4, 16, 32].
// CHECK-LABEL: func.func @attention_causal_blocks
// CHECK-NOT:   x8x70x
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:       %[[END:.*]] = arith.constant 96 : index
// CHECK:       %[[STEP:.*]] = arith.constant 32 : index
// CHECK:       %[[K:.*]] = tensor.pad %k low[0, 0, 0, 0] high[0, 0, 26, 0]
// CHECK:       %[[V:.*]] = tensor.pad %v low[0, 0, 0, 0] high[0, 0, 26, 0]
// CHECK:       scf.for %[[J0:.*]] = %[[ZERO]] to %[[END]] step %[[STEP]] iter_args({{.*}}) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8x8xf32>)
// CHECK:         tensor.extract_slice %[[K]][0, 0, %[[J0]], 0] [2, 2, 32, 16] [1, 1, 1, 1] : tensor<2x2x96x16xf32> to tensor<2x2x32x16xf32>
// CHECK:         linalg.transpose ins(%{{.*}}:tensor<4x32x16xf32>) outs(%{{.*}}:tensor<4x16x32xf32>) permutation = [0, 2, 1]
// CHECK:         tensor.collapse_shape {{.*}} into tensor<4x16x16xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%{{.*}} : tensor<4x16x32xf32>)
// CHECK:         tensor.collapse_shape {{.*}} into tensor<2x4x8x32xf32>
// The mask: padding keys (j0 + j >= 70) and later keys (j0 + j > i) score -inf.
// CHECK:         arith.cmpi sge
// CHECK:         arith.cmpi sgt
// CHECK:         arith.select
// CHECK:         math.exp
// CHECK:         tensor.extract_slice %[[V]][0, 0, %[[J0]], 0] [2, 2, 32, 8]
// CHECK:         scf.yield
// out = acc / l, lse = m + log l (a row with l = 0 gives 0 for both).
// CHECK:       arith.divf
// CHECK:       math.log
// CHECK-NOT:   x8x70x
// CHECK-NOT:   rlx.
func.func @attention_causal_blocks(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x70x16xf32>, %v: tensor<2x2x70x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8xf32>) {
  %o, %l = rlx.attention %q, %k, %v scale 0.25 is_causal true : (tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8xf32>)
  return %o, %l : tensor<2x4x8x8xf32>, tensor<2x4x8xf32>
}

// -----

// Fewer keys than a block: one block of all S keys, no padding; a dynamic batch is read
// once, before the loop.
// CHECK-LABEL: func.func @attention_one_block
// CHECK-NOT:   tensor.pad
// CHECK:       tensor.dim %q
// CHECK:       scf.for
// CHECK:         tensor.extract_slice %k[0, 0, %{{.*}}, 0] [%{{.*}}, 2, 6, 4]
// CHECK-NOT:   rlx.
func.func @attention_one_block(%q: tensor<?x2x8x4xf32>, %k: tensor<?x2x6x4xf32>, %v: tensor<?x2x6x4xf32>) -> tensor<?x2x8x4xf32> {
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<?x2x8x4xf32>, tensor<?x2x6x4xf32>, tensor<?x2x6x4xf32>) -> (tensor<?x2x8x4xf32>, tensor<?x2x8xf32>)
  return %o : tensor<?x2x8x4xf32>
}

// -----

// A bias over [L, S] (S = 70): viewed as [1, 1, L, S], zero-padded along its keys like k
// and v, read one block per iteration (broadcast dims at 0), added after the scale.
// CHECK-LABEL: func.func @attention_bias_blocks
// CHECK:       %[[B4:.*]] = tensor.expand_shape %b {{\[}}[0 : i64, 1 : i64, 2 : i64], [3 : i64]] output_shape [1, 1, 8, 70] : tensor<8x70xf32> into tensor<1x1x8x70xf32>
// CHECK:       %[[BP:.*]] = tensor.pad %[[B4]] low[0, 0, 0, 0] high[0, 0, 0, 26]
// CHECK:       scf.for %[[J0:[0-9a-z_]+]] =
// CHECK:         %[[BB:.*]] = tensor.extract_slice %[[BP]][0, 0, 0, %[[J0]]] [1, 1, 8, 32]
// CHECK:         linalg.generic
// CHECK-SAME:      affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
// CHECK-SAME:      ins(%{{.*}}, %[[BB]] : tensor<2x2x8x32xf32>, tensor<1x1x8x32xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         scf.yield
// CHECK-NOT:   rlx.
func.func @attention_bias_blocks(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x70x4xf32>, %v: tensor<2x2x70x4xf32>, %b: tensor<8x70xf32>) -> tensor<2x2x8x4xf32> {
  %o, %l = rlx.attention %q, %k, %v mask %b scale 0.5 : (tensor<2x2x8x4xf32>, tensor<2x2x70x4xf32>, tensor<2x2x70x4xf32>, tensor<8x70xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8xf32>)
  return %o : tensor<2x2x8x4xf32>
}
