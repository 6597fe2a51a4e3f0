// RUN: rlx-opt %s --decompose-backward | mlir-opt --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// The flash backward's per-block buffers (scores, weights, their gradients and transposes)
// are allocated once, before the key-block loop, not in each of its iterations.
// CHECK-LABEL: func.func @attention_backward_blocks
// CHECK:       memref.alloc() {{.*}} : memref<2x2x64x32xf32>
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32 {
// CHECK-NOT:   memref.alloc
// CHECK:       return
func.func @attention_backward_blocks(%dout: tensor<2x2x64x32xf32>, %q: tensor<2x2x64x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x32xf32>, %out: tensor<2x2x64x32xf32>, %lse: tensor<2x2x64xf32>) -> (tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>) {
  %dq, %dk, %dv = rlx.attention_backward %dout, %q, %k, %v, %out, %lse scale 0.125 is_causal true : (tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64xf32>) -> (tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>)
  return %dq, %dk, %dv : tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>
}
