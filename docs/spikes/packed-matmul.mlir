// Spike, not loaded by any pipeline: linalg.matmul packed into register tiles inside the
// transform schedule (option A of the packed-matmul plan), kept for the next attempt.
// To try it, paste @schedule_packed_matmul into backend/schedules/matmul.mlir (with the
// declarations below) and select it in @apply_matmul instead of @schedule_matmul.
//
// What it does (mlir-opt 22):
// - transform.structured.pack [8, 32, 0]: A -> [M/8, K, 8], B -> [K, N/32, 32], C -> [M/8, N/32, 8, 32]
//   (a K0 tile of 1 leaves unit dimensions whose vector.shape_cast ping-pongs with the
//   canonicalization in main.mlir's final lowering: mlir-opt ran out of memory);
// - pack_transpose of B's outer dimensions -> [N/32, K, 32], so each register tile reads
//   one contiguous panel;
// - the packed generic: threads over N/32, a K cache tile of 128, 1x1 outer tiles, k steps
//   of 1 -> vector.contract of an 8x32 accumulator hoisted across k (the IR after this
//   library is as intended: one vector<8xf32> and one vector<32xf32> load per k step);
// - C's pack fused into the thread loop with its fill, where it folds to a fill; the packs
//   of A and B and the unpack tiled over threads and vectorized.
//
// Where it stopped: on 2048x384 . 384x1536 f32 the whole optimizing pipeline did not finish
// within the 120 s stage limit (2 cores at load average 15-21), so the compile fell back to
// `o3` and no packed timing exists yet. Suspects, in order: main.mlir's final vector
// lowering on the packs' 8x16 transposes and the unpack's tiles; the unpack's destination
// is still the fill of the unpacked result (one wasted fill). Dropping the last
// apply_patterns block (the scoped broadcast/shape_cast/transpose lowering) did not help:
// mlir-opt with the whole schedule library still ran past 240 s on that payload. Next
// step: bisect main.mlir's steps on the IR this library produces (it is fine after
// @apply_matmul and after bufferization).
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @vector_contractions(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly})

  transform.named_sequence @schedule_packed_matmul(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%mm: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %p = transform.structured.pack %mm packed_sizes = [8, 32, 0] : (!transform.any_op) -> !transform.op<"linalg.generic">
      %pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %p2, %pb2, %un = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0]
          : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)
      %pa = transform.get_producer_of_operand %p2[0] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %pc = transform.get_producer_of_operand %p2[2] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
      %unpack = transform.get_consumers_of_result %p2[0] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.unpack">
      %t0, %fa = transform.structured.tile_using_forall %p2 num_threads [0, %threads]
            : (!transform.op<"linalg.generic">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %lk = transform.structured.tile_using_for %t0 tile_sizes [0, 0, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t2, %lmn:2 = transform.structured.tile_using_for %t1 tile_sizes [1, 1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %t3, %lk1 = transform.structured.tile_using_for %t2 tile_sizes [0, 0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %t3 : !transform.any_op
      transform.include @vector_contractions failures(propagate) (%fa) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.drop_unit_dims_with_shape_cast
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.include @hoist_accumulators failures(propagate) (%lk1) : (!transform.any_op) -> ()
      %init = transform.get_producer_of_operand %pc[0] : (!transform.op<"linalg.pack">) -> !transform.any_op
      %fc, %fa2 = transform.structured.fuse_into_containing_op %pc into %fa
          : (!transform.op<"linalg.pack">, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %fi, %fa3 = transform.structured.fuse_into_containing_op %init into %fa2
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.apply_patterns to %fa3 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %fn = transform.get_parent_op %fa3 {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
      transform.apply_dce to %fn : !transform.any_op
      %ta, %fta = transform.structured.tile_using_forall %pa num_threads [%threads]
            : (!transform.op<"linalg.pack">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %ta1, %lta:2 = transform.structured.tile_using_for %ta tile_sizes [1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %ta1 : !transform.any_op
      %tb, %ftb = transform.structured.tile_using_forall %pb2 num_threads [%threads]
            : (!transform.op<"linalg.pack">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %tb1, %ltb:2 = transform.structured.tile_using_for %tb tile_sizes [1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tb1 : !transform.any_op
      %tu, %ftu = transform.structured.tile_using_forall %unpack num_threads [%threads]
            : (!transform.op<"linalg.unpack">, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %tu1, %ltu:2 = transform.structured.tile_using_for %tu tile_sizes [8, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tu1 : !transform.any_op
      %all = transform.merge_handles %fa3, %fta, %ftb, %ftu : !transform.any_op
      transform.apply_patterns to %all {
        transform.apply_patterns.vector.drop_unit_dims_with_shape_cast
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_patterns to %all {
        transform.apply_patterns.vector.lower_broadcast
        transform.apply_patterns.vector.lower_shape_cast
        transform.apply_patterns.vector.lower_transpose
      } : !transform.any_op
    }
    transform.yield
  }
}
