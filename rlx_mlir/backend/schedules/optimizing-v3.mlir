// Transform schedule of the `optimizing` pipelines (rlx_mlir/backend/pipelines.py), v3.
//
// Each op kind is matched by a matcher and scheduled by its action; ops no matcher accepts
// are left alone and lowered like the `plain` pipeline does (as parallel loops there).
// Patterns (folding, canonicalization) run only inside the scheduled op's thread loop:
// canonicalizing whole functions crashed mlir-opt 22 on some tensor.cast chains.
// Every action runs in a `failures(suppress)` sequence: a schedule that does not apply
// to an op leaves that op (correct, slower) instead of failing the compile.
//
// - linalg.matmul (static): 2 threads (scf.forall), cache tile 32x256, register tile 8x1,
//   vectorize, reduction_to_contract, hoisted accumulators, outer-product FMAs.
// - gather-form conv weight gradient, dw[f,c,kh,kw] = sum_{n,ho,wo} dy[n,f,ho,wo] * x[n,c,..]
//   (rank 7: 4 parallel then 3 reduction dims, mul-add body, dy read by a projected
//   permutation, the result by a projected permutation): 2 threads over f, register tile 8 f x 16 c,
//   unit kh/kw/n/ho tiles folded away so the tile is a plain contraction over wo, then
//   vectorized like the matmul.
// - linalg.conv_2d_nchw_fchw (decompose-backward's direct input gradient, and forward convs):
//   2 threads over the batch; unit n, oh, kh tiles decomposed to 1-D convs; those tiled
//   16 f x 7 ow x 16 c x 1 kw (7 divides every spatial size of the benchmark: 7 ... 224) and
//   vectorized by the 1-D conv vectorizer (16 output channels x 7 columns, sum over 16 input
//   channels per step; measured against 8/32 f, 14 ow, 8/32/64 c: within noise or slower). Measured: ~10x the unscheduled loops on dx 64x56 3x3; the
//   alternative convert_conv2d_to_img2col + matmul tiling made mlir-opt 22 run out of memory.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @match_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

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

  transform.named_sequence @schedule_matmul(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%mm: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %mm num_threads [0, 2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
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

  transform.named_sequence @schedule_conv_weight(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t1, %l:6 = transform.structured.tile_using_for %t0 tile_sizes [8, 16, 1, 1, 1, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op,
                                    !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // Only inside this op's thread loop: the folding must not touch other ops.
      transform.apply_patterns to %fa {
        transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %inner = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %inner : !transform.any_op
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %l#5 : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %l#4 : !transform.any_op
    }
    transform.yield
  }

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

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root
        @match_matmul -> @schedule_matmul,
        @match_conv_weight -> @schedule_conv_weight,
        @match_conv -> @schedule_conv
        : (!transform.any_op) -> !transform.any_op
    // Bufferize here (not with --one-shot-bufferize) so that vector code is lowered on
    // buffers in the same schedule: identity layouts at function boundaries, as `plain`.
    %b = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %updated
        {bufferize_function_boundaries = true} : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
