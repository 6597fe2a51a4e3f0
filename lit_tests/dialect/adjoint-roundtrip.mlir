// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// The adjoint ops of the autodiff pass in their custom form: the max-pool gathers (the
// transposes of the max-pool gradients) and col2im (im2col's transpose). Defaults
// (`dilation` 1, `ceil_mode` false) are left out when printed; the generic form always
// carries them.

// g[n, c, o] = z[n, c, argmax of window o of x]: z has x's shape, g the pool's output shape.
// CHECK-LABEL: func.func @max_pool1d_gather
// CHECK:       rlx.max_pool1d_gather %{{.*}}, %{{.*}} kernel_size [3] stride [2] padding [1] : (tensor<2x3x9xf32>, tensor<2x3x9xf32>) -> tensor<2x3x5xf32>
// GENERIC-LABEL: sym_name = "max_pool1d_gather"
// GENERIC:     "rlx.max_pool1d_gather"(%{{.*}}, %{{.*}}) <{kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, ceil_mode = false}> : (tensor<2x3x9xf32>, tensor<2x3x9xf32>) -> tensor<2x3x5xf32>
func.func @max_pool1d_gather(%x: tensor<2x3x9xf32>, %z: tensor<2x3x9xf32>) -> tensor<2x3x5xf32> {
  %g = rlx.max_pool1d_gather %x, %z kernel_size [3] stride [2] padding [1] : (tensor<2x3x9xf32>, tensor<2x3x9xf32>) -> tensor<2x3x5xf32>
  return %g : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @max_pool2d_gather
// CHECK:       rlx.max_pool2d_gather %{{.*}}, %{{.*}} kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
// GENERIC-LABEL: sym_name = "max_pool2d_gather"
// GENERIC:     "rlx.max_pool2d_gather"(%{{.*}}, %{{.*}}) <{kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false}> : (tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
func.func @max_pool2d_gather(%x: tensor<?x3x8x8xf32>, %z: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %g = rlx.max_pool2d_gather %x, %z kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32>
  return %g : tensor<?x3x4x4xf32>
}

// Dilation and ceil mode given: both printed. (8 + 2 - 2 * 2 - 1) / 2 + 1 = 3.5, rounded up to 4 (the last window starts inside the padded input).
// CHECK-LABEL: func.func @max_pool2d_gather_dilated_ceil
// CHECK:       rlx.max_pool2d_gather %{{.*}}, %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] ceil_mode true : (tensor<1x2x8x8xf64>, tensor<1x2x8x8xf64>) -> tensor<1x2x4x4xf64>
// GENERIC-LABEL: sym_name = "max_pool2d_gather_dilated_ceil"
// GENERIC:     <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, ceil_mode = true}>
func.func @max_pool2d_gather_dilated_ceil(%x: tensor<1x2x8x8xf64>, %z: tensor<1x2x8x8xf64>) -> tensor<1x2x4x4xf64> {
  %g = rlx.max_pool2d_gather %x, %z kernel_size [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] ceil_mode true : (tensor<1x2x8x8xf64>, tensor<1x2x8x8xf64>) -> tensor<1x2x4x4xf64>
  return %g : tensor<1x2x4x4xf64>
}

// CHECK-LABEL: func.func @max_pool3d_gather
// CHECK:       rlx.max_pool3d_gather %{{.*}}, %{{.*}} kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x2x4x4x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
// GENERIC-LABEL: sym_name = "max_pool3d_gather"
// GENERIC:     "rlx.max_pool3d_gather"(%{{.*}}, %{{.*}}) <{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false}>
func.func @max_pool3d_gather(%x: tensor<1x2x4x4x4xf32>, %z: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %g = rlx.max_pool3d_gather %x, %z kernel_size [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] : (tensor<1x2x4x4x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %g : tensor<1x2x2x2x2xf32>
}

// The adaptive gathers carry no properties: the result type gives the output size.
// CHECK-LABEL: func.func @adaptive_max_pool1d_gather
// CHECK:       rlx.adaptive_max_pool1d_gather %{{.*}}, %{{.*}} : (tensor<2x3x10xf32>, tensor<2x3x10xf32>) -> tensor<2x3x4xf32>
// GENERIC-LABEL: sym_name = "adaptive_max_pool1d_gather"
// GENERIC:     "rlx.adaptive_max_pool1d_gather"(%{{.*}}, %{{.*}}) : (tensor<2x3x10xf32>, tensor<2x3x10xf32>) -> tensor<2x3x4xf32>
func.func @adaptive_max_pool1d_gather(%x: tensor<2x3x10xf32>, %z: tensor<2x3x10xf32>) -> tensor<2x3x4xf32> {
  %g = rlx.adaptive_max_pool1d_gather %x, %z : (tensor<2x3x10xf32>, tensor<2x3x10xf32>) -> tensor<2x3x4xf32>
  return %g : tensor<2x3x4xf32>
}

// An output larger than the input: windows overlap.
// CHECK-LABEL: func.func @adaptive_max_pool2d_gather
// CHECK:       rlx.adaptive_max_pool2d_gather %{{.*}}, %{{.*}} : (tensor<?x3x5x7xf64>, tensor<?x3x5x7xf64>) -> tensor<?x3x7x3xf64>
// GENERIC-LABEL: sym_name = "adaptive_max_pool2d_gather"
// GENERIC:     "rlx.adaptive_max_pool2d_gather"(%{{.*}}, %{{.*}}) : (tensor<?x3x5x7xf64>, tensor<?x3x5x7xf64>) -> tensor<?x3x7x3xf64>
func.func @adaptive_max_pool2d_gather(%x: tensor<?x3x5x7xf64>, %z: tensor<?x3x5x7xf64>) -> tensor<?x3x7x3xf64> {
  %g = rlx.adaptive_max_pool2d_gather %x, %z : (tensor<?x3x5x7xf64>, tensor<?x3x5x7xf64>) -> tensor<?x3x7x3xf64>
  return %g : tensor<?x3x7x3xf64>
}

// CHECK-LABEL: func.func @adaptive_max_pool3d_gather
// CHECK:       rlx.adaptive_max_pool3d_gather %{{.*}}, %{{.*}} : (tensor<1x2x4x5x6xf32>, tensor<1x2x4x5x6xf32>) -> tensor<1x2x2x2x3xf32>
// GENERIC-LABEL: sym_name = "adaptive_max_pool3d_gather"
// GENERIC:     "rlx.adaptive_max_pool3d_gather"(%{{.*}}, %{{.*}}) : (tensor<1x2x4x5x6xf32>, tensor<1x2x4x5x6xf32>) -> tensor<1x2x2x2x3xf32>
func.func @adaptive_max_pool3d_gather(%x: tensor<1x2x4x5x6xf32>, %z: tensor<1x2x4x5x6xf32>) -> tensor<1x2x2x2x3xf32> {
  %g = rlx.adaptive_max_pool3d_gather %x, %z : (tensor<1x2x4x5x6xf32>, tensor<1x2x4x5x6xf32>) -> tensor<1x2x2x2x3xf32>
  return %g : tensor<1x2x2x2x3xf32>
}

// col2im: columns [N * prod(out), C * prod(K)] -> [N, C, *in]; 1-D: out = (9 + 2 - 3) / 2 + 1 = 5, [2 * 5, 3 * 3].
// CHECK-LABEL: func.func @col2im1d
// CHECK:       rlx.col2im1d %{{.*}} kernel_size [3] stride [2] padding [1] : (tensor<10x9xf32>) -> tensor<2x3x9xf32>
// GENERIC-LABEL: sym_name = "col2im1d"
// GENERIC:     "rlx.col2im1d"(%{{.*}}) <{kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>}> : (tensor<10x9xf32>) -> tensor<2x3x9xf32>
func.func @col2im1d(%cols: tensor<10x9xf32>) -> tensor<2x3x9xf32> {
  %x = rlx.col2im1d %cols kernel_size [3] stride [2] padding [1] : (tensor<10x9xf32>) -> tensor<2x3x9xf32>
  return %x : tensor<2x3x9xf32>
}

// 2-D, im2col's geometry in roundtrip.mlir: [2 * 8 * 8, 3 * 3 * 3].
// CHECK-LABEL: func.func @col2im2d
// CHECK:       rlx.col2im2d %{{.*}} kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<128x27xf32>) -> tensor<2x3x8x8xf32>
// GENERIC-LABEL: sym_name = "col2im2d"
// GENERIC:     "rlx.col2im2d"(%{{.*}}) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}> : (tensor<128x27xf32>) -> tensor<2x3x8x8xf32>
func.func @col2im2d(%cols: tensor<128x27xf32>) -> tensor<2x3x8x8xf32> {
  %x = rlx.col2im2d %cols kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<128x27xf32>) -> tensor<2x3x8x8xf32>
  return %x : tensor<2x3x8x8xf32>
}

// Dilated and strided: out = (8 + 4 - 2 * 2 - 1) / 2 + 1 = 4 per axis, [1 * 16, 3 * 9]; dilation printed.
// CHECK-LABEL: func.func @col2im2d_dilated
// CHECK:       rlx.col2im2d %{{.*}} kernel_size [3, 3] stride [2, 2] padding [2, 2] dilation [2, 2] : (tensor<16x27xf64>) -> tensor<1x3x8x8xf64>
// GENERIC-LABEL: sym_name = "col2im2d_dilated"
// GENERIC:     dilation = array<i64: 2, 2>
func.func @col2im2d_dilated(%cols: tensor<16x27xf64>) -> tensor<1x3x8x8xf64> {
  %x = rlx.col2im2d %cols kernel_size [3, 3] stride [2, 2] padding [2, 2] dilation [2, 2] : (tensor<16x27xf64>) -> tensor<1x3x8x8xf64>
  return %x : tensor<1x3x8x8xf64>
}

// 3-D: out = 3 per axis (no padding, kernel 2, stride 1 on 4), [1 * 27, 2 * 8].
// CHECK-LABEL: func.func @col2im3d
// CHECK:       rlx.col2im3d %{{.*}} kernel_size [2, 2, 2] stride [1, 1, 1] padding [0, 0, 0] : (tensor<27x16xf32>) -> tensor<1x2x4x4x4xf32>
// GENERIC-LABEL: sym_name = "col2im3d"
// GENERIC:     "rlx.col2im3d"(%{{.*}}) <{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>}> : (tensor<27x16xf32>) -> tensor<1x2x4x4x4xf32>
func.func @col2im3d(%cols: tensor<27x16xf32>) -> tensor<1x2x4x4x4xf32> {
  %x = rlx.col2im3d %cols kernel_size [2, 2, 2] stride [1, 1, 1] padding [0, 0, 0] : (tensor<27x16xf32>) -> tensor<1x2x4x4x4xf32>
  return %x : tensor<1x2x4x4x4xf32>
}
