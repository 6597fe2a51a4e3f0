// Schedule library of the `optimizing` pipelines: rank-4 linalg.transpose whose innermost
// dimension changes (e.g. NCHW -> NHWC, which the channels-last conv gradients emit).
// Entry point @apply_transpose.
//
// @num_threads threads over output dimension 1, then L x L blocks (L = @f32_lanes) of the
// two innermost output dimensions (both at least L): each block is one vector.transpose of
// a vector<LxL> read row by row (unit stride in the source) and written row by row (unit
// stride in the result). Blocks that sizes do not divide stay scalar.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})

  transform.named_sequence @match_transpose(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.transpose"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      // At least one whole block: smaller transposes (a weight's) stay loops; with blocks
      // larger than the dimensions mlir-opt 22 looped in the vector lowering.
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %d2, %lanes : !transform.param<i64>
      transform.match.param.cmpi ge %d3, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @schedule_transpose(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%t: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %t num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, %lanes, %lanes]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @fold_unit_dims failures(propagate) (%fa) : (!transform.any_op) -> ()
      %inner = transform.structured.match ops{["linalg.transpose", "linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %inner : !transform.any_op
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @apply_transpose(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_transpose -> @schedule_transpose
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
