// RUN: mlir-opt %s --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// Ops no other library schedules get a thread loop over their first loop when it is
// parallel and has at least @num_threads (2) iterations: a batch-norm statistic (channels
// first, images and pixels reduced), an elementwise op, the forward max pool.
// CHECK-LABEL: func.func @channel_sums
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "reduction"]
// CHECK-LABEL: func.func @relu
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK-LABEL: func.func @max_pool
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.pooling_nchw_max
// Left alone: a reduction first, a single iteration, no loops at all.
// CHECK-LABEL: func.func @total
// CHECK-NOT:   scf.forall
// CHECK-LABEL: func.func @one_image
// CHECK-NOT:   scf.forall
// CHECK-LABEL: func.func @scalar
// CHECK-NOT:   scf.forall
// CHECK:       return
// Too little work for a parallel region (every loop within the box of 2^16 iterations of
// its rank): a 256x64 elementwise op (a PINN layer's) and a 64x64 broadcast stay whole.
// CHECK-LABEL: func.func @small_product
// CHECK-NOT:   scf.forall
// CHECK:       linalg.generic
// CHECK-NOT:   scf.forall
// CHECK:       return
// CHECK-LABEL: func.func @small_broadcast
// CHECK-NOT:   scf.forall
// CHECK:       linalg.broadcast
// CHECK-NOT:   scf.forall
// CHECK:       return
// A padded input (tensor.pad, as a conv's, here with a dynamic batch): its zero fill and the
// copy of its source into the interior are each split in 2 along the batch; no memref.copy
// (MLIR's row-by-row runtime copy) is left.
// CHECK-LABEL: func.func @padded
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.fill
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.copy
// CHECK-NOT:   memref.copy
// CHECK:       return
// A gather without inputs (an input gradient's flipped, transposed weights): split in 2
// along its first loop.
// CHECK-LABEL: func.func @flipped
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic
// CHECK:           memref.load
// CHECK:       return
// Data movement no other library schedules: a transpose below one block (a weight
// gradient's [KH, KW, F, C] back to FCHW) and a broadcast, each split in 2 along its
// first dim.
// CHECK-LABEL: func.func @transposed
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.transpose ins(%{{.*}} : memref<3x3x2x32xf32, {{.*}}>) outs(%{{.*}} : memref<2x32x3x3xf32, {{.*}}>)
// CHECK:       return
// CHECK-LABEL: func.func @broadcast
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.broadcast
// CHECK:       return
// The copies bufferization makes: a result sliced out of a wider buffer (a widened conv's
// columns), and one written into every other column of the result (an input gradient's
// stride phases). Each is a linalg.copy split in 2, not a memref.copy (which MLIR's runtime
// runs one element at a time, on the calling thread, for these strided layouts).
// CHECK-LABEL: func.func @sliced_back
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.copy ins(%{{.*}} : memref<1x3x6x32xf32, strided<[612, 204, 34, 1], offset: ?>>) outs(%{{.*}} : memref<1x3x6x32xf32, strided<[576, 192, 32, 1], offset: ?>>)
// CHECK-NOT:   memref.copy
// CHECK:       return
// CHECK-LABEL: func.func @interleaved
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.copy ins(%{{.*}} : memref<1x3x6x20xf32, {{.*}}>) outs(%{{.*}} : memref<1x3x6x20xf32, strided<[1440, 480, 80, 2], offset: ?>>)
// CHECK-NOT:   memref.copy
// CHECK:       return
// A dynamic first loop (a dynamic batch: [B*T, C], [B, T, C]) is split in 2 when the
// last loop, a row, has at least 64 iterations, each part a dynamic number of rows: an
// elementwise op (gelu's over ?x1536), a row's reduction (layer norm's statistics), the
// same over batch x tokens.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         affine.min
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<?x1536xf32, strided<[1536, 1], offset: ?>>)
// CHECK:       return
// CHECK-LABEL: func.func @dynamic_row_sums
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:       return
// CHECK-LABEL: func.func @dynamic_tokens
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<?x4x96xf32, {{.*}}>)
// CHECK:       return
// Too little work per row to split unknown rows: one loop (a per-row statistic), rows of 8.
// CHECK-LABEL: func.func @dynamic_statistic
// CHECK-NOT:   scf.forall
// CHECK:       return
// CHECK-LABEL: func.func @dynamic_short_rows
// CHECK-NOT:   scf.forall
// CHECK:       return

// An op in a sequential loop directly in a function body (attention's loop over key
// blocks) is split as one in the body itself.
// CHECK-LABEL: func.func @in_sequential_loop
// CHECK:       scf.for
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           linalg.generic
// CHECK:       return

#nchw = affine_map<(c, n, h, w) -> (n, c, h, w)>
#c = affine_map<(c, n, h, w) -> (c)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#all = affine_map<(i) -> (i)>
#rows = affine_map<(i, j) -> (i, j)>
#none = affine_map<(i) -> ()>
#row = affine_map<(i, j) -> (i)>
#tokens = affine_map<(b, t, c) -> (b, t, c)>
builtin.module {
  func.func @channel_sums(%x: tensor<4x8x6x32xf32>) -> tensor<8xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8xf32>
    %i = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %s = linalg.generic {indexing_maps = [#nchw, #c], iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
        ins(%x : tensor<4x8x6x32xf32>) outs(%i : tensor<8xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    func.return %s : tensor<8xf32>
  }
  func.func @relu(%x: tensor<4x8x6x32xf32>) -> tensor<4x8x6x32xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8x6x32xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : tensor<4x8x6x32xf32>) outs(%e : tensor<4x8x6x32xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.maximumf %a, %z : f32
      linalg.yield %r : f32
    } -> tensor<4x8x6x32xf32>
    func.return %y : tensor<4x8x6x32xf32>
  }
  func.func @max_pool(%x: tensor<4x8x9x9xf32>) -> tensor<4x8x4x4xf32> {
    %ninf = arith.constant 0xFF800000 : f32
    %e = tensor.empty() : tensor<4x8x4x4xf32>
    %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x8x4x4xf32>) -> tensor<4x8x4x4xf32>
    %k = tensor.empty() : tensor<3x3xf32>
    %y = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
        ins(%x, %k : tensor<4x8x9x9xf32>, tensor<3x3xf32>) outs(%i : tensor<4x8x4x4xf32>) -> tensor<4x8x4x4xf32>
    func.return %y : tensor<4x8x4x4xf32>
  }
  func.func @total(%x: tensor<64xf32>) -> tensor<f32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<f32>
    %i = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %s = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]}
        ins(%x : tensor<64xf32>) outs(%i : tensor<f32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    } -> tensor<f32>
    func.return %s : tensor<f32>
  }
  func.func @one_image(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
    %e = tensor.empty() : tensor<1x64xf32>
    %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    } -> tensor<1x64xf32>
    func.return %y : tensor<1x64xf32>
  }
  func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
    %e = tensor.empty() : tensor<f32>
    %y = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
        ins(%x : tensor<f32>) outs(%e : tensor<f32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    } -> tensor<f32>
    func.return %y : tensor<f32>
  }
  func.func @small_product(%x: tensor<256x64xf32>, %y: tensor<256x64xf32>) -> tensor<256x64xf32> {
    %e = tensor.empty() : tensor<256x64xf32>
    %p = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
        ins(%x, %y : tensor<256x64xf32>, tensor<256x64xf32>) outs(%e : tensor<256x64xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.mulf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<256x64xf32>
    func.return %p : tensor<256x64xf32>
  }
  func.func @small_broadcast(%b: tensor<64xf32>) -> tensor<64x64xf32> {
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.broadcast ins(%b : tensor<64xf32>) outs(%e : tensor<64x64xf32>) dimensions = [0]
    func.return %t : tensor<64x64xf32>
  }
  func.func @padded(%x: tensor<?x3x6x6xf32>) -> tensor<?x3x8x8xf32> {
    %z = arith.constant 0.0 : f32
    %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %z : f32
    } : tensor<?x3x6x6xf32> to tensor<?x3x8x8xf32>
    func.return %p : tensor<?x3x8x8xf32>
  }
  func.func @flipped(%w: tensor<4x32x3x3xf32>) -> tensor<32x4x3x3xf32> {
    %e = tensor.empty() : tensor<32x4x3x3xf32>
    %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        outs(%e : tensor<32x4x3x3xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %k = linalg.index 2 : index
      %l = linalg.index 3 : index
      %two = arith.constant 2 : index
      %kf = arith.subi %two, %k : index
      %lf = arith.subi %two, %l : index
      %v = tensor.extract %w[%j, %i, %kf, %lf] : tensor<4x32x3x3xf32>
      linalg.yield %v : f32
    } -> tensor<32x4x3x3xf32>
    func.return %f : tensor<32x4x3x3xf32>
  }
  func.func @transposed(%w: tensor<3x3x4x32xf32>) -> tensor<4x32x3x3xf32> {
    %e = tensor.empty() : tensor<4x32x3x3xf32>
    %t = linalg.transpose ins(%w : tensor<3x3x4x32xf32>) outs(%e : tensor<4x32x3x3xf32>) permutation = [2, 3, 0, 1]
    func.return %t : tensor<4x32x3x3xf32>
  }
  func.func @broadcast(%b: tensor<512xf32>) -> tensor<4x512xf32> {
    %e = tensor.empty() : tensor<4x512xf32>
    %t = linalg.broadcast ins(%b : tensor<512xf32>) outs(%e : tensor<4x512xf32>) dimensions = [0]
    func.return %t : tensor<4x512xf32>
  }
  func.func @sliced_back(%x: tensor<2x3x6x34xf32>) -> tensor<2x3x6x32xf32> {
    %e = tensor.empty() : tensor<2x3x6x34xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : tensor<2x3x6x34xf32>) outs(%e : tensor<2x3x6x34xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    } -> tensor<2x3x6x34xf32>
    %s = tensor.extract_slice %y[0, 0, 0, 0] [2, 3, 6, 32] [1, 1, 1, 1] : tensor<2x3x6x34xf32> to tensor<2x3x6x32xf32>
    func.return %s : tensor<2x3x6x32xf32>
  }
  func.func @interleaved(%x: tensor<2x3x6x20xf32>) -> tensor<2x3x12x40xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x3x12x40xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x12x40xf32>) -> tensor<2x3x12x40xf32>
    %i = tensor.insert_slice %x into %f[0, 0, 0, 0] [2, 3, 6, 20] [1, 1, 2, 2] : tensor<2x3x6x20xf32> into tensor<2x3x12x40xf32>
    func.return %i : tensor<2x3x12x40xf32>
  }
  func.func @dynamic_rows(%x: tensor<?x1536xf32>) -> tensor<?x1536xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x1536xf32>
    %e = tensor.empty(%n) : tensor<?x1536xf32>
    %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x1536xf32>) outs(%e : tensor<?x1536xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<?x1536xf32>
    func.return %y : tensor<?x1536xf32>
  }
  func.func @dynamic_row_sums(%x: tensor<?x384xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %n = tensor.dim %x, %c0 : tensor<?x384xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %i = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %s = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<?x384xf32>) outs(%i : tensor<?xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    } -> tensor<?xf32>
    func.return %s : tensor<?xf32>
  }
  func.func @dynamic_tokens(%x: tensor<?x4x96xf32>, %y: tensor<?x4x96xf32>) -> tensor<?x4x96xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x4x96xf32>
    %e = tensor.empty(%n) : tensor<?x4x96xf32>
    %s = linalg.generic {indexing_maps = [#tokens, #tokens, #tokens], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%x, %y : tensor<?x4x96xf32>, tensor<?x4x96xf32>) outs(%e : tensor<?x4x96xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<?x4x96xf32>
    func.return %s : tensor<?x4x96xf32>
  }
  func.func @dynamic_statistic(%x: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %y = linalg.generic {indexing_maps = [#all, #all], iterator_types = ["parallel"]}
        ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.sqrt %a : f32
      linalg.yield %r : f32
    } -> tensor<?xf32>
    func.return %y : tensor<?xf32>
  }
  func.func @dynamic_short_rows(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x8xf32>
    %e = tensor.empty(%n) : tensor<?x8xf32>
    %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    } -> tensor<?x8xf32>
    func.return %y : tensor<?x8xf32>
  }
  func.func @in_sequential_loop(%x: tensor<4096x64xf32>, %n: index) -> tensor<4096x64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4096x64xf32>) {
      %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<4096x64xf32>) outs(%acc : tensor<4096x64xf32>) {
      ^bb0(%a: f32, %o: f32):
        %v = arith.subf %o, %a : f32
        linalg.yield %v : f32
      } -> tensor<4096x64xf32>
      scf.yield %y : tensor<4096x64xf32>
    }
    func.return %r : tensor<4096x64xf32>
  }
}
