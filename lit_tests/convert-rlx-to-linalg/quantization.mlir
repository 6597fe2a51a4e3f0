// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// fake_quantize, ATen's kernel: q = roundeven(x * inv) + zp (f32 math for f32), the clamp
// as C's fmax/fmin (maxnumf/minnumf: NaN gives quant_min), y = (q' - zp) * scale, scale
// and inv = 1 / scale as f32 constants (1/0.1f rounds to 10.0f).
// CHECK-LABEL: func.func @fake_quantize_f32
// CHECK:       linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK:       ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:         %[[INV:.*]] = arith.constant 1.000000e+01 : f32
// CHECK:         %[[XS:.*]] = arith.mulf %[[X]], %[[INV]] : f32
// CHECK:         %[[R:.*]] = math.roundeven %[[XS]] : f32
// CHECK:         %[[ZP:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         %[[Q:.*]] = arith.addf %[[R]], %[[ZP]] : f32
// CHECK:         %[[LOW:.*]] = arith.constant -1.280000e+02 : f32
// CHECK:         %[[A:.*]] = arith.maxnumf %[[Q]], %[[LOW]] : f32
// CHECK:         %[[HIGH:.*]] = arith.constant 1.270000e+02 : f32
// CHECK:         %[[B:.*]] = arith.minnumf %[[A]], %[[HIGH]] : f32
// CHECK:         %[[L:.*]] = arith.subf %[[B]], %[[ZP]] : f32
// CHECK:         %[[S:.*]] = arith.constant 1.000000e-01 : f32
// CHECK:         %[[Y:.*]] = arith.mulf %[[L]], %[[S]] : f32
// CHECK:         linalg.yield %[[Y]] : f32
// CHECK-NOT:   rlx.
func.func @fake_quantize_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.fake_quantize %x scale 0.1 zero_point 3 quant_min -128 quant_max 127 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// An f64 x: the level in f64, then ATen's float product (truncf, mulf f32, extf); a
// dynamic batch.
// CHECK-LABEL: func.func @fake_quantize_f64
// CHECK:       tensor.dim %x
// CHECK:       linalg.generic
// CHECK:         math.roundeven %{{.*}} : f64
// CHECK:         %[[L:.*]] = arith.subf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[N:.*]] = arith.truncf %[[L]] : f64 to f32
// CHECK:         %[[S:.*]] = arith.constant 1.000000e-01 : f32
// CHECK:         %[[P:.*]] = arith.mulf %[[N]], %[[S]] : f32
// CHECK:         %[[Y:.*]] = arith.extf %[[P]] : f32 to f64
// CHECK:         linalg.yield %[[Y]] : f64
func.func @fake_quantize_f64(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %y = rlx.fake_quantize %x scale 0.1 quant_min 0 quant_max 255 : (tensor<?x3xf64>) -> tensor<?x3xf64>
  return %y : tensor<?x3xf64>
}

// -----

// Per channel, ATen's per-channel kernel: scale and zero_point read at the axis loop,
// inv = 1 / scale in f32, the int64 cast of q (NaN, +-inf: quant_min's level), the
// product in x's type.
// CHECK-LABEL: func.func @fake_quantize_per_channel
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:       ^bb0(%[[X:.*]]: f64, %[[S:.*]]: f32, %[[Z:.*]]: i32, %{{.*}}: f64):
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK:         %[[ZP:.*]] = arith.sitofp %[[Z]] : i32 to f64
// CHECK:         %[[INV64:.*]] = arith.extf %[[INV]] : f32 to f64
// CHECK:         %[[XS:.*]] = arith.mulf %[[X]], %[[INV64]] : f64
// CHECK:         %[[R:.*]] = math.roundeven %[[XS]] : f64
// CHECK:         %[[Q:.*]] = arith.addf %[[R]], %[[ZP]] : f64
// CHECK:         %[[S64:.*]] = arith.extf %[[S]] : f32 to f64
// CHECK:         %[[ABS:.*]] = math.absf %[[Q]] : f64
// CHECK:         %[[FITS:.*]] = arith.cmpf olt, %[[ABS]], %{{.*}} : f64
// CHECK:         %[[CAST:.*]] = arith.select %[[FITS]], %[[Q]], %{{.*}} : f64
// CHECK:         arith.maxnumf %[[CAST]]
// CHECK:         %[[C:.*]] = arith.minnumf
// CHECK:         %[[L:.*]] = arith.subf %[[C]], %[[ZP]] : f64
// CHECK:         %[[Y:.*]] = arith.mulf %[[L]], %[[S64]] : f64
// CHECK:         linalg.yield %[[Y]] : f64
func.func @fake_quantize_per_channel(%x: tensor<?x3x5xf64>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<?x3x5xf64> {
  %y = rlx.fake_quantize_per_channel %x, %s, %z axis 1 quant_min -8 quant_max 7 : (tensor<?x3x5xf64>, tensor<3xf32>, tensor<3xi32>) -> tensor<?x3x5xf64>
  return %y : tensor<?x3x5xf64>
}
