"""Key blocks: what the flash-style loops of both directions share.

The keys are visited in blocks of `KEY_BLOCK` (or all S at once when S is smaller), in
one `scf.for` whose induction variable j0 is the block's first key. k and v are
zero-padded once to a whole number of blocks, so every block has one static shape and
the tail block reads no element out of bounds: its padding keys are masked like any key
outside the attended set, and the backward drops their gradient rows at the end. Only a
block's [B, H, L, Bk] scores exist at a time, never a head's [L, S] matrix, and the IR
has one loop whatever B, H, L, S and E are.

GQA is in the indexing maps: query head h reads kv head h floordiv G, and a kv head's
gradient sums over its G query heads hk * G + g as reduction loops.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import scf, tensor
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from rlx_mlir.dialects.attention import AttentionBase
from rlx_mlir.dialects.properties import I1
from rlx_mlir.transforms.attention.contractions import HeadGroups
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of

KEY_BLOCK = 32
"""Keys per block: a block's scores [B, H, L, 32] stay in cache between the block's
passes over them while its contractions are long enough to vectorize. Forward plus
backward, f32 on 2 cores (one process, interleaved), 32 against 64: 1.13-1.21x faster at
nanoGPT's [8, 6, 256, 64] causal, 1.31x at ViT's [8, 12, 197, 64] (also less padding:
197 keys pad to 224, not 256); 16 and 128 were slower than 64's neighbours."""


def exp(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return r.value(math_dialect.ExpOp(x))


def log(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return r.value(math_dialect.LogOp(x))


@dataclass(frozen=True)
class KeyBlocks:
    """The blocked key axis of one attention op, and the values every block reads."""

    op: AttentionBase
    length: int
    """S, the number of keys."""
    size: int
    """Bk, keys per block."""
    batch: tuple[SSAValue, ...]
    """The dynamic batch size (read once, before the loop), or nothing."""

    @staticmethod
    def of(b: TensorBuilder, op: AttentionBase) -> KeyBlocks:
        length = shape_of(op.key)[2]
        return KeyBlocks(op, length, min(KEY_BLOCK, length), tuple(b.dynamic_sizes(shape_of(op.query)[:1], op.query)))

    @property
    def head_groups(self) -> HeadGroups:
        """The block contractions as batched products over kv heads (contractions.py)."""
        return HeadGroups(self.op.group(), self.batch)

    @property
    def padded(self) -> int:
        """S rounded up to whole blocks."""
        return math.ceil(self.length / self.size) * self.size

    def pad(self, b: TensorBuilder, value: SSAValue, axis: int = 2) -> SSAValue:
        """k or v [B, Hkv, S, *] (a mask: its key `axis` 3) with zero keys appended up to the padded length."""
        high = [0, 0, 0, 0]
        high[axis] = self.padded - self.length
        return b.pad(value, (0, 0, 0, 0), high, 0.0)

    def block_shape(self, value: SSAValue, axis: int = 2) -> list[int]:
        """A [B, heads, S', d] tensor's shape with Bk keys (on `axis`)."""
        return self.shape(value, self.size, axis)

    def read(self, r: TensorBuilder, value: SSAValue, j0: SSAValue, axis: int = 2) -> SSAValue:
        """value[:, :, j0 : j0 + Bk, :] (the keys on `axis`)."""
        shape = self.block_shape(value, axis)
        sizes = [self.batch[0] if is_dynamic(shape[0]) else shape[0], *shape[1:]]
        offsets: list[SSAValue | int] = [0, 0, 0, 0]
        offsets[axis] = j0
        block_type = TensorType(element_type_of(value), shape)
        return r.value(tensor.ExtractSliceOp(value, offsets, sizes, [1, 1, 1, 1], block_type))

    def write(self, r: TensorBuilder, block: SSAValue, into: SSAValue, j0: SSAValue, axis: int = 2) -> SSAValue:
        """`into` with `block` at [:, :, j0 : j0 + Bk, :] (the keys on `axis`)."""
        offsets = [0, 0, 0, 0]
        offsets[axis] = DYNAMIC_INDEX
        return r.value(
            tensor.InsertSliceOp.get(
                block, into, static_sizes=shape_of(block), static_offsets=offsets,
                static_strides=[1] * 4, offsets=[j0], sizes=list(self.batch) if is_dynamic(shape_of(block)[0]) else [],
            )
        )

    def first_keys(self, b: TensorBuilder, value: SSAValue, axis: int = 2) -> SSAValue:
        """value[:, :, :S, :]: a padded gradient without its padding keys (on `axis`)."""
        if self.padded == self.length:
            return value
        return b.extract_slice(value, (0, 0, 0, 0), self.shape(value, self.length, axis))

    def shape(self, value: SSAValue, axis_size: int, axis: int = 2) -> list[int]:
        """value's shape with its key `axis` set to `axis_size`."""
        shape = list(shape_of(value))
        shape[axis] = axis_size
        return shape

    def mask_view(self, b: TensorBuilder) -> MaskView | None:
        """The mask operand as a [B', H', L', S'] tensor (each dim 1 or full), its keys padded."""
        mask = self.op.mask
        if mask is None:
            return None
        shape = tuple(shape_of(mask))
        offset = 4 - len(shape)
        if offset:
            groups = [list(range(offset + 1)), *([offset + i] for i in range(1, len(shape)))]
            mask = b.expand_shape(mask, groups, (1,) * offset + shape)
        keyed = shape_of(mask)[3] != 1
        return MaskView(self.pad(b, mask, axis=3) if keyed else mask, keyed, self.op.is_bias(), len(shape))

    def zeros(self, b: TensorBuilder, shape: Sequence[int], like: SSAValue) -> SSAValue:
        return b.full(shape, element_type_of(like), 0.0, sizes=self.batch if is_dynamic(shape[0]) else ())

    def empty(self, b: TensorBuilder, shape: Sequence[int], like: SSAValue) -> SSAValue:
        return b.empty(shape, element_type_of(like), sizes=self.batch if is_dynamic(shape[0]) else ())

    def loop(
        self, rewriter: PatternRewriter, b: TensorBuilder, carried: Sequence[SSAValue],
        step: Callable[[TensorBuilder, SSAValue, Sequence[SSAValue]], Sequence[SSAValue]],
    ) -> Sequence[SSAValue]:
        """scf.for j0 in [0, padded) step Bk, carrying `carried`: `step(r, j0, carried)` gives the next."""
        body = Block(arg_types=[IndexType(), *(v.type for v in carried)])
        r = TensorBuilder.appending_to(body, rewriter, self.op)
        r.emit(scf.YieldOp(*step(r, body.args[0], body.args[1:])))
        loop = b.emit(scf.ForOp(b.index(0), b.index(self.padded), b.index(self.size), list(carried), Region(body)))
        return loop.results

    def masked_scores(
        self, r: TensorBuilder, query: SSAValue, key_block: SSAValue, j0: SSAValue, mask: MaskView | None
    ) -> SSAValue:
        """t[b, h, i, j] = scale * sum_e q[b, h, i, e] k[b, h / G, j0 + j, e] (+ bias), or -inf
        where key j0 + j is not attended by row i (padding, causal, window, a false mask)."""
        op = self.op
        shape = [*shape_of(query)[:3], self.size]
        dot = self.head_groups.product_transposed(r, query, key_block, self.zeros(r, shape, query))
        element = element_type_of(query)
        scale, causal, window, length = op.scale, op.causal(), op.window, self.length

        def score(x: RegionBuilder, s_, *mask_and_out):
            row, key = x.loop_index(2), x.add(j0, x.loop_index(3))
            masked = x.cmpi("sge", key, x.index(length))
            if causal:
                masked = x.or_(masked, x.cmpi("sgt", key, row))
            if window:
                masked = x.or_(masked, x.cmpi("sle", x.add(key, x.index(window)), row))
            scaled = x.mul(s_, x.constant(scale, element))
            if mask is not None and mask.is_bias:
                scaled = x.add(scaled, mask_and_out[0])
            elif mask is not None:
                masked = x.select(mask_and_out[0], masked, x.constant(True, I1))
            return x.select(masked, x.constant(-math.inf, element), scaled)

        masks = [] if mask is None else [mask.block(r, self, j0)]
        return r.generic(
            ins=[dot, *masks], init=self.empty(r, shape, query),
            maps=[every, *(mask.map() for _ in masks), every], iterators="pppp", body=score,
        )


@dataclass(frozen=True)
class MaskView:
    """The mask operand as [B', H', L', S'] (each dim 1 or the full size)."""

    value: SSAValue
    """Rank 4; its keys padded to whole blocks when it has them."""
    keyed: bool
    """Whether it has a key dim (S' = S), read one block at a time; else it broadcasts over keys."""
    is_bias: bool
    """An additive float bias (else an i1 mask, true = attend)."""
    rank: int
    """The operand's own rank (up to 4; its leading dims were added as units)."""

    def block(self, r: TensorBuilder, blocks: KeyBlocks, j0: SSAValue) -> SSAValue:
        return blocks.read(r, self.value, j0, axis=3) if self.keyed else self.value

    def map(self) -> AffineMap:
        """Read over the loops (b, h, i, j): a broadcast (unit) dim at 0."""
        shape = shape_of(self.value)
        return dims_map(4, lambda d: tuple(0 if shape[a] == 1 else d[a] for a in range(4)))

    def own_rank(self, b: TensorBuilder, value: SSAValue) -> SSAValue:
        """A [B', H', L', S'] value of the operand's rank again (the added unit dims dropped)."""
        offset = 4 - self.rank
        if not offset:
            return value
        return b.collapse_shape(value, [list(range(offset + 1)), *([offset + i] for i in range(1, self.rank))])


def is_empty_row(r: RegionBuilder, row_sum: SSAValue) -> SSAValue:
    """Whether a row attended no key: its sum of exponentials is 0 (each attended term is
    exp(s - max) > 0 for the row's largest s, which contributes 1)."""
    return r.cmpf("oeq", row_sum, r.constant(0.0, row_sum.type))


def every(b, h, i, j):
    """A [B, H, L, *] value over its own four loops."""
    return (b, h, i, j)


def row_map(loops: int) -> AffineMap:
    """A per-row [B, H, L] value, read at the row, among `loops` loops (b, h, i, ...)."""
    return dims_map(loops, lambda d: d[:3])

