// Schedule library of the `optimizing` pipelines: grouped and depthwise convolution
// gradients. Entry point @apply_grouped_conv.
//
// A group has few channels (one for depthwise convs), too few to vectorize along channels
// as the dense schedules do; both kernels here vectorize along a W row instead, in chunks
// of one vector (@f32_lanes) whose accumulators live in the output row (in L1):
// - the input gradient, linalg.conv_2d_ngchw_gfchw (n, g, c, oh, ow; f, kh, kw): threads
//   over g, one output row (n, g, c, oh) per step, accumulated over (f, kh, kw) from a
//   row of the padded dy times a broadcast weight;
// - the weight gradient's row partials, decompose-backward's rank-8 generic
//   rows[g, f, c, kh, kw, wo] = sum_{n, ho} dy[n, g, f, ho, wo] * x[n, g, c, ho*s + kh*d, wo + kw*d]
//   (conv_backward_grouped.GroupedConvBackwardWeightRows): threads over g, one (g, f, c)
//   per step, its KH x KW rows accumulated over (n, ho): each (n, ho) step reads a dy row
//   and the x rows it meets once, for every (kh, kw). At a column stride s > 1 there is
//   one such generic per column phase of x (a zero fill and a strided copy of x, which
//   @vectorize_padding writes as rows like a padding), each reading its phase at stride 1.
// The zero padding both read (a tensor.pad, or a linalg.fill and a tensor.insert_slice of
// the unpadded tensor) is written as vector rows too (the fill, then the copy), and each
// op's zero init is fused into its row loop.
//
// Chunks are one vector register wide: LLVM scalarizes loop-carried vectors whose length
// is not a power of two (a whole 28- or 56-wide row). When the chunk does not divide the
// row, the loop over chunks is peeled and the last, shorter chunk is vectorized on its own
// (@peel_partial_tile, @vectorize_each_static). The alternatives measured are in
// docs/schedules-notes.md.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly})
  transform.named_sequence @vectorize_each_static(%ops: !transform.any_op {transform.consumed})
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})

  // ---- matchers --------------------------------------------------------------------------

  transform.named_sequence @match_grouped_conv_input(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_ngchw_gfchw"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  // Rank 8, six parallel dims then two reductions, a mul-add body, the result indexed by
  // the first six dims: only the weight gradient's row partials have that shape (the dense
  // weight gradient is rank 7).
  transform.named_sequence @match_grouped_conv_weight_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c8 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3, 4, 5] {parallel} : !transform.any_op
      transform.match.structured.dim %s[6, 7] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {projected_permutation} : !transform.any_op
      transform.match.structured.init %s[0] {projected_permutation} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // Guards for the producers an action navigates to (match ops alone do not stop a sequence
  // outside a matcher: these are used with transform.collect_matching).
  transform.named_sequence @is_pad(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.pad"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @is_insert_slice(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.insert_slice"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @is_fill(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.fill"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @is_expand_shape(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.expand_shape"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  // ---- steps both actions use -----------------------------------------------------------

  // A 4-D linalg.fill or linalg.copy as vector rows: @num_threads threads over axis 1, a
  // loop per row.
  transform.named_sequence @vectorize_rows(%op: !transform.any_op {transform.consumed}) {
    %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
    %t0, %fa = transform.structured.tile_using_forall %op num_threads [0, %threads]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %t1, %l:3 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @fold_unit_dims failures(propagate) (%fa) : (!transform.any_op) -> ()
    %rows = transform.structured.match interface{LinalgOp} in %fa : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %rows : !transform.any_op
    transform.yield
  }

  // The zero-padded input that decompose-backward splits into groups with an
  // expand_shape (%split): a tensor.pad (rewritten as a fill of the padded shape and an
  // insert_slice of the source), or a fill and an insert_slice already, as vector rows (the
  // fill, then the copy). Leaves any other producer alone.
  transform.named_sequence @vectorize_padding(%split_or_other: !transform.any_op {transform.readonly}) {
    %split = transform.collect_matching @is_expand_shape in %split_or_other : (!transform.any_op) -> !transform.any_op
    %source = transform.get_producer_of_operand %split[0] : (!transform.any_op) -> !transform.any_op
    %pad = transform.collect_matching @is_pad in %source : (!transform.any_op) -> !transform.any_op
    transform.foreach %pad : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      %dps = transform.structured.rewrite_in_destination_passing_style %one : (!transform.any_op) -> !transform.any_op
    }
    %source2 = transform.get_producer_of_operand %split[0] : (!transform.any_op) -> !transform.any_op
    %padded = transform.collect_matching @is_insert_slice in %source2 : (!transform.any_op) -> !transform.any_op
    transform.foreach %padded : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      %dest = transform.get_producer_of_operand %one[1] : (!transform.any_op) -> !transform.any_op
      %zeros = transform.collect_matching @is_fill in %dest : (!transform.any_op) -> !transform.any_op
      transform.foreach %zeros : !transform.any_op {
      ^bb1(%z: !transform.any_op):
        transform.include @vectorize_rows failures(propagate) (%z) : (!transform.any_op) -> ()
      }
      %copy = transform.structured.insert_slice_to_copy %one : (!transform.any_op) -> !transform.any_op
      transform.include @vectorize_rows failures(propagate) (%copy) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @vectorize_padded_input(%op: !transform.any_op {transform.readonly}) {
    %split = transform.get_producer_of_operand %op[0] : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_padding failures(propagate) (%split) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @vectorize_padded_x(%op: !transform.any_op {transform.readonly}) {
    %split = transform.get_producer_of_operand %op[1] : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_padding failures(propagate) (%split) : (!transform.any_op) -> ()
    transform.yield
  }

  // Tiles %op's zero init (a linalg.fill, operand 2) into the thread loop %forall; the
  // original fill is then dead and erased (it would still bufferize to a full write).
  transform.named_sequence @fuse_zero_init(%init: !transform.any_op {transform.readonly},
                                           %forall: !transform.any_op {transform.readonly}) {
    %fills = transform.collect_matching @is_fill in %init : (!transform.any_op) -> !transform.any_op
    transform.foreach %fills : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      %fill, %fa = transform.structured.fuse_into_containing_op %one into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %fa {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
      transform.apply_dce to %func : !transform.any_op
    }
    transform.yield
  }

  // Within thread loop %fa: unit dims folded (so each chunk is a 1-D elementwise
  // multiply-add), static chunks and the fused zero fills vectorized (a dynamic chunk, if
  // any, stays scalar).
  transform.named_sequence @vectorize_chunks(%fa: !transform.any_op {transform.readonly}) {
    transform.include @fold_unit_dims failures(propagate) (%fa) : (!transform.any_op) -> ()
    %ops = transform.structured.match ops{["linalg.generic", "linalg.fill"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_each_static failures(propagate) (%ops) : (!transform.any_op) -> ()
    transform.apply_patterns to %fa {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %fa : !transform.any_op
    transform.yield
  }

  // ---- actions ---------------------------------------------------------------------------

  transform.named_sequence @schedule_grouped_conv_input(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      transform.include @vectorize_padded_input failures(suppress) (%c) : (!transform.any_op) -> ()
      %init = transform.get_producer_of_operand %c[2] : (!transform.any_op) -> !transform.any_op
      // (n, g, c, oh, ow, f, kh, kw): threads over g.
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %c num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @fuse_zero_init failures(suppress) (%init, %fa) : (!transform.any_op, !transform.any_op) -> ()
      %forall = transform.get_parent_op %t0 {op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
      // One output row per step, its zero init fused in; accumulated over (f, kh, kw), each
      // step over the row in vector-wide chunks.
      %t1, %rows:4 = transform.structured.fuse %t0 tile_sizes [1, 1, 1, 1, 0, 0, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %t2, %red:3 = transform.structured.tile_using_for %t1 tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %t3, %chunks = transform.structured.tile_using_for %t2 tile_sizes [0, 0, 0, 0, %lanes, 0, 0, 0]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @peel_partial_tile failures(suppress) (%chunks) : (!transform.any_op) -> ()
      %convs = transform.structured.match ops{["linalg.conv_2d_ngchw_gfchw"]} in %forall : (!transform.any_op) -> !transform.any_op
      %generic = transform.structured.generalize %convs : (!transform.any_op) -> !transform.any_op
      transform.include @vectorize_chunks failures(propagate) (%forall) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_grouped_conv_weight_rows(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      transform.include @vectorize_padded_x failures(suppress) (%g) : (!transform.any_op) -> ()
      %init = transform.get_producer_of_operand %g[2] : (!transform.any_op) -> !transform.any_op
      // (g, f, c, kh, kw, wo; n, ho): threads over g.
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [%threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @fuse_zero_init failures(suppress) (%init, %fa) : (!transform.any_op, !transform.any_op) -> ()
      %forall = transform.get_parent_op %t0 {op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
      // One (g, f, c) per step, its KH x KW rows zeroed (the fused init) and accumulated
      // over (n, ho): each dy row and the x rows it meets are read once per step and used
      // for every (kh, kw) while in cache; each row in vector-wide chunks.
      %t1, %rows:3 = transform.structured.fuse %t0 tile_sizes [1, 1, 1, 0, 0, 0, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %t2, %red:2 = transform.structured.tile_using_for %t1 tile_sizes [0, 0, 0, 0, 0, 0, 1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %t3, %taps:2 = transform.structured.tile_using_for %t2 tile_sizes [0, 0, 0, 1, 1, 0, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %t4, %chunks = transform.structured.tile_using_for %t3 tile_sizes [0, 0, 0, 0, 0, %lanes, 0, 0]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @peel_partial_tile failures(suppress) (%chunks) : (!transform.any_op) -> ()
      transform.include @vectorize_chunks failures(propagate) (%forall) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @apply_grouped_conv(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_grouped_conv_input -> @schedule_grouped_conv_input,
        @match_grouped_conv_weight_rows -> @schedule_grouped_conv_weight_rows
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
