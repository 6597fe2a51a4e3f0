"""`decompose-backward` for `rlx.attention_backward`: the flash backward over key blocks.

    D[i] = sum_d dout[i, d] out[i, d]
    dq = 0;  dk, dv = [B, Hkv, S padded, *]
    scf.for j0 in [0, S) step Bk:
        t  = masked_scores(q, k[j0 : j0 + Bk])       # [B, H, L, Bk], -inf where not attended
        p  = exp(t - lse)                             # the forward's weights, recomputed (0 where masked)
        dv[j0 : j0 + Bk] = sum_{g, i} p[hk G + g, i, j] dout[hk G + g, i]
        dp = sum_d dout[i, d] v[j0 + j, d]
        ds = scale * p * (dp - D)
        dq += sum_j ds[i, j] k[j0 + j]
        dk[j0 : j0 + Bk] = sum_{g, i} ds[hk G + g, i, j] q[hk G + g, i]
    dk, dv = their first S keys

The contractions are batched products over the kv heads (contractions.py). Every block's keys are written once, so dk and dv need no accumulation across blocks;
dq accumulates in place (its iter_arg is the contraction's init).
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import attention
from rlx_mlir.transforms.attention.blocks import KeyBlocks, MaskView, every, exp, row_map
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of


def bias_gradient(
    r: TensorBuilder, blocks: KeyBlocks, bias: MaskView, p: SSAValue, dp: SSAValue, d_rows: SSAValue,
    dbias: SSAValue, j0: SSAValue,
) -> SSAValue:
    """dbias += sum over the bias's broadcast dims of dS = p (dp - D), the gradient of the
    scores t (the bias is added after the scale). A keyed bias gets its block's keys
    written at j0; one that broadcasts over the keys accumulates every block in place."""
    shape = shape_of(bias.value)
    block_shape = blocks.block_shape(bias.value, axis=3) if bias.keyed else shape
    init = blocks.zeros(r, block_shape, p) if bias.keyed else dbias
    total = r.generic(
        ins=[p, dp, d_rows], init=init, maps=[every, every, row_map(4), bias.map()],
        iterators="".join("R" if size == 1 else "p" for size in shape),
        body=lambda x, p_, dp_, d_, acc: x.accumulate(acc, x.mul(p_, x.sub(dp_, d_))),
    )
    return blocks.write(r, total, dbias, j0, axis=3) if bias.keyed else total


class AttentionBackwardToLinalg(RewritePattern):
    """The backward, one key block per loop iteration (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: attention.AttentionBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        blocks = KeyBlocks.of(b, op)
        q, dout, lse = op.query, op.grad_output, op.logsumexp
        k, v = blocks.pad(b, op.key), blocks.pad(b, op.value)
        mask = blocks.mask_view(b)
        bias = mask if mask is not None and mask.is_bias else None
        element = element_type_of(q)
        scale = op.scale
        rows = shape_of(lse)
        d_rows = b.generic(
            ins=[dout, op.output], init=blocks.zeros(b, rows, q), maps=[every, every, row_map(4)],
            iterators="pppR", body=lambda x, do_, o_, acc: x.accumulate(acc, x.mul(do_, o_)),
        )
        heads = blocks.head_groups
        dq0 = blocks.zeros(b, shape_of(q), q)
        dk0 = blocks.empty(b, blocks.shape(op.key, blocks.padded), q)
        dv0 = blocks.empty(b, blocks.shape(op.value, blocks.padded), q)
        dbias0 = [] if bias is None else [
            blocks.empty(b, shape_of(bias.value), q) if bias.keyed else blocks.zeros(b, shape_of(bias.value), q)
        ]

        def step(r: TensorBuilder, j0, carried):
            dq, dk, dv, *dbias = carried
            k_block, v_block = blocks.read(r, k, j0), blocks.read(r, v, j0)
            t = blocks.masked_scores(r, q, k_block, j0, mask)
            p = r.generic(
                ins=[t, lse], init=blocks.empty(r, shape_of(t), q), maps=[every, row_map(4), every],
                iterators="pppp", body=lambda x, t_, l_, _out: exp(x, x.sub(t_, l_)),
            )
            dv_block = heads.key_gradient(r, p, dout, blocks.zeros(r, blocks.block_shape(op.value), q))
            dp = heads.product_transposed(r, dout, v_block, blocks.zeros(r, shape_of(t), q))
            ds = r.generic(
                ins=[p, dp, d_rows], init=blocks.empty(r, shape_of(t), q), maps=[every, every, row_map(4), every],
                iterators="pppp",
                body=lambda x, p_, dp_, d_, _out: x.mul(x.mul(p_, x.sub(dp_, d_)), x.constant(scale, element)),
            )
            dq_new = heads.product(r, ds, k_block, dq)
            dk_block = heads.key_gradient(r, ds, q, blocks.zeros(r, blocks.block_shape(op.key), q))
            grads = [dq_new, blocks.write(r, dk_block, dk, j0), blocks.write(r, dv_block, dv, j0)]
            if bias is not None:
                grads.append(bias_gradient(r, blocks, bias, p, dp, d_rows, dbias[0], j0))
            return grads

        dq, dk, dv, *dbias = blocks.loop(rewriter, b, [dq0, dk0, dv0, *dbias0], step)
        results = [dq, blocks.first_keys(b, dk), blocks.first_keys(b, dv)]
        if bias is not None:
            results.append(bias.own_rank(b, blocks.first_keys(b, dbias[0], axis=3) if bias.keyed else dbias[0]))
        rewriter.replace(op, [], results)
