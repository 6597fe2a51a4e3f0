// RUN: rlx-opt %s --convert-rlx-to-linalg | mlir-opt --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// The flash forward's two block contractions under the `optimizing` schedule: the scores
// q . k_blockᵀ ([1 * 1 kv head, 2 * 8 rows, 64 keys]) and acc += p . v_block ([1, 16, 32])
// are batched products (batch_matmul.mlir), each 8 x 32 register tiles of FMAs with the
// accumulator in registers. No product is left as a scalar loop (no map of a batched
// product's rhs is left, printed among the aliases first), and no gather.
// CHECK-NOT:   affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @attention_gqa
// CHECK:       scf.for
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK:       vector.transfer_write {{.*}} : vector<8x32xf32>
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK:       vector.transfer_write {{.*}} : vector<8x32xf32>
// CHECK-NOT:   vector.gather
// CHECK-NOT:   linalg.batch_matmul
func.func @attention_gqa(%q: tensor<1x2x8x32xf32>, %k: tensor<1x1x128x32xf32>, %v: tensor<1x1x128x32xf32>) -> (tensor<1x2x8x32xf32>, tensor<1x2x8xf32>) {
  %o, %l = rlx.attention %q, %k, %v scale 0.25 is_causal true : (tensor<1x2x8x32xf32>, tensor<1x1x128x32xf32>, tensor<1x1x128x32xf32>) -> (tensor<1x2x8x32xf32>, tensor<1x2x8xf32>)
  return %o, %l : tensor<1x2x8x32xf32>, tensor<1x2x8xf32>
}
