"""A key block's contractions as batched matrix products, the form the schedule vectorizes.

Query head h = hk * G + g reads kv head hk (GQA), so a kv head's G query heads share its
keys and values: viewed as [B * Hkv, G * L, d] (one reshape, no copy), the G heads' rows
are one matrix per kv head, and every contraction of a block is a `batch_matmul` over the
B * Hkv kv heads ([B * Hkv, Bk, d] for the block's keys and values):

    scores = q . k_blockᵀ        dp = dout . v_blockᵀ       (the key block transposed once)
    acc   += p . v_block         dq += ds . k_block
    dv     = pᵀ . dout           dk  = dsᵀ . q              (the block's weights transposed once)

Each transposed operand is a [*, Bk, *] block copy, so that every product reads its
right operand and writes its result along contiguous rows (a product along a strided axis
vectorized as gathers, one lane at a time).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import SSAValue

from rlx_mlir.transforms.builders import TensorBuilder, shape_of
from rlx_mlir.transforms.matmul.batched import batch_matmul


@dataclass(frozen=True)
class HeadGroups:
    """The views between [B, H, L, d] (or [B, Hkv, S, d]) and [B * Hkv, rows, d]."""

    group: int
    """G, query heads per kv head."""
    batch: tuple[SSAValue, ...]
    """The dynamic batch size B, or nothing."""

    def rows(self, b: TensorBuilder, value: SSAValue) -> SSAValue:
        """[B, H, L, d] -> [B * Hkv, G * L, d]: each kv head's query rows, G heads after another."""
        n, h, length, d = shape_of(value)
        grouped = b.expand_shape(value, [[0], [1, 2], [3], [4]], (n, h // self.group, self.group, length, d))
        return b.collapse_shape(grouped, [[0, 1], [2, 3], [4]])

    def unrows(self, b: TensorBuilder, value: SSAValue, like: SSAValue) -> SSAValue:
        """The inverse of `rows`, back to `like`'s [B, H, L, d'] with d' = value's last dim."""
        n, h, length, _ = shape_of(like)
        d = shape_of(value)[2]
        grouped = b.expand_shape(
            value, [[0, 1], [2, 3], [4]], (n, h // self.group, self.group, length, d), sizes=self.batch
        )
        return b.collapse_shape(grouped, [[0], [1, 2], [3], [4]])

    def heads(self, b: TensorBuilder, value: SSAValue) -> SSAValue:
        """[B, Hkv, S, d] -> [B * Hkv, S, d]."""
        return b.collapse_shape(value, [[0, 1], [2], [3]])

    def unheads(self, b: TensorBuilder, value: SSAValue, like: SSAValue) -> SSAValue:
        """The inverse of `heads`, back to `like`'s [B, Hkv, S, d]."""
        return b.expand_shape(value, [[0, 1], [2], [3]], shape_of(like), sizes=self.batch)

    def transposed(self, b: TensorBuilder, value: SSAValue) -> SSAValue:
        """[I, M, N] -> [I, N, M]."""
        return b.transpose(value, [0, 2, 1])

    def product(self, b: TensorBuilder, a: SSAValue, c: SSAValue, init: SSAValue) -> SSAValue:
        """init + a . c, all three in [B, H, L, *] (query rows) except c in [B, Hkv, S, *]
        (a block's keys or values): y[b, h, i, n] = init + sum_k a[b, h, i, k] c[b, h / G, k, n]."""
        return self.unrows(b, batch_matmul(b, self.rows(b, a), self.heads(b, c), self.rows(b, init)), init)

    def product_transposed(self, b: TensorBuilder, a: SSAValue, c: SSAValue, init: SSAValue) -> SSAValue:
        """init + a . cᵀ: y[b, h, i, j] = init + sum_d a[b, h, i, d] c[b, h / G, j, d] (c is a
        block of keys or values, transposed once)."""
        c_t = self.transposed(b, self.heads(b, c))
        return self.unrows(b, batch_matmul(b, self.rows(b, a), c_t, self.rows(b, init)), init)

    def key_gradient(self, b: TensorBuilder, w: SSAValue, x: SSAValue, init: SSAValue) -> SSAValue:
        """init + wᵀ . x summed over each kv head's G query heads: y[b, hk, j, d] = init +
        sum_{g, i} w[b, hk G + g, i, j] x[b, hk G + g, i, d] (w a block's [B, H, L, Bk]
        weights, transposed once; init a [B, Hkv, Bk, d] block)."""
        w_t = self.transposed(b, self.rows(b, w))
        return self.unheads(b, batch_matmul(b, w_t, self.rows(b, x), self.heads(b, init)), init)
