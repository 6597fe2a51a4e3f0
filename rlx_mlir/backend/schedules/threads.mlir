// Schedule library of the `optimizing` pipelines: every op the other libraries left whole,
// split across the threads. Entry point @apply_threads, included last by main.mlir.
//
// Batch norm and its gradient (per-channel reductions and the normalization), the
// elementwise ops (relu, add, threshold_backward), gathers (the flipped weights of an input
// gradient) and the forward max pool have no schedule
// of their own: unscheduled, they ran as sequential loops on one thread (in ResNet-18's
// training step at batch 8, 224x224: 200 ms of batch norm, 70 ms of relu/add/relu gradient
// and 53 ms of max pool, one call of 8x64x112x112 alone taking 35 ms). Here each such op
// whose first loop is parallel (the channels of a batch-norm reduction, the images
// otherwise) and static, with at least @num_threads iterations, gets an scf.forall of
// @num_threads iterations over that loop; its body stays the loops `plain` lowers it to,
// which LLVM vectorizes as before. So does a generic over a dynamic batch of rows of at
// least 64 elements (@match_first_loop_dynamic_rows): each part has a dynamic number of
// rows, but its inner loops, along a static row, vectorize as the static op's do. Ops
// inside a scheduled op's thread loop (the scalar rests of tiles) are not touched: only
// ops directly in a function body or in a sequential loop there (@match_outside_thread_loops) are.
//
// The same holds for the operands the other libraries' ops are given: a conv's or a pool's
// padded input (tensor.pad) and an op's zero init (linalg.fill). Bufferized, a tensor.pad is
// a fill of the whole padded buffer and a memref.copy of its source into the interior, which
// MLIR's runtime (memrefCopy) runs row by row; with the init's fill, that took 17% of the
// time of ResNet-18's 56x56 3x3 conv on the calling thread while the others idled. Here a
// pad is rewritten in destination-passing style, its interior copy becomes a linalg.copy,
// and the copy and every such fill are split in @num_threads parts along their first dim,
// whatever its size (static or not: their bodies are copies and stores, which need no
// static tile). So are the transposes and broadcasts the other libraries left whole, and,
// after bufferization (@apply_threads_to_buffer_copies, called from main.mlir), the copies
// bufferization itself makes.
//
// Small ops stay on the calling thread. A thread loop becomes an OpenMP parallel region,
// which wakes the sleeping workers and waits for them at its barrier: on the 2-vCPU KVM
// guest these libraries were tuned on, a 256x64 elementwise multiply took 28.6 us per call
// with its region and 19.7 us without (load 11; most of the rest is the call from Python).
// The PINN training step of benchmarks/higher_order.py ran 321 regions per call (see
// benchmarks/README.md), against PyTorch eager, which keeps such ops on one thread (its
// grain: 32768 elements). An op whose loops all fit a box of at most 2^16 iterations
// (every dim at most 65536, 256, 40, 16 at rank 1, 2, 3, 4) is left whole here
// (@match_small_rank_<r>, tried first), whatever its kind. A box, because transform
// matchers compare dims but cannot multiply them: an op outside the box but under 2^16
// iterations (4096x4) is still split, as before.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>

  // An op directly in a function body, or in a sequential loop directly in one (attention's
  // loop over key blocks), not inside another library's thread loop. The key-block loop's
  // scores, weights and their transposes ([B, H, L, Bk] each) ran on one thread between
  // its split products: 16% of nanoGPT's causal attention backward [8, 6, 256, 64] f32.
  transform.named_sequence @match_outside_thread_loops(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %parent = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %parent ["func.func", "scf.for"] : !transform.any_op
    %grandparent = transform.get_parent_op %parent : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %grandparent ["builtin.module", "func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  // A static loop of at most %bound iterations.
  transform.named_sequence @match_dim_at_most(%dim: !transform.param<i64> {transform.readonly},
                                               %bound: !transform.param<i64> {transform.readonly}) {
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi ge %dim, %one : !transform.param<i64>
    transform.match.param.cmpi le %dim, %bound : !transform.param<i64>
    transform.yield
  }

  // A structured op outside thread loops, of rank <r>, every loop within the box of
  // that rank (see the header): too little work to pay for a parallel region.
  transform.named_sequence @match_small_rank_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %bound = transform.param.constant 65536 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d0, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_small_rank_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %bound = transform.param.constant 256 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d0, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d1, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_small_rank_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %bound = transform.param.constant 40 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d0, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d1, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d2, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_small_rank_4(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %bound = transform.param.constant 16 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d0, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d1, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d2, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.include @match_dim_at_most failures(propagate) (%d3, %bound) : (!transform.param<i64>, !transform.param<i64>) -> ()
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The action for small ops: none; lowered as sequential loops, as unscheduled ops are.
  transform.named_sequence @stay_on_calling_thread(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }

  // The first loop is parallel, outside thread loops; its size %first.
  transform.named_sequence @match_first_loop_parallel(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.param<i64>) {
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m, %first = transform.match.structured failures(propagate) %op : (!transform.any_op) -> (!transform.any_op, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      // Loops at all: match.structured.dim asserts on a rank-0 op in MLIR 22.
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rank, %one : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      %size = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.yield %s, %size : !transform.any_op, !transform.param<i64>
    }
    transform.yield %m, %first : !transform.any_op, !transform.param<i64>
  }

  // The first loop is parallel and static, with at least @num_threads iterations; only ops
  // outside thread loops.
  transform.named_sequence @match_first_loop_threadable(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m, %first = transform.include @match_first_loop_parallel failures(propagate) (%op) : (!transform.any_op) -> (!transform.any_op, !transform.param<i64>)
    %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
    transform.match.param.cmpi ge %first, %threads : !transform.param<i64>
    transform.yield %m : !transform.any_op
  }

  // The first loop is parallel and dynamic (a dynamic size is matched as a negative one),
  // the last one, a row, static and of at least 64 iterations; only ops directly in a
  // function body. The rows of an op of a model exported with a dynamic batch ([B*T, C],
  // [B, T, C]): the small-op box cannot judge a size unknown until run time, but such
  // rows are a training step's, a thousand or more (batch x tokens), so with a row of 64
  // elements the op is at the box's scale. Unsplit, they ran on one thread while the
  // static ones were split: in the GPT training step at batch 8 (2048 rows), gelu on
  // ?x1536 took 53 ms per step against 31 static, layer_norm 9.3 against 4.6. Split, one
  // gelu on 2048 x 1536 f32 rows takes 3.9 ms, as static, against 7.6 unsplit (one
  // process, interleaved; 2 threads of a 2-vCPU Xeon, rocketlake, load 0.7). An op of one
  // loop (a per-row statistic, ?) or of short rows (?x1) has too little work per row and
  // stays whole.
  transform.named_sequence @match_first_loop_dynamic_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %m, %first = transform.include @match_first_loop_parallel failures(propagate) (%op) : (!transform.any_op) -> (!transform.any_op, !transform.param<i64>)
    %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
    transform.match.param.cmpi lt %first, %zero : !transform.param<i64>
    %r = transform.match.structured failures(propagate) %m : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %two = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rank, %two : !transform.param<i64>
      %row = transform.match.structured.dim %s[-1] : (!transform.any_op) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %row, %c64 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %r : !transform.any_op
  }

  // A generic whose operands are all indexed by (projected) permutations of its loops:
  // elementwise ops, broadcasts, reductions over some loops. Windowed or gathering maps are
  // left out: tiling asserts in MLIR 22 on a map with a negative coefficient (a
  // hand-written flipped-kernel gather), which a matcher cannot otherwise tell apart.
  transform.named_sequence @match_permutation_generic(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      // Inputs at all: match.structured.input asserts on none in MLIR 22.
      %inputs = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %inputs, %one : !transform.param<i64>
      transform.match.structured.input %s[all] {projected_permutation} : !transform.any_op
      transform.match.structured.init %s[all] {projected_permutation} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_unthreaded_generic(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %g = transform.include @match_permutation_generic failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %t = transform.include @match_first_loop_threadable failures(propagate) (%g) : (!transform.any_op) -> !transform.any_op
    transform.yield %t : !transform.any_op
  }

  // The same generics over dynamic rows: an elementwise op, a row's reduction (layer_norm's
  // statistics) or a broadcast of them back over the rows.
  transform.named_sequence @match_unthreaded_dynamic_rows_generic(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %g = transform.include @match_permutation_generic failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %t = transform.include @match_first_loop_dynamic_rows failures(propagate) (%g) : (!transform.any_op) -> !transform.any_op
    transform.yield %t : !transform.any_op
  }

  // A generic without inputs, reading its operands with tensor.extract in its body: the
  // flipped, transposed weights of a conv's input gradient (a 512x512x3x3 copy per call in
  // ResNet-18's last stage), the average pool's divisor. Its result is indexed by a
  // (projected) permutation like the generics above.
  transform.named_sequence @match_unthreaded_gather(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %inputs = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %inputs, %zero : !transform.param<i64>
      transform.match.structured.init %s[all] {projected_permutation} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    %t = transform.include @match_first_loop_threadable failures(propagate) (%m) : (!transform.any_op) -> !transform.any_op
    transform.yield %t : !transform.any_op
  }

  // The forward max pool (a named op: its windows' maps have positive strides).
  transform.named_sequence @match_unthreaded_max_pool(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.pooling_nchw_max"] : !transform.any_op
    %t = transform.include @match_first_loop_threadable failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    transform.yield %t : !transform.any_op
  }

  // The data-movement named ops the other libraries left whole: a transpose (the weight
  // gradient's channels-last result back to FCHW, 3x3x512x512 -> 512x512x3x3 in
  // ResNet-18's last stage; a permutation transpose.mlir has no blocks for), a broadcast
  // or a copy (before bufferization, and after it: @apply_threads_to_buffer_copies).
  // Their bodies are loads and stores, which need no static tile, so any first dim is
  // split.
  transform.named_sequence @match_unthreaded_data_movement(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.transpose", "linalg.broadcast", "linalg.copy"] : !transform.any_op
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rank, %one : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // %op split in @num_threads parts along its first dim (scf.forall).
  transform.named_sequence @split_in_threads(%op: !transform.any_op {transform.consumed}) {
    %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %op num_threads [%threads]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // Every matched op but the pad (generics, gathers, the max pool, fills): split in threads
  // where the tiling applies, left as it is otherwise.
  transform.named_sequence @thread_first_loop(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      transform.include @split_in_threads failures(propagate) (%g) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // A tensor.pad or a linalg.fill outside thread loops, with a first dim to split.
  transform.named_sequence @match_unthreaded_pad(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.pad"] : !transform.any_op
    %m = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_unthreaded_fill(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.fill"] : !transform.any_op
    %in_body = transform.include @match_outside_thread_loops failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %two = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rank, %two : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The pad as a fill and a copy of its source into the interior, each split across the
  // threads.
  transform.named_sequence @thread_pad(%pad: !transform.any_op {transform.consumed}) {
    transform.sequence %pad : !transform.any_op failures(suppress) {
    ^bb0(%p: !transform.any_op):
      %insert = transform.structured.rewrite_in_destination_passing_style %p : (!transform.any_op) -> !transform.any_op
      %filled = transform.get_producer_of_operand %insert[1] : (!transform.any_op) -> !transform.any_op
      %copy = transform.structured.insert_slice_to_copy %insert : (!transform.any_op) -> !transform.any_op
      transform.include @split_in_threads failures(propagate) (%copy) : (!transform.any_op) -> ()
      transform.foreach %filled : !transform.any_op {
      ^bb1(%producer: !transform.any_op):
        transform.sequence %producer : !transform.any_op failures(suppress) {
        ^bb2(%fill: !transform.any_op):
          transform.match.operation_name %fill ["linalg.fill"] : !transform.any_op
          transform.include @split_in_threads failures(propagate) (%fill) : (!transform.any_op) -> ()
        }
      }
    }
    transform.yield
  }

  transform.named_sequence @apply_threads(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_small_rank_1 -> @stay_on_calling_thread,
        @match_small_rank_2 -> @stay_on_calling_thread,
        @match_small_rank_3 -> @stay_on_calling_thread,
        @match_small_rank_4 -> @stay_on_calling_thread,
        @match_unthreaded_generic -> @thread_first_loop,
        @match_unthreaded_dynamic_rows_generic -> @thread_first_loop,
        @match_unthreaded_gather -> @thread_first_loop,
        @match_unthreaded_max_pool -> @thread_first_loop,
        @match_unthreaded_pad -> @thread_pad,
        @match_unthreaded_fill -> @thread_first_loop,
        @match_unthreaded_data_movement -> @thread_first_loop
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }

  // After bufferization (main.mlir), which writes the copies it needs as linalg.copy on
  // memrefs: each copy outside thread loops split across the threads, as
  // @match_unthreaded_data_movement's ops are before. Those copies
  // are a kernel's result sliced back out of a widened conv (8x256x14x16 -> 8x256x14x14)
  // and the stride phases of an input gradient interleaved into its result (stride 2 in
  // the last dim). As memref.copy they ran in MLIR's runtime (memrefCopy), which copies a
  // non-contiguous memref one element at a time, on the calling thread while the others
  // waited: 3.4% of ResNet-18's training step at batch 8.
  transform.named_sequence @apply_threads_to_buffer_copies(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %updated = transform.foreach_match in %root
        @match_small_rank_1 -> @stay_on_calling_thread,
        @match_small_rank_2 -> @stay_on_calling_thread,
        @match_small_rank_3 -> @stay_on_calling_thread,
        @match_small_rank_4 -> @stay_on_calling_thread,
        @match_unthreaded_data_movement -> @thread_first_loop
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
