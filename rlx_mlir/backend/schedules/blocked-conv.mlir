// Schedule library of the channel-blocked conv experiment (rlx_mlir/transforms/layout_blocked):
// register-blocked micro-kernels for the generics that layout_blocked.kernels tags with
// `blocked_conv`. Not part of the default pipelines: rlx_mlir.transforms.layout_blocked.compile
// runs it (entry point @blocked_conv_main) before handing the result to `optimizing-omp`,
// whose libraries then find only vector code and plain copies.
//
// `rows` (forward, input gradient; dims n, fo, oh, ow, fi, co, kh, kw, ci, with B = fi):
//   one image and one B-filter block per scf.forall iteration; ow split into chunks of
//   whole vectors then halving widths (@split_dim3_in_vector_chunks: 28 = 16 + 8 + 4 at 16
//   lanes); per chunk a W ow x B fi register tile (W accumulators of B lanes), loops
//   (oh, co, ow chunk, kh, kw, ci), so after folding the unit dims the tile is
//       acc[ow, fi] += x[ow] * w[fi]
//   one input value broadcast over B output channels per FMA. Accumulators kept across
//   kh, kw and ci (B*K*K steps), reloaded per co block.
// `block` (weight gradient; dims fo, co, kh, kw, ci, fi, n, oh, ow): one (fo, co) block pair
//   per scf.forall iteration; per (n, oh, kh, kw) a B ci x B fi register tile accumulated
//   over ow:
//       acc[ci, fi] += x[ci] * dy[fi]
//   B accumulators of B lanes, x[ci] broadcast, dy one contiguous vector; no transposes.
// Packs and unpacks are lowered to pad + expand_shape + transpose (upstream lower_pack).
module attributes {transform.with_named_sequence} {

  transform.named_sequence @split_dim3_in_vector_chunks(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.param<i64>)
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly})

  // The vectorized tile's broadcasting reads as reads plus broadcasts, canonicalized.
  transform.named_sequence @plain_transfers(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  // One ow chunk of a `rows` thread tile, `%width` columns per register tile.
  transform.named_sequence @schedule_rows_chunk(%chunk: !transform.any_op {transform.consumed},
                                                %width: !transform.param<i64> {transform.readonly}) {
    transform.sequence %chunk : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      // Loops in dim order: n, fo, oh, ow, co, kh, kw, ci (fi untiled: the lanes).
      %t, %l:8 = transform.structured.tile_using_for %c tile_sizes [1, 1, 1, %width, 0, 1, 1, 1, 1]
          interchange = [0, 1, 2, 5, 3, 6, 7, 8, 4]
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
              !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @fold_unit_dims failures(propagate) (%l#0) : (!transform.any_op) -> ()
      %tile = transform.structured.match ops{["linalg.generic"]} in %l#0 : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %tile : !transform.any_op
      transform.include @plain_transfers failures(propagate) (%l#0) : (!transform.any_op) -> ()
      // ci, kw, kh: innermost first.
      %reduction = transform.merge_handles %l#7, %l#6, %l#5 : !transform.any_op
      transform.include @hoist_accumulators failures(propagate) (%reduction) : (!transform.any_op) -> ()
      transform.apply_patterns to %l#0 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @schedule_rows(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      // At least one vector of output columns: narrower rows stay loops (correct, slow),
      // as splitting them into chunks asserts in mlir-opt 22.
      %wide = transform.match.structured failures(propagate) %g : (!transform.any_op) -> !transform.any_op {
      ^bb0(%s: !transform.any_op):
        %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
        %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
        transform.match.param.cmpi ge %ow, %lanes : !transform.param<i64>
        transform.match.structured.yield %s : !transform.any_op
      }
      %t, %forall = transform.structured.tile_using_forall %wide tile_sizes [1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %chunks, %widths = transform.include @split_dim3_in_vector_chunks failures(propagate) (%t)
          : (!transform.any_op) -> (!transform.any_op, !transform.param<i64>)
      transform.foreach %chunks, %widths : !transform.any_op, !transform.param<i64> {
      ^bb1(%chunk: !transform.any_op, %width: !transform.param<i64>):
        transform.include @schedule_rows_chunk failures(suppress) (%chunk, %width)
            : (!transform.any_op, !transform.param<i64>) -> ()
      }
    }
    transform.yield
  }

  transform.named_sequence @schedule_block(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t, %forall = transform.structured.tile_using_forall %g tile_sizes [1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      // Loops nested fo, co, n, oh, kh, kw, ow (ci, fi untiled: the BxB block); handles in
      // dim order fo, co, kh, kw, n, oh, ow. Rows outside taps: the 3 input rows and the dy
      // row a (n, oh) step reads stay in L1 across the K*K taps; with the taps outside
      // (n, oh, ow), each tap streamed the block pair's whole x and dy (860 KiB at batch 8)
      // from L3.
      %tile0, %l:7 = transform.structured.tile_using_for %t tile_sizes [1, 1, 1, 1, 0, 0, 1, 1, 1]
          interchange = [0, 1, 6, 7, 2, 3, 8, 4, 5]
          : (!transform.any_op)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
              !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @fold_unit_dims failures(propagate) (%l#0) : (!transform.any_op) -> ()
      %tile = transform.structured.match ops{["linalg.generic"]} in %l#0 : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %tile : !transform.any_op
      transform.include @plain_transfers failures(propagate) (%l#0) : (!transform.any_op) -> ()
      // Across ow only: the accumulators are loaded and stored once per (n, oh, kh, kw).
      transform.include @hoist_accumulators failures(propagate) (%l#6) : (!transform.any_op) -> ()
      transform.apply_patterns to %l#0 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @lower_packs(%root: !transform.any_op {transform.readonly}) {
    %packs = transform.structured.match ops{["linalg.pack"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %packs : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      %pack = transform.cast %p : !transform.any_op to !transform.op<"linalg.pack">
      %pad, %expand, %transpose = transform.structured.lower_pack %pack
          : (!transform.op<"linalg.pack">)
          -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    }
    %unpacks = transform.structured.match ops{["linalg.unpack"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %unpacks : !transform.any_op {
    ^bb0(%u: !transform.any_op):
      %unpack = transform.cast %u : !transform.any_op to !transform.op<"linalg.unpack">
      %empty, %transpose, %collapse, %slice = transform.structured.lower_unpack %unpack
          : (!transform.op<"linalg.unpack">)
          -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">,
              !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
    }
    transform.yield
  }

  transform.named_sequence @blocked_conv_main(%root: !transform.any_op {transform.readonly}) {
    %rows = transform.structured.match ops{["linalg.generic"]} attributes {blocked_conv = "rows"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @schedule_rows failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %blocks = transform.structured.match ops{["linalg.generic"]} attributes {blocked_conv = "block"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %blocks : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @schedule_block failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    transform.include @lower_packs failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}
