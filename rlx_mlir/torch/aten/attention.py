"""Scaled dot-product attention: PyTorch's CPU flash kernel and its backward, kept whole.

`F.scaled_dot_product_attention` reaches `_scaled_dot_product_flash_attention_for_cpu`
when its kernel applies (no dropout, E == Ev); a bool `attn_mask` arrives already made an
additive float bias (`where(mask, 0, -inf)`), and grouped-query attention as fewer key
heads than query heads. Otherwise PyTorch takes its math path, whose `bmm`, `_softmax`,
masks and `native_dropout` import op by op. `rlx.attention` needs the scale PyTorch leaves
to None: 1/sqrt(E), as ATen's `calculate_scale`. Its backward returns the bias's gradient
for a float mask, which ATen's flash backward does not (PyTorch gives an attention mask no
gradient through this kernel): it is dropped.
"""

from __future__ import annotations

import math

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def attention_properties(e: Emitter, query, dropout_p, is_causal, scale) -> dict:
    """`rlx.attention`'s properties from ATen's arguments; dropout inside the kernel is refused."""
    if dropout_p:
        raise e.fail(
            f"attention with dropout_p={dropout_p} inside the flash kernel: RLX's attention has no dropout "
            "(PyTorch's math path, with the dropout as its own op, imports)"
        )
    if scale is None:
        scale = 1.0 / math.sqrt(e.shape(query)[-1])
    return {"scale": float(scale), "is_causal": bool(is_causal)}


def with_mask(e: Emitter, op_class, operands, mask, result_types, **properties):
    """`op_class`(operands, mask) with its optional mask operand (and result) left empty
    when absent, as xDSL builds an optional operand."""
    op = e.append(op_class.build_with([*operands, [] if mask is None else mask], result_types, **properties))
    return tuple(op.results)


@converts(aten._scaled_dot_product_flash_attention_for_cpu.default)
def flash_attention(e: Emitter, node, query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None,
                    scale=None):
    """(out, logsumexp)."""
    properties = attention_properties(e, query, dropout_p, is_causal, scale)
    return with_mask(e, rlx.AttentionOp, [query, key, value], attn_mask, [e.type_of(node, 0), e.type_of(node, 1)],
                     **properties)


@converts(aten._scaled_dot_product_flash_attention_for_cpu_backward.default)
def flash_attention_backward(e: Emitter, node, grad_output, query, key, value, output, logsumexp, dropout_p,
                             is_causal, *, attn_mask=None, scale=None):
    """(grad_query, grad_key, grad_value); a float mask's gradient is computed and dropped."""
    properties = attention_properties(e, query, dropout_p, is_causal, scale)
    bias = attn_mask is not None and e.dtype_of(node.kwargs["attn_mask"]) is not torch.bool
    types = [e.type_of(node, i) for i in range(3)] + [attn_mask.type if bias else []]
    grads = with_mask(e, rlx.AttentionBackwardOp, [grad_output, query, key, value, output, logsumexp], attn_mask,
                      types, **properties)
    return grads[:3]
