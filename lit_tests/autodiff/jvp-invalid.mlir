// RUN: rlx-opt %s --jvp="func=missing" --verify-diagnostics | FileCheck %s --check-prefix=UNKNOWN
// RUN: rlx-opt %s --jvp="func=f wrt=0,2" --verify-diagnostics | FileCheck %s --check-prefix=RANGE
// RUN: rlx-opt %s --jvp="func=no_rule" --verify-diagnostics | FileCheck %s --check-prefix=RULE
// RUN: rlx-opt %s --jvp="func=f wrt=1" --verify-diagnostics | FileCheck %s --check-prefix=INTEGER
// RUN: not rlx-opt %s --jvp="func=missing" 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not rlx-opt %s --jvp="func=f wrt=x" 2>&1 | FileCheck %s --check-prefix=SYNTAX

// The options are autodiff's, and so are their diagnostics, named by the jvp pass.
// UNKNOWN: jvp-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: jvp: no function @missing in the module (it defines @f, @no_rule)
// EXIT:    error: jvp: no function @missing
// EXIT-NOT: Traceback
// SYNTAX:  error:
// SYNTAX-NOT: Traceback

// RANGE: jvp-invalid.mlir:[[# @LINE + 2]]:1: error: 'func.func' op jvp: wrt index 2 is out of range: @f has 2 arguments
// INTEGER: jvp-invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op jvp: wrt index 1 names argument tensor<4xi64>, not a floating-point tensor
func.func @f(%x: tensor<1x2x4x4xf32>, %labels: tensor<4xi64>) -> tensor<1x2x2x2xf32> {
  %y = rlx.avg_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// An op without a JVP rule fails the pass at the op, naming it.
func.func @no_rule(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // RULE: jvp-invalid.mlir:[[# @LINE + 1]]:8: error: 'arith.addf' op has no JVP rule: jvp cannot differentiate @no_rule through it
  %y = arith.addf %x, %x : tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
