// RUN: not rlx-run %s -e pool 2>&1 | FileCheck %s
// RUN: rlx-compile %s --emit=linalg | FileCheck %s --check-prefix=LINALG

// bf16 verifies, but compiled code could not be called with it: refused at compile time,
// at the function, naming it and the type. The linalg stage still carries it.
// CHECK: uncallable-element-type.mlir:[[@LINE+4]]:1: error: function @pool uses the element type bf16: the native backend compiles only f16, f32 and f64 floats
// LINALG-LABEL: sym_name = "pool"
// LINALG:         "linalg.pooling_nchw_max"
// LINALG:         : (tensor<1x2x4x4xbf16>, tensor<2x2xbf16>, tensor<1x2x2x2xbf16>) -> tensor<1x2x2x2xbf16>
func.func @pool(%x: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16>
  return %y : tensor<1x2x2x2xbf16>
}
