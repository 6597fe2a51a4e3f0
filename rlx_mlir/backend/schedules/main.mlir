// Transform schedule of the `optimizing` pipelines (rlx_mlir/backend/pipelines.py): the
// entry point. Preloaded together with one library per op kind (the files named in
// pipelines.SCHEDULE_LIBRARIES), each exporting @apply_<kind>: a foreach_match of that
// kind's matchers and actions over the payload, which yields the updated root.
//
// Conventions every library follows:
// - Ops no matcher accepts are left alone and lowered like the `plain` pipeline does (as
//   parallel loops there).
// - Patterns (folding, canonicalization) run only inside the scheduled op's thread loop:
//   canonicalizing whole functions crashed mlir-opt 22 on some tensor.cast chains.
// - Every action runs in a `failures(suppress)` sequence: a schedule that does not apply
//   to an op leaves that op (correct, slower) instead of failing the compile.
//
// After the libraries, this file bufferizes and lowers the vector code they produced.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @apply_matmul(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_batch_matmul(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_conv_weight(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_conv(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_grouped_conv(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_pool(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_transpose(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_threads(%root: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @apply_threads_to_buffer_copies(%root: !transform.any_op {transform.consumed}) -> !transform.any_op

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %after_matmul = transform.include @apply_matmul failures(propagate) (%root)
        : (!transform.any_op) -> !transform.any_op
    %after_batch_matmul = transform.include @apply_batch_matmul failures(propagate) (%after_matmul)
        : (!transform.any_op) -> !transform.any_op
    %after_conv_weight = transform.include @apply_conv_weight failures(propagate) (%after_batch_matmul)
        : (!transform.any_op) -> !transform.any_op
    %after_conv = transform.include @apply_conv failures(propagate) (%after_conv_weight)
        : (!transform.any_op) -> !transform.any_op
    %after_grouped_conv = transform.include @apply_grouped_conv failures(propagate) (%after_conv)
        : (!transform.any_op) -> !transform.any_op
    %after_pool = transform.include @apply_pool failures(propagate) (%after_grouped_conv)
        : (!transform.any_op) -> !transform.any_op
    %after_transpose = transform.include @apply_transpose failures(propagate) (%after_pool)
        : (!transform.any_op) -> !transform.any_op
    %after_threads = transform.include @apply_threads failures(propagate) (%after_transpose)
        : (!transform.any_op) -> !transform.any_op
    // Bufferize here (not with --one-shot-bufferize) so that vector code is lowered on
    // buffers in the same schedule: identity layouts at function boundaries, as `plain`.
    // Its copies are linalg.copy, which threads.mlir then splits across the threads.
    %bufferized = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %after_threads
        {bufferize_function_boundaries = true, memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
    %b = transform.include @apply_threads_to_buffer_copies failures(propagate) (%bufferized)
        : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    // A buffer a sequential loop allocates afresh in each iteration (attention's block
    // scores and weights, [B, H, L, Bk] each, eleven per key block of the backward) is
    // allocated once before the loop instead. Freed and allocated again, each was new
    // memory to the kernel, which faulted its pages in on every block: nanoGPT's causal
    // attention backward [8, 6, 256, 64] f32 spent 81 ms per call, 47 without the faults
    // (2 threads of an AVX-512 Xeon, rocketlake, load 2). An allocation inside a thread
    // loop (scf.forall) stays there, private to its thread.
    transform.bufferization.buffer_loop_hoisting %f : !transform.any_op
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
