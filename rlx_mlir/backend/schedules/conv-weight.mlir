// Schedule library of the `optimizing` pipelines: the channels-last conv weight gradient
// that decompose-backward emits,
//   dwT[kh, kw, p, q] = sum_{n, ho, wo} a[n, ho, wo, p|q] * b[n, ho*s + kh*d, wo*s + kw*d, q|p]
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
      transform.include @vectorize_register_tile failures(propagate) (%fa, %l#4, %l#5)
          : (!transform.any_op, !transform.any_op, !transform.any_op) -> ()
    }
    transform.yield
  }

  // The register tile (unit kh, kw, n, ho, wo; p x q channels) inside thread loop %fa and
  // reduction loops %ho, %wo: unit dims folded, vectorized as one vector.contract, lowered
  // later to outer-product FMAs; the accumulator hoisted out of both loops into registers.
  transform.named_sequence @vectorize_register_tile(%fa: !transform.any_op {transform.readonly},
      %ho: !transform.any_op {transform.readonly}, %wo: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %fa {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %inner = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    transform.apply_patterns to %fa {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.merge_consecutive_insert_extract_slice
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // Padding values and index constants out of the reduction loops first, so the
    // accumulator's transfer pair is loop invariant and hoists into registers.
    transform.apply_licm to %wo : !transform.any_op
    transform.apply_licm to %ho : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %wo : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %ho : !transform.any_op
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
