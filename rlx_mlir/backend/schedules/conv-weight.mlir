// Schedule library of the `optimizing` pipelines: the channels-last conv weight gradient
// that decompose-backward emits,
//   dwl[kh, kw, p, q] = sum_{n, ho, wo} dyl[n, ho, wo, f] * xl[n, ho*s + kh*d, wo*s + kw*d, c]
// where (p, q) is (f, c) or (c, f), the wider channel axis innermost
// (rank 7: 4 parallel then 3 reduction dims, mul-add body, both operands channels-last).
// Entry point @apply_conv_weight.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes_x2() -> !transform.param<i64>
  transform.named_sequence @conv_weight_rows() -> !transform.param<i64>
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly})
  transform.named_sequence @vectorize_each_static(%ops: !transform.any_op {transform.consumed})
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @vector_contractions(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly})

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

  // @num_threads threads over the inner channel axis q; n and blocks of 4 output rows
  // outermost (the reduction, so that a block's rows of both operands stay in cache while
  // every (kh, kw, p, q) tile reads them); then a P p x Q q register tile per (ho, wo),
  // P = @conv_weight_rows (8 with 32 vector registers, 4 with 16), Q = @f32_lanes_x2.
  transform.named_sequence @schedule_conv_weight(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %q = transform.include @f32_lanes_x2 failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, 0, 0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %lr:2 = transform.structured.tile_using_for %t0 tile_sizes [0, 0, 0, 0, 1, 4, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %p = transform.include @conv_weight_rows failures(propagate) () : () -> !transform.param<i64>
      %t2, %l:6 = transform.structured.tile_using_for %t1 tile_sizes [1, 1, %p, %q, 0, 1, 1]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op,
              !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // Channel counts the tile does not divide: the last partial q and p tiles are
      // peeled off into loops of their own (nothing to peel when it divides), so every
      // tile has a static shape and vectorizes.
      transform.include @peel_partial_tile failures(suppress) (%l#3) : (!transform.any_op) -> ()
      transform.include @peel_partial_tile failures(suppress) (%l#2) : (!transform.any_op) -> ()
      transform.include @vectorize_register_tiles failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // As @match_conv_weight, with output planes of at most 7 rows (ResNet's last stage):
  // @schedule_conv_weight_small_images. Measured against @schedule_conv_weight (A/B in one
  // process, Zen 4): 512 x 512 at 7x7 ratio 0.87 -> 0.99; 256 x 256 at 14x14 0.89 -> 0.78,
  // a reduction of 8 x 14 x 14 steps per tile reading too much to stay in cache.
  transform.named_sequence @match_conv_weight_small_images(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_conv_weight failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %ho = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi le %ho, %c7 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // Small planes: the whole reduction (n, ho, wo) inside each register tile, so each
  // P p x Q q tile of dw is written once. With the reduction outermost, every (n, row block)
  // pass read and wrote all of dw: 9.4 MiB for 512 x 512 x 3 x 3, 16 times per call at 7x7.
  // Loops kh, kw, q, p: a tile's Q-wide x rows stay in cache across the p tiles.
  transform.named_sequence @schedule_conv_weight_small_images(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %q = transform.include @f32_lanes_x2 failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, 0, 0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %p = transform.include @conv_weight_rows failures(propagate) () : () -> !transform.param<i64>
      %t2, %l:7 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, %p, %q, 1, 1, 1] interchange = [0, 1, 3, 2, 4, 5, 6]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
              !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @peel_partial_tile failures(suppress) (%l#3) : (!transform.any_op) -> ()
      transform.include @peel_partial_tile failures(suppress) (%l#2) : (!transform.any_op) -> ()
      transform.include @vectorize_register_tiles failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // The register tiles (unit kh, kw, n, ho, wo; p x q channels) inside thread loop %fa:
  // unit dims folded, each static tile vectorized as one vector.contract, lowered later to
  // outer-product FMAs; each accumulator hoisted out of the (ho, wo) reduction loops into
  // registers. A tile with a dynamic shape stays scalar.
  transform.named_sequence @vectorize_register_tiles(%fa: !transform.any_op {transform.readonly}) {
    transform.include @fold_unit_dims failures(propagate) (%fa) : (!transform.any_op) -> ()
    %tiles = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_each_static failures(propagate) (%tiles) : (!transform.any_op) -> ()
    transform.include @vector_contractions failures(propagate) (%fa) : (!transform.any_op) -> ()
    // Innermost loops first (the match is a post-order walk).
    %loops = transform.structured.match ops{["scf.for"]} in %fa : (!transform.any_op) -> !transform.any_op
    transform.include @hoist_accumulators failures(propagate) (%loops) : (!transform.any_op) -> ()
    // Drops the tensor iter_args the hoisting left unchanged, so bufferization writes the
    // accumulator tile in place instead of through a temporary copy.
    transform.apply_patterns to %fa {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @apply_conv_weight(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_conv_weight_small_images -> @schedule_conv_weight_small_images,
        @match_conv_weight -> @schedule_conv_weight
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
