// RUN: rlx-opt %s -p canonicalize --split-input-file | FileCheck %s

// Two reshapes of a dynamic batch compose into one only where one reshape can state both.

// A merge and its split are the identity.
// CHECK-LABEL: func.func @merge_then_split
// CHECK-NEXT:  func.return %x : tensor<?x32x64xf32>
func.func @merge_then_split(%x: tensor<?x32x64xf32>) -> tensor<?x32x64xf32> {
  %m = rlx.reshape %x : (tensor<?x32x64xf32>) -> tensor<?x64xf32>
  %s = rlx.reshape %m : (tensor<?x64xf32>) -> tensor<?x32x64xf32>
  return %s : tensor<?x32x64xf32>
}

// -----

// Merged by 4, then split by 2: one reshape merging by 2.
// CHECK-LABEL: func.func @two_merges
// CHECK-NEXT:  %[[Y:.*]] = rlx.reshape %x : (tensor<?x4x6xf32>) -> tensor<?x2x6xf32>
// CHECK-NEXT:  func.return %[[Y]]
func.func @two_merges(%x: tensor<?x4x6xf32>) -> tensor<?x2x6xf32> {
  %m = rlx.reshape %x : (tensor<?x4x6xf32>) -> tensor<?x6xf32>
  %s = rlx.reshape %m : (tensor<?x6xf32>) -> tensor<?x2x6xf32>
  return %s : tensor<?x2x6xf32>
}

// -----

// Split by 3, then merged by 2: the batch becomes 2B/3, which no one reshape states (it
// holds only for batches divisible by 3), so both stay.
// CHECK-LABEL: func.func @no_single_reshape
// CHECK-NEXT:  %[[S:.*]] = rlx.reshape %x : (tensor<?x2xf32>) -> tensor<?x3x2xf32>
// CHECK-NEXT:  %[[M:.*]] = rlx.reshape %[[S]] : (tensor<?x3x2xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:  func.return %[[M]]
func.func @no_single_reshape(%x: tensor<?x2xf32>) -> tensor<?x3xf32> {
  %s = rlx.reshape %x : (tensor<?x2xf32>) -> tensor<?x3x2xf32>
  %m = rlx.reshape %s : (tensor<?x3x2xf32>) -> tensor<?x3xf32>
  return %m : tensor<?x3xf32>
}
