// RUN: not rlx-opt %s 2>&1 | FileCheck %s

// A float tensor's hexadecimal element wider than its type: mlir-opt's words and position.
func.func @wide() -> tensor<2xf32> {
  // CHECK: {{.*}}hex-float-dense-invalid.mlir:[[# @LINE + 1]]:35: error: hexadecimal float constant out of range for type
  %a = arith.constant dense<[1.0, 0x1FF800000]> : tensor<2xf32>
  return %a : tensor<2xf32>
}
