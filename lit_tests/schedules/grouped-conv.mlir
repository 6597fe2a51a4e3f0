// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// A depthwise weight gradient as decompose-backward emits it: the padded input written as
// vector rows, then the rank-8 row partials, threads over the groups, each 12-wide row in
// an 8-wide chunk and the peeled 4-wide rest, both vectorized.
// CHECK-LABEL: func.func @depthwise_dw
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         arith.mulf {{.*}} : vector<8xf32>
// CHECK:         arith.addf {{.*}} : vector<8xf32>
// CHECK:         vector.store {{.*}} : memref<8xf32, {{.*}}>, vector<8xf32>
// CHECK:         arith.mulf {{.*}} : vector<4xf32>
// CHECK:         vector.store {{.*}} : memref<4xf32, {{.*}}>, vector<4xf32>

builtin.module {
  func.func @depthwise_dw(%x: tensor<2x4x12x12xf32>, %dy: tensor<2x4x12x12xf32>) -> tensor<4x1x3x3xf32> {
    %0 = arith.constant 0.000000e+00 : f32
    %1 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%2: index, %3: index, %4: index, %5: index):
      tensor.yield %0 : f32
    } : tensor<2x4x12x12xf32> to tensor<2x4x14x14xf32>
    %6 = tensor.expand_shape %1 [[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 4, 1, 14, 14] : tensor<2x4x14x14xf32> into tensor<2x4x1x14x14xf32>
    %7 = tensor.expand_shape %dy [[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [2, 4, 1, 12, 12] : tensor<2x4x12x12xf32> into tensor<2x4x1x12x12xf32>
    %8 = tensor.empty() : tensor<4x1x1x3x3x12xf32>
    %9 = arith.constant 0.000000e+00 : f32
    %10 = linalg.fill ins(%9 : f32) outs(%8 : tensor<4x1x1x3x3x12xf32>) -> tensor<4x1x1x3x3x12xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d0, d1, d7, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d0, d2, (d7 + d3), (d5 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%7, %6 : tensor<2x4x1x12x12xf32>, tensor<2x4x1x14x14xf32>) outs(%10 : tensor<4x1x1x3x3x12xf32>) {
    ^bb0(%12: f32, %13: f32, %14: f32):
      %15 = arith.mulf %12, %13 : f32
      %16 = arith.addf %14, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<4x1x1x3x3x12xf32>
    %17 = tensor.empty() : tensor<4x1x1x3x3xf32>
    %18 = arith.constant 0.000000e+00 : f32
    %19 = linalg.fill ins(%18 : f32) outs(%17 : tensor<4x1x1x3x3xf32>) -> tensor<4x1x1x3x3xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%11 : tensor<4x1x1x3x3x12xf32>) outs(%19 : tensor<4x1x1x3x3xf32>) {
    ^bb0(%21: f32, %22: f32):
      %23 = arith.addf %22, %21 : f32
      linalg.yield %23 : f32
    } -> tensor<4x1x1x3x3xf32>
    %dw = tensor.collapse_shape %20 [[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] : tensor<4x1x1x3x3xf32> into tensor<4x1x3x3xf32>
    func.return %dw : tensor<4x1x3x3xf32>
  }
}
