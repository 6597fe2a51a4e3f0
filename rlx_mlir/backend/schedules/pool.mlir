// Schedule library of the `optimizing` pipelines: pooling backward (max and average). Entry point @apply_pool.
//
// Nothing scheduled yet: the matcher accepts no op.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @match_nothing_pool(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["rlx.never_scheduled"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @leave_alone_pool(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }

  transform.named_sequence @apply_pool(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_nothing_pool -> @leave_alone_pool
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
