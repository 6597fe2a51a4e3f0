// REQUIRES: mlir-opt
// RUN: rlx-opt %S/conv2d-backward-weight.mlir --decompose-backward --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=WEIGHT
// RUN: rlx-opt %S/conv2d-backward-weight-im2col.mlir --decompose-backward=conv-weight=im2col --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=IM2COL
// RUN: rlx-opt %S/conv2d-backward-weight-im2col.mlir --decompose-backward="conv-weight=im2col im2col-max-elements=864" --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=IM2COL
// RUN: rlx-opt %S/conv2d-backward-input.mlir --decompose-backward --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=INPUT
// RUN: rlx-opt %S/conv2d-backward-input-transpose.mlir --decompose-backward=conv-input=transpose --split-input-file | mlir-opt --split-input-file | FileCheck %s --check-prefix=TRANSPOSE

// Upstream MLIR 22 parses and verifies everything the convolution gradients decompose to
// (every function of the four decompose-backward conv tests; the functions with a forward
// rlx.conv2d also go through convert-rlx-to-linalg), with no RLX op left. The floordiv/mod
// maps of im2col and the flipped-kernel maps pass linalg's index-range verifier.

// WEIGHT-LABEL: func.func @bwd_weight_padded
// WEIGHT-LABEL: func.func @bwd_weight_unpadded
// WEIGHT-LABEL: func.func @bwd_weight_strided_dilated
// WEIGHT-LABEL: func.func @bwd_weight_stride_gt_kernel
// WEIGHT-LABEL: func.func @bwd_weight_groups
// WEIGHT-LABEL: func.func @bwd_weight_dynamic_batch
// WEIGHT-LABEL: func.func @bwd_weight_f64
// WEIGHT-LABEL: func.func @forward_conv_untouched
// WEIGHT-NOT:   rlx.

// IM2COL-LABEL: func.func @im2col_matmul
// IM2COL-LABEL: func.func @im2col_strided_dilated
// IM2COL-LABEL: func.func @im2col_groups
// IM2COL-LABEL: func.func @im2col_dynamic_batch
// IM2COL-LABEL: func.func @im2col_f64
// IM2COL-LABEL: func.func @im2col_chunked
// IM2COL-NOT:   rlx.

// INPUT-LABEL: func.func @bwd_input_padded
// INPUT-LABEL: func.func @bwd_input_strided_unreached
// INPUT-LABEL: func.func @bwd_input_dilated
// INPUT-LABEL: func.func @bwd_input_stride_gt_kernel
// INPUT-LABEL: func.func @bwd_input_negative_adjoint_padding
// INPUT-LABEL: func.func @bwd_input_groups
// INPUT-LABEL: func.func @bwd_input_dynamic_batch
// INPUT-LABEL: func.func @bwd_input_f64
// INPUT-LABEL: func.func @forward_conv_untouched
// INPUT-NOT:   rlx.

// TRANSPOSE-LABEL: func.func @transpose_padded
// TRANSPOSE-LABEL: func.func @transpose_solved_output_padding
// TRANSPOSE-LABEL: func.func @transpose_negative_adjoint_padding
// TRANSPOSE-LABEL: func.func @transpose_depthwise
// TRANSPOSE-LABEL: func.func @transpose_dynamic_batch_f64
// TRANSPOSE-NOT:   rlx.
