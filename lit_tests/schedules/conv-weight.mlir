// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter --split-input-file | FileCheck %s

// The channels-last weight gradient decompose-backward emits, dwl[kh, kw, f, c] (rank 7,
// n/ho/wo reductions): threads over c, blocks of 4 output rows, 4 f x 16 c register tiles
// whose accumulators stay in registers (loop-carried vectors) over the (ho, wo) reduction.
// A one-element contraction step is a vector multiply and add (llc fuses them, see
// pipelines.py).
// CHECK-LABEL: func.func @dw
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c9 step %c4
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK:             scf.for {{.*}} iter_args({{.*}}) -> (vector<4x16xf32>)
// CHECK:               scf.for {{.*}} iter_args({{.*}}) -> (vector<4x16xf32>)
// CHECK:                 arith.mulf {{.*}} : vector<4x16xf32>
// CHECK:                 arith.addf {{.*}} : vector<4x16xf32>

#dy = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho, wo, f)>
#x = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho * 1 + kh, wo * 1 + kw, c)>
#dw = affine_map<(kh, kw, f, c, n, ho, wo) -> (kh, kw, f, c)>
func.func @dw(%dy: tensor<2x9x9x16xf32>, %x: tensor<2x11x11x32xf32>) -> tensor<3x3x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3x16x32xf32>) -> tensor<3x3x16x32xf32>
  %r = linalg.generic {indexing_maps = [#dy, #x, #dw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<2x9x9x16xf32>, tensor<2x11x11x32xf32>) outs(%acc : tensor<3x3x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x3x16x32xf32>
  return %r : tensor<3x3x16x32xf32>
}

// -----

// Stride 2: the same register tiles.
// CHECK-LABEL: func.func @dw
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         arith.mulf {{.*}} : vector<4x16xf32>

#dy = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho, wo, f)>
#x = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho * 2 + kh, wo * 2 + kw, c)>
#dw = affine_map<(kh, kw, f, c, n, ho, wo) -> (kh, kw, f, c)>
func.func @dw(%dy: tensor<2x5x5x16xf32>, %x: tensor<2x11x11x32xf32>) -> tensor<3x3x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3x16x32xf32>) -> tensor<3x3x16x32xf32>
  %r = linalg.generic {indexing_maps = [#dy, #x, #dw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<2x5x5x16xf32>, tensor<2x11x11x32xf32>) outs(%acc : tensor<3x3x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x3x16x32xf32>
  return %r : tensor<3x3x16x32xf32>
}

// -----

// Channel counts the tiles do not divide (c = 40: 20 per thread; f = 10), on 7x7 output
// planes, which @schedule_conv_weight_small_images takes: the whole (n, ho, wo) reduction
// inside each register tile (three loops carrying its accumulators), the c tiles outside
// the f tiles. The partial last c and f tiles are peeled into loops of their own, each
// with a static shape, so they vectorize too (4 c, 2 f).
// CHECK-LABEL: func.func @dw
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<4x16xf32>)
// CHECK:           scf.for %{{.*}} = %c0 to %c7 step %c1 iter_args({{.*}}) -> (vector<4x16xf32>)
// CHECK:             scf.for %{{.*}} = %c0 to %c7 step %c1 iter_args({{.*}}) -> (vector<4x16xf32>)
// CHECK:         -> (vector<2x16xf32>)
// CHECK:         -> (vector<4x4xf32>)
// CHECK:         -> (vector<2x4xf32>)

#dy = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho, wo, f)>
#x = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho * 1 + kh, wo * 1 + kw, c)>
#dw = affine_map<(kh, kw, f, c, n, ho, wo) -> (kh, kw, f, c)>
func.func @dw(%dy: tensor<2x7x7x10xf32>, %x: tensor<2x9x9x40xf32>) -> tensor<3x3x10x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x10x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3x10x40xf32>) -> tensor<3x3x10x40xf32>
  %r = linalg.generic {indexing_maps = [#dy, #x, #dw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<2x7x7x10xf32>, tensor<2x9x9x40xf32>) outs(%acc : tensor<3x3x10x40xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x3x10x40xf32>
  return %r : tensor<3x3x10x40xf32>
}
