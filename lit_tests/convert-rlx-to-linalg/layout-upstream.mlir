// REQUIRES: mlir-opt
// RUN: rlx-opt %S/layout.mlir --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=FWD
// RUN: rlx-opt %S/../decompose-backward/layout.mlir --decompose-backward --convert-rlx-to-linalg --split-input-file | mlir-opt --split-input-file --verify-each | FileCheck %s --check-prefix=BWD

// Upstream MLIR 22 parses and verifies everything the layout lowerings emit (every
// function of layout.mlir and of decompose-backward/layout.mlir), with no RLX op left.

// FWD-LABEL: func.func @reshape_collapse
// FWD-LABEL: func.func @reshape_through_one_group
// FWD-LABEL: func.func @reshape_from_scalar
// FWD:         linalg.broadcast
// FWD-LABEL: func.func @reshape_to_scalar
// FWD:         linalg.generic
// FWD-LABEL: func.func @reshape_dynamic_leading
// FWD:         tensor.expand_shape
// FWD-LABEL: func.func @reshape_empty
// FWD-LABEL: func.func @permute
// FWD:         linalg.transpose
// FWD-LABEL: func.func @expand_leading_and_stretched
// FWD:         linalg.broadcast
// FWD-LABEL: func.func @slice_step
// FWD:         tensor.extract_slice
// FWD-LABEL: func.func @slice_empty
// FWD-LABEL: func.func @concat
// FWD:         tensor.insert_slice
// FWD-LABEL: func.func @split
// FWD:         tensor.extract_slice
// FWD-LABEL: func.func @split_empty_piece
// FWD-NOT:   rlx.

// BWD-LABEL: func.func @slice_backward_step
// BWD:         tensor.insert_slice
// BWD-LABEL: func.func @slice_backward_i64_dynamic_leading
// BWD-LABEL: func.func @slice_backward_empty_slice
// BWD-LABEL: func.func @forward_untouched
// BWD:         tensor.extract_slice
// BWD-NOT:   rlx.
