// Schedule library of the `optimizing` pipelines: pooling backward (max and average), the
// linalg.generic ops decompose-backward builds for it (rlx_mlir/transforms/pool/,
// its backward modules). Entry point @apply_pool.
//
// Every matched op runs on @num_threads threads over its channels (unscheduled, its parallel
// loops became one collapsed OpenMP loop whose index arithmetic kept LLVM from optimizing
// the body). Channels, not images: split over the batch, one image ran on one thread and
// an odd batch left the threads unbalanced (3x3 s2 p1 backward at batch 1: 2.6 -> 2.0 ms). Inside the thread, with L = @f32_lanes:
// - rows: the tiled gather dx[n, c, oh, kh, ow, kw] (windows that tile the input; all
//   parallel, dy and the argmax read at (n, c, oh, ow)), vectorized 14 ow x KW at a time
//   (dy and the argmax broadcast along kw). cast_away_vector_leading_one_dim is needed:
//   without it the vector lowering of main.mlir never terminates on these ops.
// - lanes: an all-parallel [N, C, rows, row] generic whose operands all are read where it
//   writes (max-pool phase gathers, the interior argmax, framed copies), vectorized L
//   along the row; the remainder of a row L does not divide is peeled off into a loop of
//   its own, static, and vectorized as well.
// - interleaved: the all-phase max-pool gather, loops (n, c, i, a, b, j) writing
//   dx[n, c, i, a, j, b]: vectorized L along j (unit-stride reads), S x L results
//   transposed into the contiguous dx row; the remainder peeled likewise.
// - loops: window scans and clamped gathers (tensor.extract in the body) and window
//   maxima, reducing over (kh, kw) into [N, C, H, W], and the argmax of tiling windows
//   (its KH*KW cells read as [N, C, Ho, KH, Wo, KW] tiles): none vectorizes. Unit tiles
//   over (n, c, oh|h, ow|w), folded to rank-0 ops or (kh, kw) reductions, i.e. plain
//   scalar loops.
// No tag selects them: the matchers compare indexing maps exactly (a
// transform.param.constant affine_map merged with the op's maps: one distinct map means
// equal), so they take these shapes only. The convolution gathers and contractions of
// rank 4 and 6 have other maps; the forward average pool's window sum, which has the
// window loops' maps, is recognised by its user and left alone (@match_avg_pool_window_sum).
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly})
  transform.named_sequence @vectorize_each_static(%ops: !transform.any_op {transform.consumed})
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})

  // ---- matchers --------------------------------------------------------------------------

  // Succeeds when every map in %maps is %want (merged, they are one distinct map).
  transform.named_sequence @all_maps_are(%maps: !transform.affine_map {transform.readonly},
                                         %want: !transform.affine_map {transform.readonly}) {
    %both = transform.merge_handles deduplicate %maps, %want : !transform.affine_map
    %distinct = transform.num_associations %both : (!transform.affine_map) -> !transform.param<i64>
    %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %distinct, %c1 : !transform.param<i64>
    transform.yield
  }

  // dx[n, c, oh, kh, ow, kw] = f(window_inputs[n, c, oh, ow], ...): rank 6, all parallel.
  transform.named_sequence @match_pool_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.affine_map
      %tiles = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%init, %tiles) : (!transform.affine_map, !transform.affine_map) -> ()
      // (input[0] asserts in mlir-opt 22 on an op without inputs.)
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %c1 : !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.affine_map
      %window = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%in, %window) : (!transform.affine_map, !transform.affine_map) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // y[n, c, h, w] = f(...), written in place: rank 4, all parallel, the init read at
  // (n, c, h, w).
  transform.named_sequence @match_pool_lanes_in_place(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %inits = transform.match.structured.init %s[all] : (!transform.any_op) -> !transform.affine_map
      %identity = transform.param.constant affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%inits, %identity) : (!transform.affine_map, !transform.affine_map) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // y[n, c, h, w] = f(a[n, c, h, w], b[n, c, h, w], ...): every operand read where the op
  // writes (phase gathers, the interior argmax, framed copies).
  transform.named_sequence @match_pool_lanes(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %lanes = transform.include @match_pool_lanes_in_place failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %lanes : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      // (input[all] asserts in mlir-opt 22 on an op without inputs.)
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %c1 : !transform.param<i64>
      %ins = transform.match.structured.input %s[all] : (!transform.any_op) -> !transform.affine_map
      %identity = transform.param.constant affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%ins, %identity) : (!transform.affine_map, !transform.affine_map) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The same without inputs, writing a slice of a larger tensor: the stride phases no
  // window reaches (zeros).
  transform.named_sequence @match_pool_lanes_without_inputs(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %lanes = transform.include @match_pool_lanes_in_place failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %slot = transform.match.structured failures(propagate) %lanes : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %c0 : !transform.param<i64>
      %producer = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %producer : !transform.any_op
    }
    transform.match.operation_name %slot ["tensor.extract_slice"] : !transform.any_op
    transform.yield %lanes : !transform.any_op
  }

  // dx[n, c, i, a, j, b] = f(candidates[n, c, i, j], ...): rank 6, all parallel.
  transform.named_sequence @match_pool_interleaved(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.affine_map
      %phases = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5, d4)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%init, %phases) : (!transform.affine_map, !transform.affine_map) -> ()
      // (input[0] asserts in mlir-opt 22 on an op without inputs.)
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %c1 : !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.affine_map
      %cell = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%in, %cell) : (!transform.affine_map, !transform.affine_map) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // y[n, c, h, w] = reduce_{kh, kw} f(..., window): rank 6, (kh, kw) reductions last, the
  // last operand the shape-only [KH, KW] window. The window scans and gathers
  // (tensor.extract in the body) and the window max of ties=all.
  transform.named_sequence @match_pool_window_loops(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.affine_map
      %cell = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%init, %cell) : (!transform.affine_map, !transform.affine_map) -> ()
      // (input[-1] asserts in mlir-opt 22 on an op without inputs.)
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %c1 : !transform.param<i64>
      %window = transform.match.structured.input %s[-1] : (!transform.any_op) -> !transform.affine_map
      %kh_kw = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%window, %kh_kw) : (!transform.affine_map, !transform.affine_map) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The forward average pool's window sum (convert-rlx-to-linalg), which stays
  // unscheduled: it has the window loops' shape and differs from the window max only in
  // its body, which no match op tells apart. Its one user is the division, an input-less
  // generic updating the sum in place. Matched before @match_pool_window_loops.
  transform.named_sequence @match_avg_pool_window_sum(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sum = transform.include @match_pool_window_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %user = transform.match.structured failures(propagate) %sum : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %one = transform.match.structured.result %s[0] {single} : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %one : !transform.any_op
    }
    transform.match.operation_name %user ["linalg.generic"] : !transform.any_op
    transform.match.structured failures(propagate) %user : !transform.any_op {
    ^bb0(%d: !transform.any_op):
      %n = transform.match.structured.num_inputs %d : (!transform.any_op) -> !transform.param<i64>
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %c0 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %sum : !transform.any_op
  }

  transform.named_sequence @unscheduled(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }

  // a[n, c, oh, ow] = f(x_tiles[n, c, oh, 0, ow, 0], ...): rank 4, all parallel.
  transform.named_sequence @match_pool_tiled_argmax(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      // (input[0] asserts in mlir-opt 22 on an op without inputs.)
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %c1 : !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.affine_map
      %first_cell = transform.param.constant affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3, 0)> -> !transform.affine_map
      transform.include @all_maps_are failures(propagate) (%in, %first_cell) : (!transform.affine_map, !transform.affine_map) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // ---- actions ---------------------------------------------------------------------------

  transform.named_sequence @schedule_pool_rows(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
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
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @fold_unit_dims failures(propagate) (%fa) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_pool_lanes(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t1, %l:4 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, %lanes]
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // A row length L does not divide: its last partial tile is peeled off into a loop of
      // its own, so every tile has a static size and vectorizes.
      transform.include @peel_partial_tile failures(suppress) (%l#3) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %tiles = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.include @vectorize_each_static failures(propagate) (%tiles) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.vector.cast_away_vector_leading_one_dim
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  // An interleaved tile [1, 1, 1, 1, S_W, J] (loops n, c, i, a, b, j) whose j extent is
  // static and at least 2.
  transform.named_sequence @match_interleaved_tile_two_wide(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %j = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %j, %c2 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // Vectorizes an interleaved tile at least two j wide; fails otherwise (include with
  // failures(suppress)). A tile one j wide vectorizes to vector<S_W x 1> values whose
  // shape_casts to and from vector<S_W> mlir-opt 22 never finishes lowering: main.mlir's
  // lower_shape_cast and canonicalization rewrite them into each other forever (the global pools'
  // runaway build, which grew to ~22 GB).
  transform.named_sequence @vectorize_interleaved_tile(%op: !transform.any_op {transform.readonly}) {
    %wide = transform.include @match_interleaved_tile_two_wide failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %wide : !transform.any_op
    transform.yield
  }

  transform.named_sequence @schedule_pool_interleaved(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      %t0, %fa = transform.structured.tile_using_forall %g num_threads [0, %threads]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      %t1, %l:5 = transform.structured.tile_using_for %t0 tile_sizes [1, 1, 1, 1, 0, %lanes]
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // A row length L does not divide: its last partial tile is peeled off into a loop of
      // its own, so every tile has a static size and vectorizes.
      transform.include @peel_partial_tile failures(suppress) (%l#4) : (!transform.any_op) -> ()
      transform.apply_patterns to %fa {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      // Only tiles at least two j wide are vectorized; a tile one j wide (W == S_W, or a
      // peeled remainder of one column) stays a scalar loop (@vectorize_interleaved_tile).
      %tiles = transform.structured.match ops{["linalg.generic"]} in %fa : (!transform.any_op) -> !transform.any_op
      transform.foreach %tiles : !transform.any_op {
      ^bb0(%one: !transform.any_op):
        transform.include @vectorize_interleaved_tile failures(suppress) (%one) : (!transform.any_op) -> ()
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
    %updated = transform.foreach_match in %root
        @match_pool_rows -> @schedule_pool_rows,
        @match_avg_pool_window_sum -> @unscheduled,
        @match_pool_window_loops -> @schedule_pool_loops,
        @match_pool_tiled_argmax -> @schedule_pool_loops,
        @match_pool_lanes -> @schedule_pool_lanes,
        @match_pool_lanes_without_inputs -> @schedule_pool_lanes,
        @match_pool_interleaved -> @schedule_pool_interleaved
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
