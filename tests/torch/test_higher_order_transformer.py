"""A transformer block's gradient penalty (`export_training_step(..., step_fn=f)`) against
PyTorch eager under its math attention backend.

The penalty is on the block's input embeddings, so the parameter gradient differentiates
attention twice. PyTorch's CPU flash kernel has no double backward; its math backend
(`sdpa_kernel(SDPBackend.MATH)`) has, and is both the oracle here and what our step traces
(`rlx_mlir.torch.higher_order`'s docstring). The comparison is `oracle.assert_step_matches`:
f64 within 1e-9 of PyTorch's f64 step, f32 by the oracle's rule.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from test_higher_order_steps import check

WIDTH, HEADS, LENGTH, BATCH = 32, 2, 8, 2


class PreNormBlock(nn.Module):
    """x + proj(causal attention(LayerNorm(x))), then + down(GELU(up(LayerNorm(x))))."""

    def __init__(self, width=WIDTH, heads=HEADS):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attended.transpose(1, 2).reshape(b, t, c))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


def embedding_penalty(block, embeddings, target):
    """MSE to a target, plus 0.1 * the mean squared norm of d sum(block(x)) / dx per token."""
    x = embeddings.requires_grad_(True)
    y = block(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    return F.mse_loss(y, target) + 0.1 * g.pow(2).sum(-1).mean()


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_transformer_block_embedding_penalty_matches_pytorch_math_backend(dtype):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(6)
    embeddings = torch.randn(BATCH, LENGTH, WIDTH, generator=generator)
    target = torch.randn(BATCH, LENGTH, WIDTH, generator=generator)
    with sdpa_kernel(SDPBackend.MATH):  # the oracle: the flash kernel has no double backward
        check(PreNormBlock(), embedding_penalty, (embeddings, target), dtype)


def test_the_flash_kernel_has_no_double_backward_in_pytorch():
    """Why the oracle is the math backend: under the default backend PyTorch eager refuses
    the step (if this starts passing, PyTorch gained the formula and the oracle may change)."""
    torch.manual_seed(0)
    block = PreNormBlock()
    loss = embedding_penalty(block, torch.randn(BATCH, LENGTH, WIDTH), torch.randn(BATCH, LENGTH, WIDTH))
    with pytest.raises(RuntimeError, match="derivative for .*flash_attention.*backward is not implemented"):
        torch.autograd.grad(loss, list(block.parameters()))
