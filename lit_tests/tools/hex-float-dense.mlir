// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | mlir-opt | FileCheck %s --check-prefix=UPSTREAM

// A float tensor's hexadecimal elements are bit patterns, as in MLIR: -inf, +inf, NaN and
// half's -inf read back as themselves (xDSL 0.75 alone reads them as integers converted to
// floats: 0xFF800000 as 4.29e9; rlx_mlir/ir.py's HexFloatParser). An integer tensor's hex
// elements stay integers.
// CHECK-LABEL: func.func @masks
// CHECK:         dense<0xff800000> : tensor<f32>
// CHECK:         dense<[0xfff0000000000000, 1.000000e+00, 0x7ff8000000000000, 0x7ff0000000000000]> : tensor<4xf64>
// CHECK:         dense<0xfc00> : tensor<2xf16>
// CHECK:         dense<[16, 2]> : tensor<2xi32>
// UPSTREAM-LABEL: func.func @masks
// UPSTREAM:         dense<0xFF800000> : tensor<f32>
// UPSTREAM:         dense<[0xFFF0000000000000, 1.000000e+00, 0x7FF8000000000000, 0x7FF0000000000000]> : tensor<4xf64>
// UPSTREAM:         dense<0xFC00> : tensor<2xf16>
// UPSTREAM:         dense<[16, 2]> : tensor<2xi32>
func.func @masks() -> (tensor<f32>, tensor<4xf64>, tensor<2xf16>, tensor<2xi32>) {
  %a = arith.constant dense<0xFF800000> : tensor<f32>
  %b = arith.constant dense<[0xFFF0000000000000, 1.0, 0x7FF8000000000000, 0x7FF0000000000000]> : tensor<4xf64>
  %c = arith.constant dense<0xFC00> : tensor<2xf16>
  %d = arith.constant dense<[0x10, 2]> : tensor<2xi32>
  return %a, %b, %c, %d : tensor<f32>, tensor<4xf64>, tensor<2xf16>, tensor<2xi32>
}
