"""`convert-rlx-to-linalg` for `rlx.attention`: an online softmax over key blocks.

    m = -inf, l = 0, acc = 0                               # per row: [B, H, L], [B, H, L, Ev]
    scf.for j0 in [0, S) step Bk:
        t      = masked_scores(q, k[j0 : j0 + Bk])         # [B, H, L, Bk], -inf where not attended
        m_new  = max(m, max_j t)
        alpha  = exp(m - m_new),  p = exp(t - m_new)        # m_new = -inf (nothing attended yet): 0
                                                            # stands for m_new in both
        l      = l * alpha + sum_j p
        acc    = acc * alpha + sum_j p v[j0 + j]
        m      = m_new
    out = acc / l,  lse = m + log l                         # a row with l = 0: out 0, lse 0

Each line is one linalg op on the block; the two sums over j are contractions.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import attention
from rlx_mlir.transforms.attention.blocks import KeyBlocks, every, exp, is_empty_row, log, row_map
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of


def finite_max(r: RegionBuilder, m: SSAValue) -> SSAValue:
    """The running max, with -inf (no key attended yet) read as 0 so that exp(x - m) is
    exp(-inf) = 0 rather than NaN."""
    return r.select(r.cmpf("oeq", m, r.constant(-math.inf, m.type)), r.constant(0.0, m.type), m)


class AttentionToLinalg(RewritePattern):
    """The forward, one key block per loop iteration (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: attention.AttentionOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        blocks = KeyBlocks.of(b, op)
        q = op.query
        k, v = blocks.pad(b, op.key), blocks.pad(b, op.value)
        mask = blocks.mask_view(b)
        rows, out_shape = shape_of(op.logsumexp), shape_of(op.output)
        m0 = b.full(rows, element_type_of(q), -math.inf, sizes=blocks.batch)
        l0 = blocks.zeros(b, rows, q)
        acc0 = blocks.zeros(b, out_shape, q)

        def step(r: TensorBuilder, j0, carried):
            # Each carried value is last written in place (the generic's init is the
            # iter_arg), so that bufferization keeps one buffer per value for the whole loop.
            m, l, acc = carried
            t = blocks.masked_scores(r, q, blocks.read(r, k, j0), j0, mask)
            block_max = r.generic(
                ins=[t], init=r.full(rows, element_type_of(q), -math.inf, sizes=blocks.batch),
                maps=[every, row_map(4)], iterators="pppR",
                body=lambda x, t_, m_: x.value(arith.MaximumfOp(m_, t_)),
            )
            alpha = r.generic(
                ins=[m, block_max], init=blocks.empty(r, rows, q), maps=[row_map(3)] * 3, iterators="ppp",
                body=lambda x, m_, n_, _out: exp(x, x.sub(m_, finite_max(x, x.value(arith.MaximumfOp(m_, n_))))),
            )
            m_new = r.generic(
                ins=[block_max], init=m, maps=[row_map(3)] * 2, iterators="ppp",
                body=lambda x, n_, m_: x.value(arith.MaximumfOp(m_, n_)),
            )
            p = r.generic(
                ins=[t, m_new], init=blocks.empty(r, shape_of(t), q),
                maps=[every, row_map(4), every], iterators="pppp",
                body=lambda x, t_, m_, _out: exp(x, x.sub(t_, finite_max(x, m_))),
            )
            l_scaled = r.generic(
                ins=[alpha], init=l, maps=[row_map(3)] * 2, iterators="ppp",
                body=lambda x, a_, l_: x.mul(l_, a_),
            )
            l_new = r.generic(
                ins=[p], init=l_scaled, maps=[every, row_map(4)], iterators="pppR",
                body=lambda x, p_, l_: x.accumulate(l_, p_),
            )
            acc_scaled = r.generic(
                ins=[alpha], init=acc, maps=[row_map(4), every], iterators="pppp",
                body=lambda x, s_, a_: x.mul(a_, s_),
            )
            acc_new = blocks.head_groups.product(r, p, blocks.read(r, v, j0), acc_scaled)
            return m_new, l_new, acc_new

        m, l, acc = blocks.loop(rewriter, b, [m0, l0, acc0], step)

        def normalize(x: RegionBuilder, a_, l_, _out):
            return x.select(is_empty_row(x, l_), x.constant(0.0, l_.type), x.div(a_, l_))

        def logsumexp(x: RegionBuilder, m_, l_, _out):
            return x.select(is_empty_row(x, l_), x.constant(0.0, l_.type), x.add(m_, log(x, l_)))

        out = b.generic(
            ins=[acc, l], init=blocks.empty(b, out_shape, q), maps=[every, row_map(4), every], iterators="pppp",
            body=normalize,
        )
        lse = b.generic(
            ins=[m, l], init=blocks.empty(b, rows, q), maps=[row_map(3)] * 3, iterators="ppp", body=logsumexp,
        )
        rewriter.replace(op, [], [out, lse])
