// Schedule library of the `optimizing` pipelines: linalg.matmul (static shapes), and the
// 2-D transposes that feed the transposed products (Aᵀ·B, A·Bᵀ: rlx.permute before
// rlx.matmul, as the VJPs and the importer emit them). Entry point @apply_matmul, included
// by main.mlir (see there for the conventions).
//
// matmul, large (@match_packed_*matmul: f32 or f64, M and K >= 64 or dynamic, N >= 16):
// packed operands, scheduled before the transposes so that a transpose feeding an operand
// folds into its pack (a transposed operand is the same pack with permuted dimensions; none
// is materialized). A into [M/8, K, 8] panels and B into [N/N0, K, N0] (N0 = 2 vectors of
// the element type, @pack_*matmul_register_tiles in params), padded with zeros to whole
// tiles, each pack in its own thread region. Then the result: threads over its columns,
// each thread's columns cut into column blocks (@cut_into_column_blocks), and per block its
// 8 x N0 tiles, rows outer and columns inner. Loop order and why: a block of B's panels (K
// x block width) is reused from L2 by every row tile, and one A panel (8 x K) from L1
// across the block's columns. Without the blocks, a thread re-read its whole share of B for
// every row tile, from memory once it outgrew L2 (768 x 1536 f32 at the ViT's K = 768, N =
// 3072: 4.7 MB per thread): 1576x768x3072 ran at 0.62 to 0.71 of torch.matmul, at 0.95 to
// 1.18 with the blocks (three runs, one process interleaved) (benchmarks/README.md, "Matrix
// products"). The block width follows K so that a block stays near 1 MB of f32 (half a 2 MB
// L2): 512 columns up to K = 512, 256 up to 1024, 128 deeper or dynamic; wider blocks
// re-read A less often (blocks of 128 at K = 384 ran at 0.87 to 1.04 of none). A dynamic M
// at K <= 512 keeps the thread's columns whole (@match_shallow_unpack_of_dynamic_rows).
// Within a block, per tile, the packed product's tile fused in, a k loop over the whole K
// whose accumulator starts from zeros in registers (the packed result's zero fill folded
// into its first read) and stays there (8 FMAs of one vector row each per k), written
// straight into the result: the packed result never reaches memory. (It used to: the
// product wrote [M/8, N/N0, 8, N0] tiles, unpacked by a pass of its own; fusing the product
// into the result's tiles took 2048x384x1536 from 17.8 to 12.0 ms, torch.matmul 7.4-10.7 in
// the same processes, idle.) A partial last row tile (rows no multiple of 8, a dynamic M)
// is peeled off: a whole tile computed into a buffer, its rows copied; so are the column
// tiles past a block's last whole one. Edge tiles of the packs stay loops. A deep K is
// still limited by its panels: at K = 3072 an A panel (96 KiB) and a B tile's panel (384
// KiB) both outgrow L1, and 1576x3072x768 reaches 0.70 of torch.matmul (K chunks would need
// the accumulators kept in the result between chunks, which the fused form does not do).
// The contractions are lowered to FMAs and the unit dimensions dropped here, inside the
// thread loops: left to main.mlir's last step, the broadcasts to vector<1xN> that the
// vectorized packs and the k = 1 contractions hold made lower_broadcast and
// canonicalization undo each other forever (mlir-opt out of memory).
// Measurements: benchmarks/README.md.
//
// matmul, large, with a dynamic M (batch x tokens): packed the same way; the pack pads the
// rows to whole panels, so the register tiles are static whatever M is at run time. Tiled
// in place instead, the rows' remainder tile was dynamic, and a tile with a dynamic shape
// does not vectorize (masked vectorization looped in mlir-opt 22): one 2048x384x1536
// product took 465 ms with M dynamic against 51 static; packed, 17 against 16 (idle).
//
// matmul, small: @num_threads threads (scf.forall) over n, cache tile 32x256, register
// tile 8x1, vectorize, reduction_to_contract, hoisted accumulators, outer-product FMAs.
// Rows and columns the tiles do not divide are peeled (rows: the rest a row at a time), so
// a dynamic M or 197 tokens vectorize too: 2048x48x384 with M dynamic 11.9 -> 0.8 ms,
// static 2.1 -> 0.9 ms (the accumulator now stays in registers across k; before, every k
// step read and wrote it through a temporary copy of the tile).
// Below the packed thresholds packing does not repay (measured, one process, interleaved,
// loaded 2-core host: 512x16x512 0.65 ms direct against 0.87 ms packed, 16x384x384 0.35
// against 0.62 ms; above them packing won, 512x64x512 0.41 against 0.85 ms, 384x384x16
// 0.21 against 0.99 ms, 64x512x64 0.10 against 0.12 ms).
//
// 2-D transpose: as loops it read its source with the row stride of the source in the
// inner loop, a TLB miss per element (a third of a 2048x1536x384 Aᵀ·B). Here: threads over
// the result's rows, L x L blocks (L = @f32_lanes), each one vector.transpose, as
// transpose.mlir does for rank 4 (@vectorize_blocks). Both dimensions must hold a block
// (with blocks larger than the dimensions mlir-opt 22 looped); blocks that the sizes do not
// divide fail to vectorize and stay scalar, still blocked.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @f32_lanes_x2() -> !transform.param<i64>
  transform.named_sequence @pack_matmul_register_tiles(%op: !transform.any_op {transform.consumed}) -> !transform.op<"linalg.generic">
  transform.named_sequence @pack_f64_matmul_register_tiles(%op: !transform.any_op {transform.consumed}) -> !transform.op<"linalg.generic">
  transform.named_sequence @fuse_into_register_tiles(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
  transform.named_sequence @fuse_into_f64_register_tiles(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
  transform.named_sequence @vectorize_blocks(%fa: !transform.any_op {transform.readonly})
  transform.named_sequence @vector_contractions(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly})
  transform.named_sequence @vectorize_each_static(%ops: !transform.any_op {transform.consumed})
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly})
  transform.named_sequence @peel_off_partial_tile(%loop: !transform.any_op {transform.readonly}) -> !transform.any_op

  transform.named_sequence @match_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    // A reduction of at least 2 terms: at K = 1 the register tile's k loop folds away and
    // hoisting out of it aborts mlir-opt 22 with dynamic rows. A one-term product is an
    // outer product, which the unscheduled loops vectorize.
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %k = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %k, %c2 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @schedule_matmul(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%mm: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %mm num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l0:2 = transform.structured.tile_using_for %t0 tile_sizes [0, 32, 256]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %t, %l:2 = transform.structured.tile_using_for %t1 tile_sizes [8, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      // Rows the 8-row tile does not divide (a dynamic M, or 197 tokens): the whole tiles
      // peeled from the rest, which is computed a row at a time; then the thread's last
      // partial 32-column tile peeled off. Every tile then has a static shape and
      // vectorizes, except the columns' remainder when the thread's share of the columns
      // is itself dynamic (no division of N by the thread count), which stays scalar.
      %partial = transform.include @peel_off_partial_tile failures(suppress) (%l#0) : (!transform.any_op) -> !transform.any_op
      transform.foreach %partial : !transform.any_op {
      ^bb0(%p: !transform.any_op):
        %rest = transform.structured.match ops{["linalg.matmul"]} in %p : (!transform.any_op) -> !transform.any_op
        %row, %rows = transform.structured.tile_using_for %rest tile_sizes [1, 0, 0]
            : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
      transform.include @peel_partial_tile failures(suppress) (%l0#0) : (!transform.any_op) -> ()
      // The whole tiles' slices made static (peeling left their sizes as constants).
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %tiles = transform.structured.match ops{["linalg.matmul"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.include @vectorize_each_static failures(propagate) (%tiles) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      // One-row tiles (vector<1xN> operands) dropped to rank 1 here: left to main.mlir's
      // last step, their broadcasts made lower_broadcast and canonicalization undo each
      // other forever (as the packed tiles' did, see the header).
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.drop_unit_dims_with_shape_cast
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %loops = transform.structured.match ops{["scf.for"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.include @hoist_accumulators failures(propagate) (%loops) : (!transform.any_op) -> ()
      // Drops the tensor iter_args the hoisting left unchanged, so bufferization writes the
      // accumulator tile in place instead of through a temporary copy.
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  // A product large enough to repay packing its operands (measured, see the header): M and
  // K of at least 64 and N of at least 16, with elements %bits wide. A dynamic M (batch x
  // tokens) or K (a weight gradient's sum over them) counts as large, and packed is the one
  // form whose register tiles stay static with it. A match has no "or": the sizes are
  // matched apart (@match_sizes_*), and each element width and kind of sizes is a matcher
  // of its own (@match_packed_*matmul).
  transform.named_sequence @match_packed_product(%op: !transform.any_op {transform.readonly}, %bits: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %cols = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %cols, %c16 : !transform.param<i64>
      %y = transform.match.structured.result %s[0] : (!transform.any_op) -> !transform.any_value
      %width = transform.match.structured.elemental_bitwidth %y : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %width, %bits : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // M and K of at least 64. (A dynamic size is matched as a negative one.)
  transform.named_sequence @match_sizes_static(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rows = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %k = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rows, %c64 : !transform.param<i64>
      transform.match.param.cmpi ge %k, %c64 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // A dynamic M, K of at least 64. Tiled in place instead of packed, the rows' remainder
  // tile would be dynamic and every tile would stay scalar (one 2048x384x1536 product 465
  // ms against 51).
  transform.named_sequence @match_sizes_dynamic_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rows = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %k = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi lt %rows, %c0 : !transform.param<i64>
      transform.match.param.cmpi ge %k, %c64 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // M of at least 64, a dynamic K: the weight gradient of a linear layer over batch x
  // tokens, dw = dyᵀ·x with the transpose folded into A's pack.
  transform.named_sequence @match_sizes_dynamic_reduction(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rows = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %k = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rows, %c64 : !transform.param<i64>
      transform.match.param.cmpi lt %k, %c0 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_packed_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %bits = transform.param.constant 32 : i64 -> !transform.param<i64>
    %m = transform.include @match_packed_product failures(propagate) (%op, %bits)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %r = transform.include @match_sizes_static failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }

  transform.named_sequence @match_packed_dynamic_rows_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %bits = transform.param.constant 32 : i64 -> !transform.param<i64>
    %m = transform.include @match_packed_product failures(propagate) (%op, %bits)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %r = transform.include @match_sizes_dynamic_rows failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }

  transform.named_sequence @match_packed_dynamic_reduction_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %bits = transform.param.constant 32 : i64 -> !transform.param<i64>
    %m = transform.include @match_packed_product failures(propagate) (%op, %bits)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %r = transform.include @match_sizes_dynamic_reduction failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }

  transform.named_sequence @match_packed_f64_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %bits = transform.param.constant 64 : i64 -> !transform.param<i64>
    %m = transform.include @match_packed_product failures(propagate) (%op, %bits)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %r = transform.include @match_sizes_static failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }

  transform.named_sequence @match_packed_f64_dynamic_rows_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %bits = transform.param.constant 64 : i64 -> !transform.param<i64>
    %m = transform.include @match_packed_product failures(propagate) (%op, %bits)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %r = transform.include @match_sizes_dynamic_rows failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }

  transform.named_sequence @match_packed_f64_dynamic_reduction_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %bits = transform.param.constant 64 : i64 -> !transform.param<i64>
    %m = transform.include @match_packed_product failures(propagate) (%op, %bits)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %r = transform.include @match_sizes_dynamic_reduction failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }

  // The tiles of a pack (inside thread loop %fa, tile loop %depth over K, 16 deep),
  // vectorized where whole. A dynamic K leaves a partial last tile, and then every tile's
  // shape would be dynamic: the partial tile is peeled off, so that the whole ones are
  // static, and lowered to loops at once. Vectorized, the remainder of a static K (65 = 4
  // x 16 + 1, a one-deep tile) made mlir-opt run for 40 s on one product. (A partial
  // panel, of a number of rows no multiple of 8, keeps every tile of that pack dynamic.)
  transform.named_sequence @vectorize_pack_tiles(%depth: !transform.any_op {transform.readonly},
      %fa: !transform.any_op {transform.readonly}) {
    %partial = transform.include @peel_off_partial_tile failures(suppress) (%depth)
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %partial : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      %rest = transform.structured.match ops{["linalg.pack"]} in %loop : (!transform.any_op) -> !transform.op<"linalg.pack">
      transform.structured.lower_pack %rest : (!transform.op<"linalg.pack">)
          -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    }
    // The sizes folded to constants, also the thread's share, a min over the thread index
    // that only the loop bounds show to be whole.
    transform.apply_patterns to %fa {
      transform.apply_patterns.scf.for_loop_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles = transform.structured.match ops{["linalg.pack"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_each_static failures(propagate) (%tiles) : (!transform.any_op) -> ()
    transform.yield
  }

  // The product of a matmul packed into register tiles (%p, by a @pack_*register_tiles):
  // B's panels transposed to [N/N0, K, N0]; transposes feeding the operands folded into
  // their packs; each pack tiled over the threads; the result's unpack tiled over threads
  // of columns, with the packed product of those columns and its zero fill fused in.
  // Yields the unpack's thread tile (to be cut into register tiles by the caller, whose
  // sizes depend on the element type), its thread loop, the packs' thread loops and the
  // function.
  transform.named_sequence @schedule_packed_product(%p0: !transform.op<"linalg.generic"> {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) {
    // Suppressed failures continue with empty handles: a padded edge whose fill does not
    // fuse still gets its packs and unpack lowered.
    %r:5 = transform.sequence %p0 : !transform.op<"linalg.generic"> -> !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op failures(suppress) {
    ^bb0(%p: !transform.op<"linalg.generic">):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %p2, %pb2, %un = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0]
          : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)
      %fn = transform.get_parent_op %p2 {op_name = "func.func"} : (!transform.op<"linalg.generic">) -> !transform.any_op
      // A transposed operand (Aᵀ·B, A·Bᵀ) is the same pack with permuted dimensions.
      transform.apply_patterns to %fn {
        transform.apply_patterns.tensor.fold_into_pack_and_unpack
      } : !transform.any_op
      %pa = transform.get_producer_of_operand %p2[0] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %pb3 = transform.get_producer_of_operand %p2[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %pc = transform.get_producer_of_operand %p2[2] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %init = transform.get_producer_of_operand %pc[0] : (!transform.op<"linalg.pack">) -> !transform.any_op
      %unpack = transform.get_consumers_of_result %p2[0] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.unpack">
      // The operands' packs, each in its own thread region, before the product's tiles
      // fuse their producers.
      %ta, %fta = transform.structured.tile_using_forall %pa num_threads [%threads]
            : (!transform.op<"linalg.pack">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %ta1, %lta:2 = transform.structured.tile_using_for %ta tile_sizes [1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @vectorize_pack_tiles failures(propagate) (%lta#1, %fta) : (!transform.any_op, !transform.any_op) -> ()
      %tb, %ftb = transform.structured.tile_using_forall %pb3 num_threads [%threads]
            : (!transform.op<"linalg.pack">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %tb1, %ltb:2 = transform.structured.tile_using_for %tb tile_sizes [1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @vectorize_pack_tiles failures(propagate) (%ltb#1, %ftb) : (!transform.any_op, !transform.any_op) -> ()
      // The product fused into the result's tiles: threads over column ranges of the
      // unpacked result, each computing the packed product of its columns (the packed
      // result's zero fill fused in), which its register tiles then fuse (the caller).
      %result_fill = transform.get_producer_of_operand %unpack[1] : (!transform.op<"linalg.unpack">) -> !transform.any_op
      %tu, %ftu = transform.structured.tile_using_forall %unpack num_threads [0, %threads]
            : (!transform.op<"linalg.unpack">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %fp, %ftu1 = transform.structured.fuse_into_containing_op %p2 into %ftu
          : (!transform.op<"linalg.generic">, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %fc, %ftu1b = transform.structured.fuse_into_containing_op %pc into %ftu1
          : (!transform.op<"linalg.pack">, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      // The result's zero fill, which is also the one the packed result is packed from,
      // where it fuses (not with a dynamic M: then it stays a pass of its own).
      transform.sequence %ftu1b : !transform.any_op failures(suppress) {
      ^bb0(%loop: !transform.any_op):
        %fr, %fused = transform.structured.fuse_into_containing_op %result_fill into %loop
            : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
      %ftu2 = transform.get_parent_op %tu {op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %ftu2 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.yield %tu, %ftu2, %fta, %ftb, %fn : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
    }
    transform.yield %r#0, %r#1, %r#2, %r#3, %r#4 : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
  }

  // A generic whose body is a multiply-add (a contraction).
  transform.named_sequence @match_multiply_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The packed product's tiles inside thread loop %ft: each one's k loop of one step each,
  // vectorized, its accumulator starting from zeros in registers (the packed result's zero
  // fill folded into its first read) and kept there across K.
  transform.named_sequence @product_register_tiles(%ft: !transform.any_op {transform.readonly}) {
    // The contractions only: an addmm's bias broadcast, fused as the packed result's
    // initial value, is a generic too (tiled as one, it made one 2048x384x1536 addmm 8x
    // slower).
    %g = transform.collect_matching @match_multiply_add in %ft : (!transform.any_op) -> !transform.any_op
    %t2, %lk = transform.structured.tile_using_for %g tile_sizes [0, 0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @vectorize_each_static failures(propagate) (%t2) : (!transform.any_op) -> ()
    %fills = transform.structured.match ops{["linalg.fill"]} in %ft : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_each_static failures(propagate) (%fills) : (!transform.any_op) -> ()
    transform.include @vector_contractions failures(propagate) (%ft) : (!transform.any_op) -> ()
    transform.apply_patterns to %ft {
      transform.apply_patterns.vector.drop_unit_dims_with_shape_cast
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.foreach %lk : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.include @hoist_accumulators failures(propagate) (%one) : (!transform.any_op) -> ()
    }
    // CSE first: the zero fill's write and the accumulator's read fold into each other
    // only when they name the same index values.
    transform.apply_cse to %ft : !transform.any_op
    transform.apply_patterns to %ft {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  // The rest of a packed product once its result is cut into register tiles (in thread loop
  // %ftu2): every whole unpack and fill tile vectorized, the vector code lowered to FMAs in
  // the thread loops, and the edge tiles of the packs and unpack lowered to loops.
  transform.named_sequence @finish_packed_product(
      %ftu2: !transform.any_op {transform.readonly}, %fta: !transform.any_op {transform.readonly},
      %ftb: !transform.any_op {transform.readonly}, %fn: !transform.any_op {transform.readonly}) {
    transform.sequence %fn : !transform.any_op failures(suppress) {
    ^bb0(%f: !transform.any_op):
      %tiles = transform.structured.match ops{["linalg.unpack", "linalg.fill"]} in %ftu2 : (!transform.any_op) -> !transform.any_op
      transform.include @vectorize_each_static failures(propagate) (%tiles) : (!transform.any_op) -> ()
      transform.apply_cse to %ftu2 : !transform.any_op
      transform.apply_patterns to %ftu2 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_dce to %fn : !transform.any_op
      %all = transform.merge_handles %fta, %ftb, %ftu2 : !transform.any_op
      transform.apply_patterns to %all {
        transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.vector.drop_unit_dims_with_shape_cast
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_patterns to %all {
        transform.apply_patterns.vector.lower_broadcast
        transform.apply_patterns.vector.lower_shape_cast
        transform.apply_patterns.vector.lower_transpose
      } : !transform.any_op
      // The tiles of a pack or unpack that the sizes do not divide (a padded edge) stay
      // linalg.pack/unpack, which do not bufferize: as pad, expand_shape and transpose
      // (unpack: transpose, collapse_shape, extract_slice) they become loops.
      %packs = transform.structured.match ops{["linalg.pack"]} in %fn : (!transform.any_op) -> !transform.op<"linalg.pack">
      transform.structured.lower_pack %packs : (!transform.op<"linalg.pack">)
          -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
      %unpacks = transform.structured.match ops{["linalg.unpack"]} in %fn : (!transform.any_op) -> !transform.op<"linalg.unpack">
      transform.structured.lower_unpack %unpacks : (!transform.op<"linalg.unpack">)
          -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
    }
    transform.yield
  }

  // A packed product whose result is cut into register tiles (row loop %rows and column
  // loop %cols, in a column block of thread loop %ftu), whatever their element type: the
  // partial row tile (rows no multiple of 8, a dynamic M) peeled off, and the column tiles
  // past the last whole one (a block whose width the loop cannot see to be whole: the
  // thread's last block, narrower), so the whole ones have static shapes; the product's
  // tiles vectorized (@product_register_tiles), then the rest (@finish_packed_product).
  // (Peeling the partial block instead made its first block, where alone, a slice that
  // bufferization copied: the thread's share of the result copied in and out.)
  transform.named_sequence @finish_register_tiles(%rows: !transform.any_op {transform.readonly},
      %cols: !transform.any_op {transform.readonly}, %ftu: !transform.any_op {transform.readonly}, %fta: !transform.any_op {transform.readonly},
      %ftb: !transform.any_op {transform.readonly}, %fn: !transform.any_op {transform.readonly}) {
    transform.include @peel_partial_tile failures(suppress) (%rows) : (!transform.any_op) -> ()
    transform.include @peel_partial_tile failures(suppress) (%cols) : (!transform.any_op) -> ()
    transform.apply_patterns to %ftu {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.include @product_register_tiles failures(propagate) (%ftu) : (!transform.any_op) -> ()
    transform.include @finish_packed_product failures(propagate) (%ftu, %fta, %ftb, %fn)
        : (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) -> ()
    transform.yield
  }

  // %op (a packed product's unpack, one thread's columns) tiled by blocks of %width
  // columns, with the producers of its slices (the packed product, its zero fill) fused
  // into the block loop: every row tile then reuses one block of B's panels (K x %width)
  // from L2 instead of streaming the thread's whole share of B from memory. Yields the
  // block's unpack.
  transform.named_sequence @fuse_into_column_blocks(%op: !transform.any_op {transform.consumed},
      %width: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    %tiled, %loop = transform.structured.fuse %op tile_sizes [0, %width]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield %tiled : !transform.any_op
  }

  // The unpack of a packed product (in a thread loop) whose depth K, read off the product
  // it unpacks, is static and at most %limit.
  transform.named_sequence @match_unpack_of_depth_at_most(%op: !transform.any_op {transform.readonly},
      %limit: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.unpack"] : !transform.any_op
    %product = transform.get_producer_of_operand %op[0] : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %product : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %k = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %k, %c0 : !transform.param<i64>
      transform.match.param.cmpi le %k, %limit : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }

  // Column blocks as wide as keep a block of B's panels within about 1 MB of f32 (half a
  // 2 MB L2) at the deepest K of their range: 512 columns up to K = 512, 256 up to 1024,
  // 128 beyond and for a dynamic K (1.5 MB at K = 3072). Wider blocks re-read A less
  // often (once per block). Measured: benchmarks/README.md, "Matrix products".
  transform.named_sequence @match_shallow_unpack(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %limit = transform.param.constant 512 : i64 -> !transform.param<i64>
    %m = transform.include @match_unpack_of_depth_at_most failures(propagate) (%op, %limit)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %m : !transform.any_op
  }

  // A dynamic M as well: there each block's result went through a buffer of its own
  // (copied into the thread's share, itself a buffer with a dynamic M), which cost more
  // than blocks repay at this depth (2048x384x1536 with M dynamic 0.91 of no blocks).
  transform.named_sequence @match_shallow_unpack_of_dynamic_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.include @match_shallow_unpack failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %product = transform.get_producer_of_operand %m[0] : (!transform.any_op) -> !transform.any_op
    %p = transform.match.structured failures(propagate) %product : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %panels = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi lt %panels, %c0 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_medium_unpack(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %limit = transform.param.constant 1024 : i64 -> !transform.param<i64>
    %m = transform.include @match_unpack_of_depth_at_most failures(propagate) (%op, %limit)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_deep_unpack(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.unpack"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @keep_whole_columns(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @cut_into_512_columns(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %width = transform.param.constant 512 : i64 -> !transform.param<i64>
    %block = transform.include @fuse_into_column_blocks failures(propagate) (%op, %width)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %block : !transform.any_op
  }

  transform.named_sequence @cut_into_256_columns(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %width = transform.param.constant 256 : i64 -> !transform.param<i64>
    %block = transform.include @fuse_into_column_blocks failures(propagate) (%op, %width)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %block : !transform.any_op
  }

  transform.named_sequence @cut_into_128_columns(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %width = transform.param.constant 128 : i64 -> !transform.param<i64>
    %block = transform.include @fuse_into_column_blocks failures(propagate) (%op, %width)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %block : !transform.any_op
  }

  // The thread's columns of a packed product's result (thread loop %ftu) cut into column
  // blocks of the width its depth K calls for; yields the thread loop and the block's
  // unpack.
  transform.named_sequence @cut_into_column_blocks(%ftu: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op) {
    %updated, %block = transform.foreach_match restrict_root in %ftu
        @match_shallow_unpack_of_dynamic_rows -> @keep_whole_columns,
        @match_shallow_unpack -> @cut_into_512_columns,
        @match_medium_unpack -> @cut_into_256_columns,
        @match_deep_unpack -> @cut_into_128_columns
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %updated, %block : !transform.any_op, !transform.any_op
  }

  transform.named_sequence @schedule_packed_matmul(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%mm: !transform.any_op):
      %p = transform.include @pack_matmul_register_tiles failures(propagate) (%mm)
          : (!transform.any_op) -> !transform.op<"linalg.generic">
      %tu, %ftu, %fta, %ftb, %fn = transform.include @schedule_packed_product failures(propagate) (%p)
          : (!transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %ftu2, %block = transform.include @cut_into_column_blocks failures(propagate) (%ftu)
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %tile, %rows, %cols = transform.include @fuse_into_register_tiles failures(propagate) (%block)
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @finish_register_tiles failures(propagate) (%rows, %cols, %ftu2, %fta, %ftb, %fn)
          : (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) -> ()
    }
    transform.yield
  }

  // As @schedule_packed_matmul for f64: 8 x N0 tiles with N0 = two f64 vectors (@f32_lanes
  // f64 values), the same 16 vector accumulators.
  transform.named_sequence @schedule_packed_f64_matmul(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%mm: !transform.any_op):
      %p = transform.include @pack_f64_matmul_register_tiles failures(propagate) (%mm)
          : (!transform.any_op) -> !transform.op<"linalg.generic">
      %tu, %ftu, %fta, %ftb, %fn = transform.include @schedule_packed_product failures(propagate) (%p)
          : (!transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %ftu2, %block = transform.include @cut_into_column_blocks failures(propagate) (%ftu)
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %tile, %rows, %cols = transform.include @fuse_into_f64_register_tiles failures(propagate) (%block)
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @finish_register_tiles failures(propagate) (%rows, %cols, %ftu2, %fta, %ftb, %fn)
          : (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @match_matrix_transpose(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.transpose"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %d0, %lanes : !transform.param<i64>
      transform.match.param.cmpi ge %d1, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @schedule_matrix_transpose(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%t: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %t num_threads [%threads, 0]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l:2 = transform.structured.tile_using_for %t0 tile_sizes [%lanes, %lanes]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @vectorize_blocks failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @apply_matmul(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    // Packed products first: their packs absorb the transposes that feed them, which the
    // second walk would otherwise block as transposes of their own.
    %packed = transform.foreach_match in %root
        @match_packed_matmul -> @schedule_packed_matmul,
        @match_packed_dynamic_rows_matmul -> @schedule_packed_matmul,
        @match_packed_dynamic_reduction_matmul -> @schedule_packed_matmul,
        @match_packed_f64_matmul -> @schedule_packed_f64_matmul,
        @match_packed_f64_dynamic_rows_matmul -> @schedule_packed_f64_matmul,
        @match_packed_f64_dynamic_reduction_matmul -> @schedule_packed_f64_matmul
        : (!transform.any_op) -> !transform.any_op
    %updated = transform.foreach_match in %packed
        @match_matmul -> @schedule_matmul,
        @match_matrix_transpose -> @schedule_matrix_transpose
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
