// RUN: rlx-opt %s --decompose-backward | FileCheck %s
// REQUIRES: mlir-opt
// RUN: rlx-opt %s --decompose-backward | mlir-opt > /dev/null

// The flash backward: D = rowsum(dout * out) once, then one scf.for over key blocks that
// recomputes P = exp(t - lse) from the scores, accumulates dq in place and writes each
// block's dk and dv rows; the padded dk and dv lose their padding keys at the end. The
// kv heads' gradients sum over their 2 query heads (q, dout, P and dS viewed as
// [B, Hkv, G, L, *]). No [L, S] = 8x70 tensor exists.
// CHECK-LABEL: func.func @attention_backward_blocks
// CHECK-NOT:   x8x70x
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:    ins(%do, %o : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>)
// CHECK:       tensor.expand_shape %do
// CHECK-SAME:    into tensor<2x2x2x8x8xf32>
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (tensor<2x4x8x16xf32>, tensor<2x2x128x16xf32>, tensor<2x2x128x8xf32>)
// CHECK:         math.exp
// CHECK:         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK:         tensor.insert_slice
// CHECK:         tensor.insert_slice
// CHECK:         scf.yield
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 2, 70, 16] [1, 1, 1, 1] : tensor<2x2x128x16xf32> to tensor<2x2x70x16xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 2, 70, 8] [1, 1, 1, 1] : tensor<2x2x128x8xf32> to tensor<2x2x70x8xf32>
// CHECK-NOT:   x8x70x
// CHECK-NOT:   rlx.
func.func @attention_backward_blocks(%do: tensor<2x4x8x8xf32>, %q: tensor<2x4x8x16xf32>, %k: tensor<2x2x70x16xf32>, %v: tensor<2x2x70x8xf32>, %o: tensor<2x4x8x8xf32>, %l: tensor<2x4x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>) {
  %dq, %dk, %dv = rlx.attention_backward %do, %q, %k, %v, %o, %l scale 0.25 is_causal true : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>)
  return %dq, %dk, %dv : tensor<2x4x8x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x8xf32>
}
