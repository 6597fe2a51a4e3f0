// Schedule library of the `optimizing` pipelines: linalg.conv_2d_nchw_fchw
// (decompose-backward's direct input gradient, and forward convs). Entry point @apply_conv.
//
// 2 threads over the batch; unit n, oh, kh tiles decomposed to 1-D convs; those tiled
// 16 f x 7 ow x 16 c x 1 kw (7 divides every spatial size of the benchmark: 7 ... 224) and
// vectorized by the 1-D conv vectorizer (16 output channels x 7 columns, sum over 16 input
// channels per step; measured against 8/32 f, 14 ow, 8/32/64 c: within noise or slower).
// Measured: ~10x the unscheduled loops on dx 64x56 3x3; the alternative
// convert_conv2d_to_img2col + matmul tiling made mlir-opt 22 run out of memory.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @match_conv(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nchw_fchw"] : !transform.any_op
    // At least one full 16 f x 7 ow register tile: narrower convs (e.g. the stem's input
    // gradient, 3 channels) are faster as LLVM-vectorized loops than as partial tiles.
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %f = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %f, %c16 : !transform.param<i64>
      transform.match.param.cmpi ge %ow, %c7 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @schedule_conv(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %c num_threads [2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      // Unit n, oh, kh tiles (never partial) make the op a 1-D conv while its shapes are
      // still static: decomposing a partial (dynamic-size) tile asserts in mlir-opt 22.
      %t1, %lo:3 = transform.structured.tile_using_for %t0 tile_sizes [1, 0, 1, 0, 0, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %d1 = transform.structured.decompose %t1 : (!transform.any_op) -> !transform.any_op
      // conv_1d_ncw_fcw (n, f, ow, c, kw): register tile 16 f x 7 ow, 16 c per step. Partial
      // tiles (sizes these do not divide) do not vectorize and stay scalar.
      %d, %l:4 = transform.structured.tile_using_for %d1 tile_sizes [0, 16, 7, 16, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %d : !transform.any_op
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %l#3 : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %l#2 : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @apply_conv(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_conv -> @schedule_conv
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
