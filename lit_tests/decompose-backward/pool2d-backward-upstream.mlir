// REQUIRES: mlir-opt
// RUN: rlx-opt %S/max-pool2d-backward.mlir --decompose-backward --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=MAX
// RUN: rlx-opt %S/max-pool2d-backward-ties-all.mlir --decompose-backward=pool-ties=all --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: rlx-opt %S/avg-pool2d-backward.mlir --decompose-backward --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=AVG

// Upstream MLIR 22 parses and verifies everything the pooling gradients decompose to
// (every function of the three decompose-backward pool tests), with no RLX op left.

// MAX-LABEL: func.func @max_k3s2p1_overlapping
// MAX-LABEL: func.func @max_k2s2
// MAX-LABEL: func.func @max_stride_exceeds_kernel
// MAX-LABEL: func.func @max_rectangular
// MAX-LABEL: func.func @max_k7p3
// MAX-LABEL: func.func @max_dynamic_batch
// MAX-LABEL: func.func @max_f64
// MAX-NOT:   rlx.

// ALL-LABEL: func.func @all_k3s2p1_overlapping
// ALL-LABEL: func.func @all_k2s2
// ALL-LABEL: func.func @all_stride_exceeds_kernel
// ALL-LABEL: func.func @all_dynamic_batch_f64
// ALL-NOT:   rlx.

// AVG-LABEL: func.func @avg_k3s2p1_include_pad
// AVG-LABEL: func.func @avg_exclude_pad
// AVG-LABEL: func.func @avg_k2s2
// AVG-LABEL: func.func @avg_stride_exceeds_kernel
// AVG-LABEL: func.func @avg_rectangular
// AVG-LABEL: func.func @avg_dynamic_batch_f64
// AVG-NOT:   rlx.
