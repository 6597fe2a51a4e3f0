// Schedule library of the `optimizing` pipelines: rank-4 linalg.transpose whose innermost
// dimension changes (NCHW <-> NHWC: the channels-last conv gradients' operands, and the
// permutes of a channels-last model such as ConvNeXt). Entry point @apply_transpose.
//
// A block is L x L elements (L = @f32_lanes) of two result dimensions: the result's
// innermost, 3, and the dimension p that the source's innermost becomes (perm[p] = 3).
// Read row by row it has unit stride in the source, written row by row unit stride in the
// result: one vector.transpose of a vector<LxL> once the unit dimensions fold. Which p a
// transpose has is in its permutation, which no matcher reads, so the action selects by
// permutation (@transposes_p2, @transposes_p1); the matchers check that both block
// dimensions hold a whole block (with blocks larger than the dimensions mlir-opt 22 looped
// in the vector lowering). Blocks that sizes do not divide stay scalar; other
// permutations (p = 0, or a transpose below one block) stay loops, threaded by threads.mlir.
//
// The threads split a dimension outside the block: the result's dimension 1 for p = 2,
// dimension 2 for p = 1.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})

  transform.named_sequence @match_rank4_transpose(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.transpose"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The transposes in %t whose source's innermost dimension becomes the result's dimension 2.
  transform.named_sequence @transposes_p2(%t: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p0 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 0, 1, 3, 2>} in %t : (!transform.any_op) -> !transform.any_op
    %p1 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 0, 2, 3, 1>} in %t : (!transform.any_op) -> !transform.any_op
    %p2 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 1, 0, 3, 2>} in %t : (!transform.any_op) -> !transform.any_op
    %p3 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 1, 2, 3, 0>} in %t : (!transform.any_op) -> !transform.any_op
    %p4 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 2, 0, 3, 1>} in %t : (!transform.any_op) -> !transform.any_op
    %p5 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 2, 1, 3, 0>} in %t : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %p0, %p1, %p2, %p3, %p4, %p5 : !transform.any_op
    transform.yield %all : !transform.any_op
  }

  // The transposes in %t whose source's innermost dimension becomes the result's dimension 1.
  transform.named_sequence @transposes_p1(%t: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p0 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 0, 3, 1, 2>} in %t : (!transform.any_op) -> !transform.any_op
    %p1 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 0, 3, 2, 1>} in %t : (!transform.any_op) -> !transform.any_op
    %p2 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 1, 3, 0, 2>} in %t : (!transform.any_op) -> !transform.any_op
    %p3 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 1, 3, 2, 0>} in %t : (!transform.any_op) -> !transform.any_op
    %p4 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 2, 3, 0, 1>} in %t : (!transform.any_op) -> !transform.any_op
    %p5 = transform.structured.match ops{["linalg.transpose"]} attributes {permutation = array<i64: 2, 3, 1, 0>} in %t : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %p0, %p1, %p2, %p3, %p4, %p5 : !transform.any_op
    transform.yield %all : !transform.any_op
  }

  // Dimensions 2 and 3 hold a block (whether 1 does is @match_blocks_p1_p2's question).
  transform.named_sequence @match_blocks_p2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.include @match_rank4_transpose failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %s = transform.match.structured failures(propagate) %m : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %d2, %lanes : !transform.param<i64>
      transform.match.param.cmpi ge %d3, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %s : !transform.any_op
  }

  // Result dimensions 1, 2 and 3 each hold a block: either kind of block fits.
  transform.named_sequence @match_blocks_p1_p2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.include @match_blocks_p2 failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %s = transform.match.structured failures(propagate) %m : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %d1, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %s : !transform.any_op
  }

  // Dimensions 1 and 3 hold a block (and 2 does not).
  transform.named_sequence @match_blocks_p1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.include @match_rank4_transpose failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %s = transform.match.structured failures(propagate) %m : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %d1, %lanes : !transform.param<i64>
      transform.match.param.cmpi ge %d3, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %s : !transform.any_op
  }

  // The vectorized blocks in %fa, each one transpose of a vector<LxL>.
  transform.named_sequence @vectorize_blocks(%fa: !transform.any_op {transform.readonly}) {
    transform.include @fold_unit_dims failures(propagate) (%fa) : (!transform.any_op) -> ()
    %inner = transform.structured.match ops{["linalg.transpose", "linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    transform.apply_patterns to %fa {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @blocks_p2(%t: !transform.any_op {transform.consumed}) {
    transform.sequence %t : !transform.any_op failures(suppress) {
    ^bb0(%op: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %op num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, %lanes, %lanes]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @vectorize_blocks failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @blocks_p1(%t: !transform.any_op {transform.consumed}) {
    transform.sequence %t : !transform.any_op failures(suppress) {
    ^bb0(%op: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %op num_threads [0, 0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, %lanes, 1, %lanes]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @vectorize_blocks failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_blocks_p1_p2(%t: !transform.any_op {transform.readonly}) {
    // %t is one transpose: at most one of %p2 and %p1 holds it (the other is empty, and
    // `foreach` skips it), so scheduling one leaves the other's handle valid.
    %p2 = transform.include @transposes_p2 failures(propagate) (%t) : (!transform.any_op) -> !transform.any_op
    %p1 = transform.include @transposes_p1 failures(propagate) (%t) : (!transform.any_op) -> !transform.any_op
    transform.foreach %p2 : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.include @blocks_p2 failures(propagate) (%one) : (!transform.any_op) -> ()
    }
    transform.foreach %p1 : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.include @blocks_p1 failures(propagate) (%one) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_blocks_p2(%t: !transform.any_op {transform.readonly}) {
    %p2 = transform.include @transposes_p2 failures(propagate) (%t) : (!transform.any_op) -> !transform.any_op
    transform.foreach %p2 : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.include @blocks_p2 failures(propagate) (%one) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_blocks_p1(%t: !transform.any_op {transform.readonly}) {
    %p1 = transform.include @transposes_p1 failures(propagate) (%t) : (!transform.any_op) -> !transform.any_op
    transform.foreach %p1 : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.include @blocks_p1 failures(propagate) (%one) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // The first pair that matches is applied: whole blocks in dimensions 1, 2 and 3 suit
  // either kind, in 2 and 3 only p = 2, in 1 and 3 only p = 1.
  transform.named_sequence @apply_transpose(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_blocks_p1_p2 -> @schedule_blocks_p1_p2,
        @match_blocks_p2 -> @schedule_blocks_p2,
        @match_blocks_p1 -> @schedule_blocks_p1
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
