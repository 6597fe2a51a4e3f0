// REQUIRES: mlir-opt
// RUN: rlx-opt %S/conv2d.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=CONV
// RUN: rlx-opt %S/conv-transpose2d.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=CONVT
// RUN: rlx-opt %S/max-pool2d.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=MAX
// RUN: rlx-opt %S/avg-pool2d.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=AVG
// RUN: rlx-opt %S/matmul.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=MATMUL
// RUN: rlx-opt %S/im2col.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=IM2COL
// RUN: rlx-opt %S/max-pool2d-generic-body.mlir --convert-rlx-to-linalg --print-op-generic | mlir-opt --verify-each --linalg-generalize-named-ops | FileCheck %s --check-prefix=BODY

// Upstream MLIR 22 parses and verifies everything convert-rlx-to-linalg emits (every
// function of this directory's tests, custom and generic form), with no RLX op left.

// CONV-LABEL: func.func @conv_padded
// CONV:         linalg.conv_2d_nchw_fchw
// CONV-LABEL: func.func @conv_unpadded
// CONV-LABEL: func.func @conv_strided_dilated_rectangular
// CONV-LABEL: func.func @conv_groups
// CONV:         linalg.conv_2d_ngchw_gfchw
// CONV-LABEL: func.func @conv_depthwise
// CONV-LABEL: func.func @conv_dynamic_batch
// CONV-LABEL: func.func @conv_f64
// CONV-NOT:   rlx.

// CONVT-LABEL: func.func @convt_stride2_output_padding
// CONVT-LABEL: func.func @convt_crop
// CONVT-LABEL: func.func @convt_dilated
// CONVT-LABEL: func.func @convt_groups
// CONVT-LABEL: func.func @convt_dynamic_batch
// CONVT-LABEL: func.func @convt_f64
// CONVT-NOT:   rlx.

// MAX-LABEL: func.func @max_k3s2p1
// MAX:         linalg.pooling_nchw_max
// MAX-LABEL: func.func @max_unpadded_last_window_short
// MAX-LABEL: func.func @max_rectangular
// MAX-LABEL: func.func @max_dynamic_batch
// MAX-LABEL: func.func @max_f64
// MAX-LABEL: func.func @max_f16
// MAX-NOT:   rlx.

// AVG-LABEL: func.func @avg_include_pad
// AVG-LABEL: func.func @avg_exclude_pad
// AVG-LABEL: func.func @avg_unpadded_exclude
// AVG-LABEL: func.func @avg_rectangular
// AVG-LABEL: func.func @avg_dynamic_batch_f64
// AVG-NOT:   rlx.

// MATMUL-LABEL: func.func @matmul_2d
// MATMUL:         linalg.matmul
// MATMUL-LABEL: func.func @matmul_2d_dynamic_rows
// MATMUL-LABEL: func.func @matmul_batched
// MATMUL-LABEL: func.func @matmul_batched_dynamic_f64
// MATMUL-NOT:   rlx.

// IM2COL-LABEL: func.func @im2col_padded
// IM2COL-LABEL: func.func @im2col_strided_dilated
// IM2COL-LABEL: func.func @im2col_dynamic_batch
// IM2COL-LABEL: func.func @im2col_f64
// IM2COL-NOT:   rlx.

// Upstream reads the max pool's body from the generic form, which the backend uses: it
// must be max(out, in). Generalized, the accumulator is the block's last argument.
// BODY:       linalg.generic {{.*}}"reduction", "reduction"]
// BODY-NEXT:  ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32, %[[OUT:.*]]: f32):
// BODY-NEXT:    arith.maximumf %[[OUT]], %[[IN]] : f32
// BODY-NOT:   rlx.
