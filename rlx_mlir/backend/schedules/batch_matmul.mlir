// Schedule library of the `optimizing` pipelines: batched matrix products
// y[b, m, n] = sum_k a[b, m, k] * c[b, k, n], as linalg.batch_matmul or as the generic of
// that shape convert-rlx-to-linalg emits (xDSL has no linalg.batch_matmul; the generic is
// specialized to the named op here). Entry point @apply_batch_matmul, included by main.mlir
// (see there for the conventions).
//
// @num_threads threads (scf.forall) over the batch; in each, one product at a time, tiled as
// matmul.mlir tiles a 2-D one: a 32-column, 256-deep cache tile, a register tile of 8 rows x
// 1 k, vectorized, contracted to outer-product FMAs, its accumulator hoisted out of the k
// loop. The unit batch dim of a tile is folded away first, so the register tile is the 2-D
// contraction main.mlir lowers. Rows and columns the tiles do not divide are peeled as
// matmul.mlir peels them (the partial row tile then a row at a time): attention's scores
// over a ViT's 197 tokens, 48 x (197x64 · 64x197), 12.6 -> 5.2 ms (torch.bmm 5.8; whole
// tiles 48 x (256x64 · 64x256) 7.2 -> 5.6, torch.bmm 7.0: the accumulators of every k loop
// now stay in registers; one process, load 4, 2 threads of an AVX-512 Xeon). A partial
// column tile whose width is dynamic stays scalar.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly})
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly})
  transform.named_sequence @peel_off_partial_tile(%loop: !transform.any_op {transform.readonly}) -> !transform.any_op

  // A reduction of at least 2 terms (as matmul.mlir: at K = 1 the register tile's k loop
  // folds away and hoisting out of it aborts mlir-opt 22).
  transform.named_sequence @match_long_reduction(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %k = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %k, %c2 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_batch_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.batch_matmul"] : !transform.any_op
    %m = transform.include @match_long_reduction failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    transform.yield %m : !transform.any_op
  }

  // A generic with 3 parallel loops and 1 reduction whose body is a multiply-add, its loops
  // the batch, rows, columns and reduction of a batched product.
  transform.named_sequence @match_batch_matmul_generic(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
      transform.match.structured.dim %s[3] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      // Loop 0 the batch, 1 the rows, 2 the columns, 3 the reduction, as y[b, m, n] +=
      // a[b, m, k] * c[b, k, n] has them.
      %batch, %rows, %columns, %k = transform.match.structured.classify_contraction_dims %s
          : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %batch, %c0 : !transform.param<i64>
      transform.match.param.cmpi eq %rows, %c1 : !transform.param<i64>
      transform.match.param.cmpi eq %columns, %c2 : !transform.param<i64>
      transform.match.param.cmpi eq %k, %c3 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %l = transform.include @match_long_reduction failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %l : !transform.any_op
  }

  // The generic as linalg.batch_matmul (the matcher checked its form), then scheduled.
  transform.named_sequence @specialize_and_schedule(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %named = transform.structured.specialize %g : (!transform.any_op) -> !transform.any_op
      transform.include @schedule_batch_matmul failures(propagate) (%named) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_batch_matmul(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%bmm: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %bmm num_threads [%threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l0:3 = transform.structured.tile_using_for %t0 tile_sizes [1, 0, 32, 256]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %t, %l:2 = transform.structured.tile_using_for %t1 tile_sizes [0, 8, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      // Rows and columns the tiles do not divide (attention over 197 tokens): the partial
      // row tile peeled off and computed a row at a time, then the partial column tile
      // peeled off, so every tile has a static shape and vectorizes.
      %partial = transform.include @peel_off_partial_tile failures(suppress) (%l#0) : (!transform.any_op) -> !transform.any_op
      transform.foreach %partial : !transform.any_op {
      ^bb0(%p: !transform.any_op):
        %rest = transform.structured.match ops{["linalg.batch_matmul"]} in %p : (!transform.any_op) -> !transform.any_op
        %row, %rows = transform.structured.tile_using_for %rest tile_sizes [0, 1, 0, 0]
            : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
      transform.include @peel_partial_tile failures(suppress) (%l0#1) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %tiles = transform.structured.match ops{["linalg.batch_matmul"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.foreach %tiles : !transform.any_op {
      ^bb0(%tile: !transform.any_op):
        transform.include @vectorize_contraction failures(suppress) (%tile) : (!transform.any_op) -> ()
      }
      // The tile's unit batch dim dropped first, so that its contraction is the 2-D one
      // matmul.mlir's tiles become (with it, main.mlir's lowering looped in mlir-opt 22).
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %loops = transform.structured.match ops{["scf.for"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.include @hoist_accumulators failures(propagate) (%loops) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  // %op vectorized if static, as a named contraction (without it the last lowering looped).
  transform.named_sequence @vectorize_contraction(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op {create_named_contraction} : !transform.any_op
    transform.yield
  }

  transform.named_sequence @apply_batch_matmul(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_batch_matmul -> @schedule_batch_matmul,
        @match_batch_matmul_generic -> @specialize_and_schedule
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
