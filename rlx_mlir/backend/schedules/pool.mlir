// Schedule library of the `optimizing` pipelines: pooling backward (max and average), the
// linalg.generic ops decompose-backward tags with `pool_schedule` (see
// rlx_mlir/transforms/pool_backward.py). Entry point @apply_pool.
//
// Every tagged op runs on 2 threads over the batch (unscheduled, its parallel loops became
// one collapsed OpenMP loop whose index arithmetic kept LLVM from optimizing the body:
// avg-pool 2x2 took 7 ms instead of 0.6 ms). Inside the thread:
// - "rows": an all-parallel tiled gather dx[n, c, oh, kh, ow, kw], vectorized 14 ow x KW at
//   a time (dy and the argmax broadcast along kw). cast_away_vector_leading_one_dim is
//   needed: without it the vector lowering of main.mlir never terminates on these ops.
// - "lanes": an all-parallel [N, C, rows, row] generic whose operands are unit stride along
//   the row (max-pool phase gathers, the interior argmax, framed copies), vectorized 8
//   along the row; the remainder of a row 8 does not divide is peeled off as a scalar loop.
// - "interleaved": the all-phase max-pool gather, loops (n, c, i, a, b, j) writing
//   dx[n, c, i, a, j, b]: vectorized 8 along j (unit-stride reads), S x 8 results
//   transposed into the contiguous dx row; the remainder peeled likewise.
// - "loops": window scans and clamped gathers (tensor.extract), which do not vectorize:
//   unit tiles over (n, c, oh|h, ow|w), folded to rank-0 ops or (kh, kw) reductions, i.e.
//   plain scalar loops.
// The tag, not the op's shape, selects the ops, so no other op kind is touched.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @schedule_pool_rows(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      // Partial ow tiles (sizes 14 does not divide) do not vectorize and stay scalar.
      %t1, %l:5 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 1, 14, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %t1 : !transform.any_op
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @schedule_pool_loops(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.apply_patterns to %fa {
        transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @schedule_pool_lanes(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 8]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // A row length 8 does not divide: its last partial tile is peeled off and stays a
      // scalar loop (nothing to peel when it divides); the full tiles have static sizes.
      transform.sequence %l#3 : !transform.any_op failures(suppress) {
      ^bb1(%loop: !transform.any_op):
        %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
        %full, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      }
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %tiles = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.foreach %tiles : !transform.any_op {
      ^bb1(%tile: !transform.any_op):
        transform.sequence %tile : !transform.any_op failures(suppress) {
        ^bb2(%t: !transform.any_op):
          transform.structured.vectorize %t : !transform.any_op
        }
      }
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @schedule_pool_interleaved(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [2]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t1, %l:5 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 1, 0, 8]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // A row length 8 does not divide: its last partial tile is peeled off and stays a
      // scalar loop (nothing to peel when it divides); the full tiles have static sizes.
      transform.sequence %l#4 : !transform.any_op failures(suppress) {
      ^bb1(%loop: !transform.any_op):
        %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
        %full, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      }
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %tiles = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.foreach %tiles : !transform.any_op {
      ^bb1(%tile: !transform.any_op):
        transform.sequence %tile : !transform.any_op failures(suppress) {
        ^bb2(%t: !transform.any_op):
          transform.structured.vectorize %t : !transform.any_op
        }
      }
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @apply_pool(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %rows = transform.structured.match ops{["linalg.generic"]} attributes{pool_schedule = "rows"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @schedule_pool_rows failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %loops = transform.structured.match ops{["linalg.generic"]} attributes{pool_schedule = "loops"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @schedule_pool_loops failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %lanes = transform.structured.match ops{["linalg.generic"]} attributes{pool_schedule = "lanes"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %lanes : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @schedule_pool_lanes failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %interleaved = transform.structured.match ops{["linalg.generic"]} attributes{pool_schedule = "interleaved"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %interleaved : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @schedule_pool_interleaved failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    transform.yield %root : !transform.any_op
  }
}
