// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// Pool gradients as decompose-backward emits them, selected by shape (no tag).
// Windows that tile the input (k2 s2): the argmax as unit tiles of scalar code, then the
// rows gather vectorized 14 ow x 2 kw at a time.
// CHECK-LABEL: func.func @max_k2s2
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = []
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_write {{.*}} : vector<14x2xf32>
// Overlapping windows on an even input (k3 s2 p1): the border scans as (kh, kw) loops,
// the interior argmax in 8 lanes and its peeled 1-lane rest (rows of 9), the framed dy
// copy, and the interleaved gather writing 8 x 2 results per row and a peeled 2 x 2 rest.
// CHECK-LABEL: func.func @max_k3s2p1_even
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.store {{.*}} : memref<1x1x1x8xi32, {{.*}}>, vector<8xi32>
// CHECK:         vector.store {{.*}} : memref<1x1x1x1xi32, {{.*}}>, vector<1xi32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.transfer_write {{.*}} : vector<8x2xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<2x2xf32>
// The interleaved gather one column stride wide (k1 s1x2 on a 4x2 input, W == S_W): its
// tiles are one j wide and stay scalar loops. Vectorized, their vector<2x1> values made
// main.mlir's shape_cast lowering and canonicalization rewrite each other forever.
// CHECK-LABEL: func.func @max_k1s1x2_one_column
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         vector.store {{.*}} : memref<1x1x1x1xi32, {{.*}}>, vector<1xi32>
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK-NOT:     vector.
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:      outs(%{{.*}} : memref<1x1x1x1x1x2xf32, {{.*}}>)
// CHECK:       return
// The forward average pool: its window sum (a windowed generic) is left alone; so are, at
// this size (2x3x4x4, too little work for a parallel region: threads.mlir), the sum's zero
// init and the division (a generic without inputs).
// CHECK-LABEL: func.func @avg_forward
// CHECK-NOT:   scf.forall
// CHECK:       linalg.fill
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT:     ins(
// CHECK:           arith.divf
// CHECK-NOT:   scf.forall
// CHECK:       return

builtin.module {
  func.func @max_k2s2(%x: tensor<2x3x28x28xf32>, %dy: tensor<2x3x14x14xf32>) -> tensor<2x3x28x28xf32> {
    %0 = tensor.expand_shape %x [[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] output_shape [2, 3, 14, 2, 14, 2] : tensor<2x3x28x28xf32> into tensor<2x3x14x2x14x2xf32>
    %1 = tensor.empty() : tensor<2x3x14x14xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1, d3, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 1, d3, 1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %0, %0, %0 : tensor<2x3x14x2x14x2xf32>, tensor<2x3x14x2x14x2xf32>, tensor<2x3x14x2x14x2xf32>, tensor<2x3x14x2x14x2xf32>) outs(%1 : tensor<2x3x14x14xi32>) {
    ^bb0(%3: f32, %4: f32, %5: f32, %6: f32, %7: i32):
      %8 = arith.constant 0 : i32
      %9 = arith.cmpf ogt, %4, %3 : f32
      %10 = arith.cmpf uno, %4, %4 : f32
      %11 = arith.ori %9, %10 : i1
      %12 = arith.constant 1 : i32
      %13 = arith.select %11, %12, %8 : i32
      %14 = arith.select %11, %4, %3 : f32
      %15 = arith.cmpf ogt, %5, %14 : f32
      %16 = arith.cmpf uno, %5, %5 : f32
      %17 = arith.ori %15, %16 : i1
      %18 = arith.constant 2 : i32
      %19 = arith.select %17, %18, %13 : i32
      %20 = arith.select %17, %5, %14 : f32
      %21 = arith.cmpf ogt, %6, %20 : f32
      %22 = arith.cmpf uno, %6, %6 : f32
      %23 = arith.ori %21, %22 : i1
      %24 = arith.constant 3 : i32
      %25 = arith.select %23, %24, %19 : i32
      linalg.yield %25 : i32
    } -> tensor<2x3x14x14xi32>
    %26 = tensor.empty() : tensor<2x3x14x2x14x2xf32>
    %27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%dy, %2 : tensor<2x3x14x14xf32>, tensor<2x3x14x14xi32>) outs(%26 : tensor<2x3x14x2x14x2xf32>) {
    ^bb0(%28: f32, %29: i32, %30: f32):
      %31 = linalg.index 3 : index
      %32 = linalg.index 5 : index
      %33 = arith.constant 2 : index
      %34 = arith.muli %31, %33 : index
      %35 = arith.addi %34, %32 : index
      %36 = arith.index_cast %35 : index to i32
      %37 = arith.cmpi eq, %29, %36 : i32
      %38 = arith.constant 0.000000e+00 : f32
      %39 = arith.select %37, %28, %38 : f32
      linalg.yield %39 : f32
    } -> tensor<2x3x14x2x14x2xf32>
    %dx = tensor.collapse_shape %27 [[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<2x3x14x2x14x2xf32> into tensor<2x3x28x28xf32>
    func.return %dx : tensor<2x3x28x28xf32>
  }
  func.func @max_k3s2p1_even(%x: tensor<2x3x20x20xf32>, %dy: tensor<2x3x10x10xf32>) -> tensor<2x3x20x20xf32> {
    %0 = tensor.empty() : tensor<2x3x11x11xi32>
    %1 = tensor.extract_slice %0[0, 0, 10, 0] [2, 3, 1, 11] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x1x11xi32>
    %2 = arith.constant -1 : i32
    %3 = linalg.fill ins(%2 : i32) outs(%1 : tensor<2x3x1x11xi32>) -> tensor<2x3x1x11xi32>
    %4 = tensor.insert_slice %3 into %0[0, 0, 10, 0] [2, 3, 1, 11] [1, 1, 1, 1] : tensor<2x3x1x11xi32> into tensor<2x3x11x11xi32>
    %5 = tensor.extract_slice %4[0, 0, 0, 10] [2, 3, 10, 1] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x10x1xi32>
    %6 = arith.constant -1 : i32
    %7 = linalg.fill ins(%6 : i32) outs(%5 : tensor<2x3x10x1xi32>) -> tensor<2x3x10x1xi32>
    %8 = tensor.insert_slice %7 into %4[0, 0, 0, 10] [2, 3, 10, 1] [1, 1, 1, 1] : tensor<2x3x10x1xi32> into tensor<2x3x11x11xi32>
    %9 = tensor.empty() : tensor<2x3x1x10xi32>
    %10 = tensor.collapse_shape %x [[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<2x3x20x20xf32> into tensor<2x3x400xf32>
    %11 = tensor.empty() : tensor<3x3xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%11 : tensor<3x3xf32>) outs(%9 : tensor<2x3x1x10xi32>) {
    ^bb0(%13: f32, %14: i32):
      %15 = linalg.index 0 : index
      %16 = linalg.index 1 : index
      %17 = linalg.index 2 : index
      %18 = linalg.index 3 : index
      %19 = linalg.index 4 : index
      %20 = linalg.index 5 : index
      %21 = arith.constant 0 : index
      %22 = arith.addi %17, %21 : index
      %23 = arith.constant 0 : index
      %24 = arith.addi %18, %23 : index
      %25 = arith.constant 2 : index
      %26 = arith.muli %22, %25 : index
      %27 = arith.addi %26, %19 : index
      %28 = arith.constant 1 : index
      %29 = arith.subi %27, %28 : index
      %30 = arith.constant 2 : index
      %31 = arith.muli %24, %30 : index
      %32 = arith.addi %31, %20 : index
      %33 = arith.constant 1 : index
      %34 = arith.subi %32, %33 : index
      %35 = arith.constant 20 : index
      %36 = arith.cmpi ult, %29, %35 : index
      %37 = arith.constant 20 : index
      %38 = arith.cmpi ult, %34, %37 : index
      %39 = arith.andi %36, %38 : i1
      %40 = arith.constant 20 : index
      %41 = arith.muli %29, %40 : index
      %42 = arith.addi %41, %34 : index
      %43 = arith.constant 0 : index
      %44 = arith.select %39, %42, %43 : index
      %45 = arith.constant -1 : i32
      %46 = arith.constant 0 : index
      %47 = arith.cmpi eq, %19, %46 : index
      %48 = arith.constant 0 : index
      %49 = arith.cmpi eq, %20, %48 : index
      %50 = arith.andi %47, %49 : i1
      %51 = arith.select %50, %45, %14 : i32
      %52 = arith.cmpi eq, %51, %45 : i32
      %53 = arith.constant 0 : index
      %54 = arith.index_cast %51 : i32 to index
      %55 = arith.select %52, %53, %54 : index
      %56 = tensor.extract %10[%15, %16, %44] : tensor<2x3x400xf32>
      %57 = tensor.extract %10[%15, %16, %55] : tensor<2x3x400xf32>
      %58 = arith.cmpf ogt, %56, %57 : f32
      %59 = arith.cmpf uno, %56, %56 : f32
      %60 = arith.ori %58, %59 : i1
      %61 = arith.ori %52, %60 : i1
      %62 = arith.andi %39, %61 : i1
      %63 = arith.index_cast %44 : index to i32
      %64 = arith.select %62, %63, %51 : i32
      linalg.yield %64 : i32
    } -> tensor<2x3x1x10xi32>
    %65 = tensor.insert_slice %12 into %8[0, 0, 0, 0] [2, 3, 1, 10] [1, 1, 1, 1] : tensor<2x3x1x10xi32> into tensor<2x3x11x11xi32>
    %66 = tensor.empty() : tensor<2x3x9x1xi32>
    %67 = tensor.collapse_shape %x [[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<2x3x20x20xf32> into tensor<2x3x400xf32>
    %68 = tensor.empty() : tensor<3x3xf32>
    %69 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%68 : tensor<3x3xf32>) outs(%66 : tensor<2x3x9x1xi32>) {
    ^bb0(%70: f32, %71: i32):
      %72 = linalg.index 0 : index
      %73 = linalg.index 1 : index
      %74 = linalg.index 2 : index
      %75 = linalg.index 3 : index
      %76 = linalg.index 4 : index
      %77 = linalg.index 5 : index
      %78 = arith.constant 1 : index
      %79 = arith.addi %74, %78 : index
      %80 = arith.constant 0 : index
      %81 = arith.addi %75, %80 : index
      %82 = arith.constant 2 : index
      %83 = arith.muli %79, %82 : index
      %84 = arith.addi %83, %76 : index
      %85 = arith.constant 1 : index
      %86 = arith.subi %84, %85 : index
      %87 = arith.constant 2 : index
      %88 = arith.muli %81, %87 : index
      %89 = arith.addi %88, %77 : index
      %90 = arith.constant 1 : index
      %91 = arith.subi %89, %90 : index
      %92 = arith.constant 20 : index
      %93 = arith.cmpi ult, %86, %92 : index
      %94 = arith.constant 20 : index
      %95 = arith.cmpi ult, %91, %94 : index
      %96 = arith.andi %93, %95 : i1
      %97 = arith.constant 20 : index
      %98 = arith.muli %86, %97 : index
      %99 = arith.addi %98, %91 : index
      %100 = arith.constant 0 : index
      %101 = arith.select %96, %99, %100 : index
      %102 = arith.constant -1 : i32
      %103 = arith.constant 0 : index
      %104 = arith.cmpi eq, %76, %103 : index
      %105 = arith.constant 0 : index
      %106 = arith.cmpi eq, %77, %105 : index
      %107 = arith.andi %104, %106 : i1
      %108 = arith.select %107, %102, %71 : i32
      %109 = arith.cmpi eq, %108, %102 : i32
      %110 = arith.constant 0 : index
      %111 = arith.index_cast %108 : i32 to index
      %112 = arith.select %109, %110, %111 : index
      %113 = tensor.extract %67[%72, %73, %101] : tensor<2x3x400xf32>
      %114 = tensor.extract %67[%72, %73, %112] : tensor<2x3x400xf32>
      %115 = arith.cmpf ogt, %113, %114 : f32
      %116 = arith.cmpf uno, %113, %113 : f32
      %117 = arith.ori %115, %116 : i1
      %118 = arith.ori %109, %117 : i1
      %119 = arith.andi %96, %118 : i1
      %120 = arith.index_cast %101 : index to i32
      %121 = arith.select %119, %120, %108 : i32
      linalg.yield %121 : i32
    } -> tensor<2x3x9x1xi32>
    %122 = tensor.insert_slice %69 into %65[0, 0, 1, 0] [2, 3, 9, 1] [1, 1, 1, 1] : tensor<2x3x9x1xi32> into tensor<2x3x11x11xi32>
    %123 = tensor.extract_slice %122[0, 0, 1, 1] [2, 3, 9, 9] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x9x9xi32>
    %124 = tensor.extract_slice %x[0, 0, 1, 1] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %125 = tensor.extract_slice %x[0, 0, 1, 2] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %126 = tensor.extract_slice %x[0, 0, 1, 3] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %127 = tensor.extract_slice %x[0, 0, 2, 1] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %128 = tensor.extract_slice %x[0, 0, 2, 2] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %129 = tensor.extract_slice %x[0, 0, 2, 3] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %130 = tensor.extract_slice %x[0, 0, 3, 1] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %131 = tensor.extract_slice %x[0, 0, 3, 2] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %132 = tensor.extract_slice %x[0, 0, 3, 3] [2, 3, 9, 9] [1, 1, 2, 2] : tensor<2x3x20x20xf32> to tensor<2x3x9x9xf32>
    %133 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%124, %125, %126, %127, %128, %129, %130, %131, %132 : tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>) outs(%123 : tensor<2x3x9x9xi32>) {
    ^bb0(%134: f32, %135: f32, %136: f32, %137: f32, %138: f32, %139: f32, %140: f32, %141: f32, %142: f32, %143: i32):
      %144 = arith.constant 0 : i32
      %145 = arith.cmpf ogt, %135, %134 : f32
      %146 = arith.cmpf uno, %135, %135 : f32
      %147 = arith.ori %145, %146 : i1
      %148 = arith.constant 1 : i32
      %149 = arith.select %147, %148, %144 : i32
      %150 = arith.select %147, %135, %134 : f32
      %151 = arith.cmpf ogt, %136, %150 : f32
      %152 = arith.cmpf uno, %136, %136 : f32
      %153 = arith.ori %151, %152 : i1
      %154 = arith.constant 2 : i32
      %155 = arith.select %153, %154, %149 : i32
      %156 = arith.select %153, %136, %150 : f32
      %157 = arith.cmpf ogt, %137, %156 : f32
      %158 = arith.cmpf uno, %137, %137 : f32
      %159 = arith.ori %157, %158 : i1
      %160 = arith.constant 20 : i32
      %161 = arith.select %159, %160, %155 : i32
      %162 = arith.select %159, %137, %156 : f32
      %163 = arith.cmpf ogt, %138, %162 : f32
      %164 = arith.cmpf uno, %138, %138 : f32
      %165 = arith.ori %163, %164 : i1
      %166 = arith.constant 21 : i32
      %167 = arith.select %165, %166, %161 : i32
      %168 = arith.select %165, %138, %162 : f32
      %169 = arith.cmpf ogt, %139, %168 : f32
      %170 = arith.cmpf uno, %139, %139 : f32
      %171 = arith.ori %169, %170 : i1
      %172 = arith.constant 22 : i32
      %173 = arith.select %171, %172, %167 : i32
      %174 = arith.select %171, %139, %168 : f32
      %175 = arith.cmpf ogt, %140, %174 : f32
      %176 = arith.cmpf uno, %140, %140 : f32
      %177 = arith.ori %175, %176 : i1
      %178 = arith.constant 40 : i32
      %179 = arith.select %177, %178, %173 : i32
      %180 = arith.select %177, %140, %174 : f32
      %181 = arith.cmpf ogt, %141, %180 : f32
      %182 = arith.cmpf uno, %141, %141 : f32
      %183 = arith.ori %181, %182 : i1
      %184 = arith.constant 41 : i32
      %185 = arith.select %183, %184, %179 : i32
      %186 = arith.select %183, %141, %180 : f32
      %187 = arith.cmpf ogt, %142, %186 : f32
      %188 = arith.cmpf uno, %142, %142 : f32
      %189 = arith.ori %187, %188 : i1
      %190 = arith.constant 42 : i32
      %191 = arith.select %189, %190, %185 : i32
      %192 = linalg.index 2 : index
      %193 = arith.constant 1 : index
      %194 = arith.addi %192, %193 : index
      %195 = linalg.index 3 : index
      %196 = arith.constant 1 : index
      %197 = arith.addi %195, %196 : index
      %198 = arith.constant 2 : index
      %199 = arith.muli %194, %198 : index
      %200 = arith.constant 1 : index
      %201 = arith.subi %199, %200 : index
      %202 = arith.constant 2 : index
      %203 = arith.muli %197, %202 : index
      %204 = arith.constant 1 : index
      %205 = arith.subi %203, %204 : index
      %206 = arith.constant 20 : index
      %207 = arith.muli %201, %206 : index
      %208 = arith.addi %207, %205 : index
      %209 = arith.index_cast %208 : index to i32
      %210 = arith.addi %209, %191 : i32
      linalg.yield %210 : i32
    } -> tensor<2x3x9x9xi32>
    %211 = tensor.insert_slice %133 into %122[0, 0, 1, 1] [2, 3, 9, 9] [1, 1, 1, 1] : tensor<2x3x9x9xi32> into tensor<2x3x11x11xi32>
    %212 = tensor.empty() : tensor<2x3x11x11xf32>
    %213 = tensor.extract_slice %212[0, 0, 10, 0] [2, 3, 1, 11] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x1x11xf32>
    %214 = arith.constant 0.000000e+00 : f32
    %215 = linalg.fill ins(%214 : f32) outs(%213 : tensor<2x3x1x11xf32>) -> tensor<2x3x1x11xf32>
    %216 = tensor.insert_slice %215 into %212[0, 0, 10, 0] [2, 3, 1, 11] [1, 1, 1, 1] : tensor<2x3x1x11xf32> into tensor<2x3x11x11xf32>
    %217 = tensor.extract_slice %216[0, 0, 0, 10] [2, 3, 10, 1] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x10x1xf32>
    %218 = arith.constant 0.000000e+00 : f32
    %219 = linalg.fill ins(%218 : f32) outs(%217 : tensor<2x3x10x1xf32>) -> tensor<2x3x10x1xf32>
    %220 = tensor.insert_slice %219 into %216[0, 0, 0, 10] [2, 3, 10, 1] [1, 1, 1, 1] : tensor<2x3x10x1xf32> into tensor<2x3x11x11xf32>
    %221 = tensor.extract_slice %220[0, 0, 0, 0] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x10x10xf32>
    %222 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dy : tensor<2x3x10x10xf32>) outs(%221 : tensor<2x3x10x10xf32>) {
    ^bb0(%223: f32, %224: f32):
      linalg.yield %223 : f32
    } -> tensor<2x3x10x10xf32>
    %225 = tensor.insert_slice %222 into %220[0, 0, 0, 0] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x10x10xf32> into tensor<2x3x11x11xf32>
    %226 = tensor.extract_slice %225[0, 0, 0, 0] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x10x10xf32>
    %227 = tensor.extract_slice %211[0, 0, 0, 0] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x10x10xi32>
    %228 = tensor.extract_slice %225[0, 0, 0, 1] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x10x10xf32>
    %229 = tensor.extract_slice %211[0, 0, 0, 1] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x10x10xi32>
    %230 = tensor.extract_slice %225[0, 0, 1, 0] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x10x10xf32>
    %231 = tensor.extract_slice %211[0, 0, 1, 0] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x10x10xi32>
    %232 = tensor.extract_slice %225[0, 0, 1, 1] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xf32> to tensor<2x3x10x10xf32>
    %233 = tensor.extract_slice %211[0, 0, 1, 1] [2, 3, 10, 10] [1, 1, 1, 1] : tensor<2x3x11x11xi32> to tensor<2x3x10x10xi32>
    %234 = tensor.empty() : tensor<2x3x10x2x10x2xf32>
    %235 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%226, %227, %228, %229, %230, %231, %232, %233 : tensor<2x3x10x10xf32>, tensor<2x3x10x10xi32>, tensor<2x3x10x10xf32>, tensor<2x3x10x10xi32>, tensor<2x3x10x10xf32>, tensor<2x3x10x10xi32>, tensor<2x3x10x10xf32>, tensor<2x3x10x10xi32>) outs(%234 : tensor<2x3x10x2x10x2xf32>) {
    ^bb0(%236: f32, %237: i32, %238: f32, %239: i32, %240: f32, %241: i32, %242: f32, %243: i32, %244: f32):
      %245 = linalg.index 2 : index
      %246 = linalg.index 3 : index
      %247 = linalg.index 4 : index
      %248 = linalg.index 5 : index
      %249 = arith.constant 2 : index
      %250 = arith.muli %245, %249 : index
      %251 = arith.addi %250, %246 : index
      %252 = arith.constant 2 : index
      %253 = arith.muli %248, %252 : index
      %254 = arith.addi %253, %247 : index
      %255 = arith.constant 20 : index
      %256 = arith.muli %251, %255 : index
      %257 = arith.addi %256, %254 : index
      %258 = arith.index_cast %257 : index to i32
      %259 = arith.constant 0.000000e+00 : f32
      %260 = arith.cmpi eq, %237, %258 : i32
      %261 = arith.select %260, %236, %259 : f32
      %262 = arith.addf %259, %261 : f32
      %263 = arith.cmpi eq, %239, %258 : i32
      %264 = arith.select %263, %238, %259 : f32
      %265 = arith.addf %262, %264 : f32
      %266 = arith.cmpi eq, %241, %258 : i32
      %267 = arith.select %266, %240, %259 : f32
      %268 = arith.addf %265, %267 : f32
      %269 = arith.cmpi eq, %243, %258 : i32
      %270 = arith.select %269, %242, %259 : f32
      %271 = arith.addf %268, %270 : f32
      linalg.yield %271 : f32
    } -> tensor<2x3x10x2x10x2xf32>
    %dx = tensor.collapse_shape %235 [[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<2x3x10x2x10x2xf32> into tensor<2x3x20x20xf32>
    func.return %dx : tensor<2x3x20x20xf32>
  }
  func.func @max_k1s1x2_one_column(%x: tensor<1x2x4x2xf32>, %dy: tensor<1x2x4x1xf32>) -> tensor<1x2x4x2xf32> {
    %0 = tensor.empty() : tensor<1x2x4x1xi32>
    %1 = tensor.extract_slice %0[0, 0, 0, 0] [1, 2, 4, 1] [1, 1, 1, 1] : tensor<1x2x4x1xi32> to tensor<1x2x4x1xi32>
    %2 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 1] [1, 1, 1, 2] : tensor<1x2x4x2xf32> to tensor<1x2x4x1xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x2x4x1xf32>) outs(%1 : tensor<1x2x4x1xi32>) {
    ^bb0(%4: f32, %5: i32):
      %6 = arith.constant 0 : i32
      %7 = linalg.index 2 : index
      %8 = arith.constant 0 : index
      %9 = arith.addi %7, %8 : index
      %10 = linalg.index 3 : index
      %11 = arith.addi %10, %8 : index
      %12 = arith.constant 1 : index
      %13 = arith.muli %9, %12 : index
      %14 = arith.subi %13, %8 : index
      %15 = arith.constant 2 : index
      %16 = arith.muli %11, %15 : index
      %17 = arith.subi %16, %8 : index
      %18 = arith.muli %14, %15 : index
      %19 = arith.addi %18, %17 : index
      %20 = arith.index_cast %19 : index to i32
      %21 = arith.addi %20, %6 : i32
      linalg.yield %21 : i32
    } -> tensor<1x2x4x1xi32>
    %22 = tensor.insert_slice %3 into %0[0, 0, 0, 0] [1, 2, 4, 1] [1, 1, 1, 1] : tensor<1x2x4x1xi32> into tensor<1x2x4x1xi32>
    %23 = tensor.extract_slice %dy[0, 0, 0, 0] [1, 2, 4, 1] [1, 1, 1, 1] : tensor<1x2x4x1xf32> to tensor<1x2x4x1xf32>
    %24 = tensor.extract_slice %22[0, 0, 0, 0] [1, 2, 4, 1] [1, 1, 1, 1] : tensor<1x2x4x1xi32> to tensor<1x2x4x1xi32>
    %25 = tensor.empty() : tensor<1x2x4x1x1x2xf32>
    %26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%23, %24 : tensor<1x2x4x1xf32>, tensor<1x2x4x1xi32>) outs(%25 : tensor<1x2x4x1x1x2xf32>) {
    ^bb0(%27: f32, %28: i32, %29: f32):
      %30 = linalg.index 2 : index
      %31 = linalg.index 3 : index
      %32 = linalg.index 4 : index
      %33 = linalg.index 5 : index
      %34 = arith.constant 1 : index
      %35 = arith.muli %30, %34 : index
      %36 = arith.addi %35, %31 : index
      %37 = arith.constant 2 : index
      %38 = arith.muli %33, %37 : index
      %39 = arith.addi %38, %32 : index
      %40 = arith.muli %36, %37 : index
      %41 = arith.addi %40, %39 : index
      %42 = arith.index_cast %41 : index to i32
      %43 = arith.constant 0.000000e+00 : f32
      %44 = arith.cmpi eq, %28, %42 : i32
      %45 = arith.select %44, %27, %43 : f32
      %46 = arith.addf %43, %45 : f32
      linalg.yield %46 : f32
    } -> tensor<1x2x4x1x1x2xf32>
    %dx = tensor.collapse_shape %26 [[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<1x2x4x1x1x2xf32> into tensor<1x2x4x2xf32>
    func.return %dx : tensor<1x2x4x2xf32>
  }
  func.func @avg_forward(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
    %0 = tensor.empty() : tensor<2x2xf32>
    %1 = tensor.empty() : tensor<2x3x4x4xf32>
    %2 = arith.constant 0.000000e+00 : f32
    %3 = linalg.fill ins(%2 : f32) outs(%1 : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %0 : tensor<2x3x8x8xf32>, tensor<2x2xf32>) outs(%3 : tensor<2x3x4x4xf32>) {
    ^bb0(%5: f32, %6: f32, %7: f32):
      %8 = arith.addf %7, %5 : f32
      linalg.yield %8 : f32
    } -> tensor<2x3x4x4xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%4 : tensor<2x3x4x4xf32>) {
    ^bb0(%9: f32):
      %10 = arith.constant 4.000000e+00 : f32
      %11 = arith.divf %9, %10 : f32
      linalg.yield %11 : f32
    } -> tensor<2x3x4x4xf32>
    func.return %y : tensor<2x3x4x4xf32>
  }
}
