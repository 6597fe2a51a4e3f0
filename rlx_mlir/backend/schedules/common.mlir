// Schedule library of the `optimizing` pipelines: the steps several op kinds share, included
// by their libraries (see main.mlir for the conventions).
//
// Vectorization here is never masked (masked vectorization looped in mlir-opt 22): a tile
// vectorizes when its shape is static, i.e. when the tile size divides the loop or the
// partial last tile was peeled off into a loop of its own. A tile with a dynamic shape
// stays a scalar loop.
module attributes {transform.with_named_sequence} {

  // The last, partial iteration of tile loop %loop as a loop of its own, so the others have
  // static sizes. Fails when the tile size divides the loop (nothing to peel): include it
  // with failures(suppress).
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly}) {
    %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
    %full, %partial = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // As @peel_partial_tile, yielding the partial loop, for a caller that treats its tile
  // apart. Fails when the tile size divides the loop: included with failures(suppress),
  // the handle is then empty.
  transform.named_sequence @peel_off_partial_tile(%loop: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
    %full, %partial = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield %partial : !transform.any_op
  }

  // Vectorizes %op if its shape is static; fails otherwise (include with failures(suppress)).
  transform.named_sequence @vectorize_static(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op : !transform.any_op
    transform.yield
  }

  // Each op of %ops vectorized if static (the full tiles); the others stay scalar.
  transform.named_sequence @vectorize_each_static(%ops: !transform.any_op {transform.consumed}) {
    transform.foreach %ops : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.include @vectorize_static failures(suppress) (%one) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // Unit tile dimensions folded away inside %scope (a scheduled op's loops only: patterns
  // on whole functions crashed mlir-opt 22), so a register tile is the contraction or the
  // row it computes.
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  // The vectorized register tiles inside %scope as vector.contract (lowered by main.mlir to
  // outer-product FMAs), their reads and writes as plain transfers.
  transform.named_sequence @vector_contractions(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.merge_consecutive_insert_extract_slice
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  // Each register tile's accumulator kept in registers across the reduction loops %loops
  // (innermost first): loop-invariant constants leave the loops first, so the
  // accumulator's transfer pair is loop invariant and hoists.
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly}) {
    transform.apply_licm to %loops : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    transform.yield
  }
}
