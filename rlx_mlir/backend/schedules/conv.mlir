// Schedule library of the `optimizing` pipelines: linalg.conv_2d_nchw_fchw
// (decompose-backward's input gradient phases, and forward convs). Entry point @apply_conv.
//
// Vector lanes run along the output width (ow), the contiguous axis of NCHW, so no
// transposes are needed (the 1-D conv vectorizer computes in NWC and transposes NCW
// operands in registers). Per conv, with L = @f32_lanes:
//   generalize; one image, and 8 filters where the conv has at least 8 (else, with fewer
//   images than threads, one output row), per scf.forall iteration (OpenMP shares the iterations among its threads), so the tile's batch is a
//   static 1 whatever the batch is (odd, 1 or dynamic) and one image still has work for
//   every thread. (Splitting the batch into @num_threads parts gave the
//   last part a dynamic size at an odd or dynamic batch; the tile then did not vectorize
//   and the whole conv ran as scalar loops.)
//   split ow into chunks of L-column tiles (@split_dim3_in_vector_chunks, continuous tile
//   sizes: 56 = 7*8, 28 = 3*8 + 4 for L = 8) so every tile has a static width and
//   vectorizes (partial tiles would not);
//   per chunk: register tile 8 f x L ow (8 vector accumulators), 16 c per step, unit
//   kh/kw tiles folded away so the tile is the contraction
//       acc[f, ow] += sum_c w[f, c] * x[c, ow]
//   interchanged to (ow, f, c) so that the outer-product lowering broadcasts w[f, c] and
//   multiplies whole rows x[c, ow:ow+L] (lanes along ow); the 16-channel steps outside the
//   output rows (the weights they read stay in L1), accumulators hoisted out of the kh/kw
//   loops.
// 8 f x 8 ow keeps the 8 accumulators and the operands within AVX2's 16 registers (8 f x
// 16 ow spills). The alternatives measured are in docs/schedules-notes.md.
// Rows narrower than one vector are widened first (@apply_conv): below 8 columns to 8
// (@f32_short_lanes), which a 16-lane machine computes in 8-lane chunks, and between 8 and
// L to L.
module attributes {transform.with_named_sequence} {

  transform.named_sequence @num_threads() -> !transform.param<i64>
  transform.named_sequence @f32_lanes() -> !transform.param<i64>
  transform.named_sequence @split_dim3_in_vector_chunks(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.param<i64>)
  transform.named_sequence @fold_unit_dims(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @vector_contractions(%scope: !transform.any_op {transform.readonly})
  transform.named_sequence @hoist_accumulators(%loops: !transform.any_op {transform.readonly})
  transform.named_sequence @pad_dim3_to_vector_multiple(%op: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @f32_short_lanes() -> !transform.param<i64>
  transform.named_sequence @pad_dim3_to_short_vector_multiple(%op: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @f32_full_width_fma() -> !transform.param<i64>
  transform.named_sequence @f32_lanes_and_a_half() -> !transform.param<i64>
  transform.named_sequence @f32_lanes_x2() -> !transform.param<i64>
  transform.named_sequence @peel_partial_tile(%loop: !transform.any_op {transform.readonly})

  transform.named_sequence @match_conv(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nchw_fchw"] : !transform.any_op
    // At least one short-vector-wide tile (@schedule_conv_thread_tile says which chunks).
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %short = transform.include @f32_short_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %ow, %short : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // As @match_conv, with at least one full 8-filter register tile: such a conv is also
  // split into 8-filter blocks across the threads, so that one image still keeps every
  // thread busy. (With fewer filters, e.g. the stem's dx with 3, a filter-block tile of the
  // forall has a dynamic size and would not vectorize.)
  transform.named_sequence @match_conv_filter_blocks(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %f = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %f, %c8 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // As @match_conv, with fewer images than threads (a static batch): one image per
  // iteration would leave threads idle (the stem's dx at batch 1, 3 filters, ran on one
  // thread), so such a conv gets a thread loop over its output rows as well.
  transform.named_sequence @match_conv_few_images(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %n = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %c1 : !transform.param<i64>
      %threads = transform.include @num_threads failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi lt %n, %threads : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // One ow chunk of a thread's conv (generic, dims n, f, oh, ow, c, kh, kw), `%width`
  // columns per tile.
  transform.named_sequence @schedule_conv_chunk(%chunk: !transform.any_op {transform.consumed},
                                                %width: !transform.param<i64> {transform.readonly}) {
    transform.sequence %chunk : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      // Unit n, oh, kh, kw tiles; a partial f tile (f not a multiple of 8) does not
      // vectorize and stays scalar.
      // The 16-channel step outside the rows and columns (loops n, f, c, oh, ow, kh, kw):
      // the weights of 8 filters x 16 channels (4.6 KiB) stay in L1 across every output
      // tile of the chunk, where with c inside ow each tile streamed all C channels' weights
      // (147 KiB at 512 channels) from L2. The accumulators are then kept over kh and kw
      // only, and loaded and stored once per 16 x 9 taps. Measured in one process: 14x14
      // 256-channel conv ratio 0.75 -> 0.87, 56x56 64-channel 0.84 -> 0.94.
      %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 8, 1, %width, 16, 1, 1] interchange = [0, 1, 4, 2, 3, 5, 6]
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
              !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // A last channel step shorter than 16 (24 channels: 16 + 8) peeled into its own loop,
      // so that both steps have a static size and vectorize; a static batch pads such
      // channels first (@pad_channels_to_steps), a dynamic one cannot, as its zero pads do
      // not fold. Fails, suppressed, where 16 divides the channels.
      transform.include @peel_partial_tile failures(suppress) (%l#2) : (!transform.any_op) -> ()
      // Only inside this chunk's loops: the folding must not touch other ops.
      transform.include @fold_unit_dims failures(propagate) (%l#0) : (!transform.any_op) -> ()
      %tile = transform.structured.match ops{["linalg.generic"]} in %l#0 : (!transform.any_op) -> !transform.any_op
      // (f, ow, c) -> (ow, f, c): the contraction's result is then [f, ow] "transposed"
      // (n, m), which the outer-product lowering computes as rows of ow lanes.
      %rows = transform.structured.interchange %tile iterator_interchange = [1, 0, 2]
          : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %rows : !transform.any_op
      transform.include @vector_contractions failures(propagate) (%l#0) : (!transform.any_op) -> ()
      // The kw and kh loops, innermost first.
      %reduction = transform.merge_handles %l#6, %l#5 : !transform.any_op
      transform.include @hoist_accumulators failures(propagate) (%reduction) : (!transform.any_op) -> ()
      // Drops the slices the hoisting left as pass-through loop arguments (they would
      // make bufferization copy the accumulator tile).
      transform.apply_patterns to %l#0 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }

  // A thread's tile at least one vector wide: ow chunks of whole vectors, then of halving
  // widths (splitting off an empty first chunk asserts in mlir-opt 22, hence the bound).
  transform.named_sequence @match_wide_conv_tile(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi ge %ow, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // A thread's tile exactly one short vector wide, narrower than a register (a widened
  // 7-column conv on a 16-lane machine): one chunk.
  transform.named_sequence @match_short_conv_tile(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %short = transform.include @f32_short_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi eq %ow, %short : !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi lt %ow, %lanes : !transform.param<i64>
      // A static filter count: the last filter block of a conv whose filters 8 does not
      // divide (12 = 8 + 4) has a dynamic size, on which the unsplit tile's schedule asserts
      // in mlir-opt 22 (SqueezeNet's 1x1 convs at 7x7); such a tile stays loops.
      %f = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %f, %one : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @schedule_wide_conv_tile(%t: !transform.any_op {transform.consumed}) {
    %chunks, %widths = transform.include @split_dim3_in_vector_chunks failures(propagate) (%t)
        : (!transform.any_op) -> (!transform.any_op, !transform.param<i64>)
    transform.foreach %chunks, %widths : !transform.any_op, !transform.param<i64> {
    ^bb1(%chunk: !transform.any_op, %width: !transform.param<i64>):
      transform.include @schedule_conv_chunk failures(suppress) (%chunk, %width)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    transform.yield
  }

  transform.named_sequence @schedule_short_conv_tile(%t: !transform.any_op {transform.consumed}) {
    %short = transform.include @f32_short_lanes failures(propagate) () : () -> !transform.param<i64>
    transform.include @schedule_conv_chunk failures(suppress) (%t, %short)
        : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield
  }

  // A thread's tile of the conv (the one linalg op in its scf.forall), register-tiled by
  // @schedule_conv_chunk per ow chunk. Other widths (between a short vector and a whole
  // one, which only strided convs keep) stay loops on their thread.
  transform.named_sequence @schedule_conv_thread_tile(%t: !transform.any_op {transform.readonly}) {
    %forall = transform.get_parent_op %t {op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
    %updated = transform.foreach_match in %forall
        @match_wide_conv_tile -> @schedule_wide_conv_tile,
        @match_short_conv_tile -> @schedule_short_conv_tile
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  // One image per scf.forall iteration.
  transform.named_sequence @schedule_conv(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %g = transform.structured.generalize %c : (!transform.any_op) -> !transform.any_op
      %t, %forall = transform.structured.tile_using_forall %g tile_sizes [1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.include @schedule_conv_thread_tile failures(propagate) (%t) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // One image and one output row per scf.forall iteration. One row, not blocks of rows: a
  // last, shorter block has a dynamic size, which the ow split rejects (the whole conv
  // stayed scalar). The register tiles are one row each either way.
  transform.named_sequence @schedule_conv_rows(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %g = transform.structured.generalize %c : (!transform.any_op) -> !transform.any_op
      %t, %forall = transform.structured.tile_using_forall %g tile_sizes [1, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.include @schedule_conv_thread_tile failures(propagate) (%t) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // One image and 8 filters per scf.forall iteration.
  transform.named_sequence @schedule_conv_filter_blocks(%op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %g = transform.structured.generalize %c : (!transform.any_op) -> !transform.any_op
      %t, %forall = transform.structured.tile_using_forall %g tile_sizes [1, 8]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.include @schedule_conv_thread_tile failures(propagate) (%t) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  // A stride-1 conv narrower than one vector (ow < L: the 7x7 maps of ResNet's last stage,
  // and the stride phases of its downsampling convs and their input gradients), which
  // @match_conv rejects or (short < ow < L) would leave unscheduled. Stride 1 only:
  // pad_tiling_interface sizes a strided conv's input as the rows its windows read, and
  // where the input has more (floor division), MLIR 22 pads it by a negative amount, which
  // fails the compile. @match_conv_narrower_than_short: ow < S (@f32_short_lanes), widened
  // to S; @match_conv_narrow: S < ow < L, widened to L.
  transform.named_sequence @match_stride_one_conv(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nchw_fchw"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %batch, %image, %filters, %window, %channels, %depth, %strides, %dilations =
          transform.match.structured.classify_convolution_dims %s
          : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
                                    !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
                                    !transform.param<i64>, !transform.param<i64>)
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      %ones = transform.merge_handles %one, %one : !transform.param<i64>
      transform.match.param.cmpi eq %strides, %ones : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // As @match_stride_one_conv, with a static batch (a dynamic size compares below 1): the
  // paddings below only there. At a dynamic batch the padding amounts are computed
  // values, so zero pads and pads of pads do not fold into the conv's own, and each is a
  // copy of the whole input or output (8x128x28x28 input gradient at `?`: 9.7 ms
  // unpadded, 11.7 with the rows widened, 18 with every padding).
  transform.named_sequence @match_static_batch_stride_one_conv(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_stride_one_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %n = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %one : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_conv_narrower_than_short(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_stride_one_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %short = transform.include @f32_short_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi lt %ow, %short : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_conv_narrow(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_stride_one_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %short = transform.include @f32_short_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi gt %ow, %short : !transform.param<i64>
      %lanes = transform.include @f32_lanes failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi lt %ow, %lanes : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // A stride-1 conv with rows between one and a half and two vectors wide (L < 3L/2 < ow
  // < 2L: 28 for L = 16), on a machine whose whole-register FMAs cost what half-register
  // ones do (@f32_full_width_fma): such a row splits into three or more chunks (28 = 16 +
  // 8 + 4: three FMAs per row and channel), and is widened to two vectors instead (32: two
  // FMAs; @widen_conv_narrow pads to a multiple of L). Measured on Zen 5, 8x128x28x28: 9.0
  // -> 7.1 ms. Wider rows are left in chunks: 56 = 48 + 8 gains nothing from 64.
  transform.named_sequence @match_conv_ragged_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_static_batch_stride_one_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %full = transform.include @f32_full_width_fma failures(propagate) () : () -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %full, %one : !transform.param<i64>
      %ow = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %floor = transform.include @f32_lanes_and_a_half failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi gt %ow, %floor : !transform.param<i64>
      %two = transform.include @f32_lanes_x2 failures(propagate) () : () -> !transform.param<i64>
      transform.match.param.cmpi lt %ow, %two : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // The narrow conv computed one short vector wide: as @widen_conv_narrow, to S columns.
  transform.named_sequence @widen_conv_to_short(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %widened = transform.sequence %op : !transform.any_op -> !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %padded = transform.include @pad_dim3_to_short_vector_multiple failures(propagate) (%c)
          : (!transform.any_op) -> !transform.any_op
      transform.yield %padded : !transform.any_op
    }
    transform.yield %widened : !transform.any_op
  }

  // The narrow conv computed one vector wide: x padded with zero columns on the right and
  // the output sliced back to ow (L - ow wasted columns, 1 in 8 at ow = 7); @apply_conv then
  // schedules it as any other conv. Left as loops, such a conv ran on one thread at 1.5
  // GFLOP/s and took 7.8 of the 12.3 s of ResNet-18's training step. (Padding wider convs
  // up to a multiple of L as well, 14 -> 16 and 28 -> 32, measured slower than their
  // 8 + 4 + 2 and 24 + 4 chunks.)
  transform.named_sequence @widen_conv_narrow(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %widened = transform.sequence %op : !transform.any_op -> !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %padded = transform.include @pad_dim3_to_vector_multiple failures(propagate) (%c)
          : (!transform.any_op) -> !transform.any_op
      transform.yield %padded : !transform.any_op
    }
    transform.yield %widened : !transform.any_op
  }

  // A stride-1 conv with more channels than one 16-channel step but not a multiple of it
  // (24, 40, 104: MobileNet, EfficientNet, ShuffleNet, RegNet), or more filters than one
  // 8-filter block but not a multiple of 8 (12, 20, 116): its last channel step, or its
  // last filter block, had a dynamic size, and the whole register tile stayed scalar
  // loops (24 -> 24 channels at 14x14 ran 5x slower than PyTorch). Such a conv's channels
  // are padded with zeros up to a multiple of 16, its filters up to a multiple of 8 (the
  // result sliced back): at most 15 zero channels per 17 real ones, against scalar code.
  // No matcher can test divisibility: every such conv is padded, and where the step divides
  // the padding is by zero and folds away (the scheduled IR is the same as unpadded).
  transform.named_sequence @match_conv_channels_past_one_step(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_static_batch_stride_one_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %c = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %c, %c16 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_conv_filters_past_one_block(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %conv = transform.include @match_static_batch_stride_one_conv failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %m = transform.match.structured failures(propagate) %conv : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %f = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %f, %c8 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @pad_channels_to_steps(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %padded = transform.sequence %op : !transform.any_op -> !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %p, %pads = transform.structured.pad_tiling_interface %c to padding_sizes [0, 0, 0, 0, 16] pad_to_multiple_of
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.yield %p : !transform.any_op
    }
    transform.yield %padded : !transform.any_op
  }

  transform.named_sequence @pad_filters_to_blocks(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %padded = transform.sequence %op : !transform.any_op -> !transform.any_op failures(suppress) {
    ^bb0(%c: !transform.any_op):
      %p, %pads = transform.structured.pad_tiling_interface %c to padding_sizes [0, 8, 0, 0, 0] pad_to_multiple_of
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.yield %p : !transform.any_op
    }
    transform.yield %padded : !transform.any_op
  }

  // The functions that hold the padded convs %padded, canonicalized (see @apply_conv).
  transform.named_sequence @canonicalize_functions_of(%padded: !transform.any_op {transform.readonly}) {
    %functions = transform.get_parent_op %padded {op_name = "func.func", deduplicate}
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %functions {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    transform.yield
  }

  // Narrow convs are widened first, so that the second walk schedules them as the others
  // (a foreach_match inside an action does not match its own root). The functions that
  // hold a widened conv are then canonicalized for the loops' patterns, which fold the
  // weight's no-op padding (kh and kw are not padded): bufferized, it was a copy of the
  // whole weight per call. Only those functions: the same patterns on a pool gradient's
  // function cost its argmax its thread loop (lit_tests/schedules/pool.mlir).
  transform.named_sequence @apply_conv(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %stepped, %channel_padded = transform.foreach_match in %root
        @match_conv_channels_past_one_step -> @pad_channels_to_steps
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @canonicalize_functions_of failures(propagate) (%channel_padded) : (!transform.any_op) -> ()
    %blocked, %filter_padded = transform.foreach_match in %stepped
        @match_conv_filters_past_one_block -> @pad_filters_to_blocks
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @canonicalize_functions_of failures(propagate) (%filter_padded) : (!transform.any_op) -> ()
    %widened, %width_padded = transform.foreach_match in %blocked
        @match_conv_narrower_than_short -> @widen_conv_to_short,
        @match_conv_narrow -> @widen_conv_narrow,
        @match_conv_ragged_rows -> @widen_conv_narrow
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @canonicalize_functions_of failures(propagate) (%width_padded) : (!transform.any_op) -> ()
    %updated = transform.foreach_match in %widened
        @match_conv_filter_blocks -> @schedule_conv_filter_blocks,
        @match_conv_few_images -> @schedule_conv_rows,
        @match_conv -> @schedule_conv
        : (!transform.any_op) -> !transform.any_op
    transform.yield %updated : !transform.any_op
  }
}
