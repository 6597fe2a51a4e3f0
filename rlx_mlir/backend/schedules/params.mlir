// Schedule library of the `optimizing` pipelines: the machine parameters, as named sequences
// returning !transform.param<i64> that the other libraries include. Generated from
// rlx_mlir/backend/schedules/__init__.py (PARAMS): edit the values there and run
// `python -m rlx_mlir.backend.schedules --render`.
module attributes {transform.with_named_sequence} {

  // Iterations of a scheduled op's scf.forall: its threads.
  transform.named_sequence @num_threads() -> !transform.param<i64> {
    %p = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // f32 elements per vector register.
  transform.named_sequence @f32_lanes() -> !transform.param<i64> {
    %p = transform.param.constant 8 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // The narrowest vector a conv chunk is computed in: min(8, @f32_lanes).
  transform.named_sequence @f32_short_lanes() -> !transform.param<i64> {
    %p = transform.param.constant 8 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // Rows of the conv weight gradient's register tile (schedules.conv_weight_rows).
  transform.named_sequence @conv_weight_rows() -> !transform.param<i64> {
    %p = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // Two vector registers of f32.
  transform.named_sequence @f32_lanes_x2() -> !transform.param<i64> {
    %p = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // 1 where a whole-register FMA issues as often as a half-register one (512-bit FMA
  // units, schedules.FULL_WIDTH_FMA_CPUS), else 0.
  transform.named_sequence @f32_full_width_fma() -> !transform.param<i64> {
    %p = transform.param.constant 0 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // One and a half vector registers of f32: rows between this and @f32_lanes_x2 columns
  // split into three or more chunks (28 = 16 + 8 + 4 for 16 lanes).
  transform.named_sequence @f32_lanes_and_a_half() -> !transform.param<i64> {
    %p = transform.param.constant 12 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }

  // %op split along dimension 3 into chunks of whole vectors, then of halving widths
  // (56 = 7*8; 28 = 3*8 + 4 for 8 lanes): each chunk with its tile width. The
  // target size of continuous_tile_sizes is an attribute, not a param, in MLIR 22.
  transform.named_sequence @split_dim3_in_vector_chunks(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.param<i64>) {
    %widths, %ends = transform.structured.continuous_tile_sizes %op { dimension = 3, target_size = 8 }
        : (!transform.any_op) -> !transform.param<i64>
    %chunks = transform.structured.split %op after %ends { dimension = 3, multiway }
        : !transform.any_op, !transform.param<i64>
    transform.yield %chunks, %widths : !transform.any_op, !transform.param<i64>
  }

  // %op with its iteration dimension 3 padded up to a multiple of 8: its operands
  // padded with zeros of their element type, its result sliced back to its size. The
  // padding sizes are an attribute here: pad_tiling_interface does not substitute params in
  // MLIR 22.
  transform.named_sequence @pad_dim3_to_vector_multiple(%op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %padded, %pads = transform.structured.pad_tiling_interface %op to padding_sizes [0, 0, 0, 8] pad_to_multiple_of
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %padded : !transform.any_op
  }

  // As @pad_dim3_to_vector_multiple, up to a multiple of @f32_short_lanes (8).
  transform.named_sequence @pad_dim3_to_short_vector_multiple(%op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %padded, %pads = transform.structured.pad_tiling_interface %op to padding_sizes [0, 0, 0, 8] pad_to_multiple_of
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %padded : !transform.any_op
  }

  // A matmul packed into register tiles of 8 rows x 2 vectors (N0 = 16) and its
  // whole K: the sizes are an attribute here, transform.structured.pack takes no params in
  // MLIR 22.
  transform.named_sequence @pack_matmul_register_tiles(%op: !transform.any_op {transform.consumed})
      -> !transform.op<"linalg.generic"> {
    %packed = transform.structured.pack %op packed_sizes = [8, 16, 0]
        : (!transform.any_op) -> !transform.op<"linalg.generic">
    transform.yield %packed : !transform.op<"linalg.generic">
  }

  // %op (a matmul's linalg.unpack) tiled by register tiles of 8 rows x 2 vectors
  // (16), with the producers of its slices fused into the tile loops: the zero fill of
  // its destination, which the tile's write then overwrites in registers (no second pass).
  // The sizes are an attribute: transform.structured.fuse takes no params in MLIR 22.
  transform.named_sequence @fuse_into_register_tiles(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op) {
    %tiled, %loops:2 = transform.structured.fuse %op tile_sizes [8, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield %tiled, %loops#0, %loops#1 : !transform.any_op, !transform.any_op, !transform.any_op
  }

  // As @pack_matmul_register_tiles for f64: 8 rows x 2 f64 vectors (N0 = 8).
  transform.named_sequence @pack_f64_matmul_register_tiles(%op: !transform.any_op {transform.consumed})
      -> !transform.op<"linalg.generic"> {
    %packed = transform.structured.pack %op packed_sizes = [8, 8, 0]
        : (!transform.any_op) -> !transform.op<"linalg.generic">
    transform.yield %packed : !transform.op<"linalg.generic">
  }

  // As @fuse_into_register_tiles for f64 (8 x 8).
  transform.named_sequence @fuse_into_f64_register_tiles(%op: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op) {
    %tiled, %loops:2 = transform.structured.fuse %op tile_sizes [8, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield %tiled, %loops#0, %loops#1 : !transform.any_op, !transform.any_op, !transform.any_op
  }
}
