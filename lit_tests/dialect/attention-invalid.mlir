// RUN: rlx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One case per verifier diagnostic of the attention ops: the exact message and its file:line:col.

// q, k and v are [B, heads, length, head_dim].
func.func @attention_rank(%q: tensor<8x4xf32>, %k: tensor<1x1x6x4xf32>, %v: tensor<1x1x6x4xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the query to have rank 4 ([B, heads, length, head_dim]), got tensor<8x4xf32>
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<8x4xf32>, tensor<1x1x6x4xf32>, tensor<1x1x6x4xf32>) -> (tensor<1x1x8x4xf32>, tensor<1x1x8xf32>)
  return
}

// -----

// Grouped-query attention: the kv heads divide the query heads.
func.func @attention_heads(%q: tensor<1x4x8x4xf32>, %k: tensor<1x3x6x4xf32>, %v: tensor<1x3x6x4xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the key's heads (3) to divide the query's heads (4) (grouped-query attention)
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<1x4x8x4xf32>, tensor<1x3x6x4xf32>, tensor<1x3x6x4xf32>) -> (tensor<1x4x8x4xf32>, tensor<1x4x8xf32>)
  return
}

// -----

// q and k share their head dim E.
func.func @attention_head_dim(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x5xf32>, %v: tensor<1x2x6x4xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the key's head dim to be the query's, 4, got tensor<1x2x6x5xf32>
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<1x2x8x4xf32>, tensor<1x2x6x5xf32>, tensor<1x2x6x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
  return
}

// -----

// v has k's batch, heads and length.
func.func @attention_value(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x5x4xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the value to be tensor<1x2x6x4xf32> (the key's batch, heads and length), got tensor<1x2x5x4xf32>
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x5x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
  return
}

// -----

// logsumexp is [B, H, L].
func.func @attention_logsumexp(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the logsumexp to be tensor<1x2x8xf32> (the query's batch, heads and length), got tensor<1x2x6xf32>
  %o, %l = rlx.attention %q, %k, %v scale 0.5 : (tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x6xf32>)
  return
}

// -----

// A window counts keys: it is at least 0 (0: none).
func.func @attention_window(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected 'window' to be at least 0 (0: no window), got -2
  %o, %l = rlx.attention %q, %k, %v scale 0.5 window -2 : (tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
  return
}

// -----

// The backward's dk has the key's shape.
func.func @attention_backward_dk(%do: tensor<1x2x5x4xf32>, %q: tensor<1x2x5x4xf32>, %k: tensor<1x1x7x4xf32>, %l: tensor<1x2x5xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention_backward' op expected the grad_key to be tensor<1x1x7x4xf32> (the key's shape), got tensor<1x2x7x4xf32>
  %dq, %dk, %dv = rlx.attention_backward %do, %q, %k, %k, %do, %l scale 0.5 : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x1x7x4xf32>, tensor<1x1x7x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x1x7x4xf32>)
  return
}

// -----

// A mask is i1 (true: attend) or the query's float type (a bias).
func.func @attention_mask_type(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>, %m: tensor<8x6xi32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the mask to be of i1 (true: attend) or of the query's element type f32 (an additive bias), got tensor<8x6xi32>
  %o, %l = rlx.attention %q, %k, %v mask %m scale 0.5 : (tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<8x6xi32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
  return
}

// -----

// A mask broadcasts to [B, H, L, S].
func.func @attention_mask_broadcast(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>, %m: tensor<8x5xi1>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention' op expected the mask to broadcast to [B, H, L, S] = [1x2x8x6] (rank 1 to 4, each dim 1 or the full size), got tensor<8x5xi1>
  %o, %l = rlx.attention %q, %k, %v mask %m scale 0.5 : (tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<8x5xi1>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
  return
}

// -----

// The backward of a bias gives its gradient, and only then.
func.func @attention_backward_bias_grad(%do: tensor<1x2x5x4xf32>, %q: tensor<1x2x5x4xf32>, %k: tensor<1x2x7x4xf32>, %l: tensor<1x2x5xf32>, %b: tensor<5x7xf32>) {
  // CHECK: {{.*}}attention-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'rlx.attention_backward' op expected a grad_bias result exactly when the mask is a float bias, got tensor<5x7xf32> and 3 results
  %dq, %dk, %dv = rlx.attention_backward %do, %q, %k, %k, %do, %l mask %b scale 0.5 : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5xf32>, tensor<5x7xf32>) -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>)
  return
}
