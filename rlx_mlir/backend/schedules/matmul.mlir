// Schedule library of the `optimizing` pipelines: linalg.matmul (static shapes), and the
// 2-D transposes that feed the transposed products (Aᵀ·B, A·Bᵀ: rlx.permute before
// rlx.matmul, as the VJPs and the importer emit them). Entry point @apply_matmul, included
// by main.mlir (see there for the conventions).
//
// matmul: @num_threads threads (scf.forall) over n, cache tile 32x256, register tile 8x1,
// vectorize, reduction_to_contract, hoisted accumulators, outer-product FMAs.
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
  transform.named_sequence @vectorize_blocks(%fa: !transform.any_op {transform.readonly})

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
      // Partial tiles (sizes the tiles do not divide) fail to vectorize: the sequence
      // stops there and they stay scalar. (Masked vectorization looped in mlir-opt 22.)
      transform.structured.vectorize %t : !transform.any_op
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %l#1 : !transform.any_op
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
    %updated = transform.foreach_match in %root
        @match_matmul -> @schedule_matmul,
        @match_matrix_transpose -> @schedule_matrix_transpose
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
