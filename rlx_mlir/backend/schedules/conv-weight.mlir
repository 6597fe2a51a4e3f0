// Schedule library of the `optimizing` pipelines: the channels-last conv weight gradient
// that decompose-backward emits,
//   dwl[kh, kw, p, q] = sum_{n, ho, wo} dyl[n, ho, wo, f] * xl[n, ho*s + kh*d, wo*s + kw*d, c]
// where (p, q) is (f, c) or (c, f), the wider channel axis innermost
// (rank 7: 4 parallel then 3 reduction dims, mul-add body, both operands channels-last).
// Entry point @apply_conv_weight.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @match_conv_weight(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c7 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {projected_permutation} : !transform.any_op
      transform.match.structured.init %s[0] {projected_permutation} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // 2 threads over the inner channel axis q; n and blocks of 4 output rows outermost
  // (the reduction, so that a block's rows of both operands stay in cache while every
  // (kh, kw, p, q) tile reads them); then a 4 p x 16 q register tile per (ho, wo).
  transform.named_sequence @schedule_conv_weight(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, 0, 0, 2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t1, %lr:2 = transform.structured.tile_using_for %t0 tile_sizes [0, 0, 0, 0, 1, 4, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %t2, %l:6 = transform.structured.tile_using_for %t1 tile_sizes [1, 1, 4, 16, 0, 1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op,
                                    !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // Channel counts the tile does not divide: the last partial q and p tiles are
      // peeled off (nothing to peel when it divides) and stay scalar loops.
      transform.include @peel_partial_tile failures(suppress) (%l#3) : (!transform.any_op) -> ()
      transform.include @peel_partial_tile failures(suppress) (%l#2) : (!transform.any_op) -> ()
      transform.include @vectorize_register_tiles failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // The last, partial iteration of tile loop %loop as a loop of its own, so the others
  // have static sizes. Fails (the caller suppresses it) when the tile size divides.
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.consumed}) {
    %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
    %full, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // The register tiles (unit kh, kw, n, ho, wo; p x q channels) inside thread loop %fa:
  // unit dims folded, each full (static) tile vectorized as one vector.contract, lowered
  // later to outer-product FMAs; each accumulator hoisted out of the (ho, wo) reduction
  // loops into registers. Partial tiles fail to vectorize and stay scalar.
  transform.named_sequence @vectorize_register_tiles(%fa: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %fa {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      transform.sequence %tile : !transform.any_op failures(suppress) {
      ^bb1(%t: !transform.any_op):
        transform.structured.vectorize %t : !transform.any_op
      }
    }
    transform.apply_patterns to %fa {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.merge_consecutive_insert_extract_slice
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // Innermost loops first (the match is a post-order walk). Padding values and index
    // constants leave the loops first, so each accumulator's transfer pair is loop
    // invariant and hoists.
    %loops = transform.structured.match ops{["scf.for"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.apply_licm to %loops : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    // Drops the tensor iter_args the hoisting left unchanged, so bufferization writes the
    // accumulator tile in place instead of through a temporary copy.
    transform.apply_patterns to %fa {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @apply_conv_weight(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_conv_weight -> @schedule_conv_weight
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
