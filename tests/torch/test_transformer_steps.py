"""A nanoGPT-style training step, imported from PyTorch, against PyTorch eager.

The model is nanoGPT's: learned token and position embeddings, pre-LayerNorm blocks (with
biases) of causal `F.scaled_dot_product_attention` over 4 heads and a GELU MLP, a final
LayerNorm and a head tied to the token embedding, dropout 0.1 after the embeddings, the
attention projection and the MLP; the loss is cross-entropy over the [B*T, V] logits.
The attention itself has no dropout (`dropout_p=0`): it then runs PyTorch's flash kernel,
kept whole as `rlx.attention`, and every dropout is an `nn.Dropout`, whose masks the step
takes as arguments and PyTorch replays (`step_reference.DropoutMasks`).

The comparison is `oracle.assert_step_matches`: in f64 within 1e-9 of PyTorch's f64 step,
in f32 by the oracle's rule against PyTorch's f32 and f64 steps on the same weights,
tokens and masks. The tied weight has one gradient, the sum of the embedding's and the
head's, under its one name.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from asked_for import f64_and_f32_when_asked
from model_steps import NUMPY, imported_step
from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step

VOCAB, BLOCK, WIDTH, HEADS, LAYERS, DROPOUT = 65, 32, 64, 4, 2, 0.1
BATCH, LENGTH = 2, 32


def eager_attention(q, k, v, dropout_p, is_causal):
    """PyTorch's math path of `F.scaled_dot_product_attention`, in eager ops, so that its
    dropout is an `F.dropout` the replayed masks reach (the kernel's own is not)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    causal = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
    weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
    return F.dropout(weights, dropout_p) @ v


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention; `attention` is `F.scaled_dot_product_attention` or, for the eager
    reference of a step with attention dropout, `eager_attention`."""

    def __init__(self, attention_dropout=0.0):
        super().__init__()
        self.attention = F.scaled_dot_product_attention
        self.attention_dropout = attention_dropout
        self.c_attn = nn.Linear(WIDTH, 3 * WIDTH)
        self.c_proj = nn.Linear(WIDTH, WIDTH)
        self.resid_dropout = nn.Dropout(DROPOUT)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(WIDTH, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        y = self.attention(q, k, v, dropout_p=self.attention_dropout if self.training else 0.0, is_causal=True)
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c)))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.c_proj = nn.Linear(4 * WIDTH, WIDTH)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, x):
        return self.dropout(self.c_proj(F.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, attention_dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(WIDTH)
        self.attn = CausalSelfAttention(attention_dropout)
        self.ln_2 = nn.LayerNorm(WIDTH)
        self.mlp = Mlp()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self, attention_dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, WIDTH)
        self.wpe = nn.Embedding(BLOCK, WIDTH)
        self.drop = nn.Dropout(DROPOUT)
        self.h = nn.ModuleList([Block(attention_dropout) for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(WIDTH)
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.wte.weight = self.lm_head.weight  # tied: one parameter, one summed gradient

    def forward(self, idx):
        positions = torch.arange(0, idx.shape[1], dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(positions))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def gpt_and_batch(attention_dropout=0.0):
    torch.manual_seed(0)
    model = Gpt(attention_dropout)
    generator = torch.Generator().manual_seed(1)
    idx = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=generator)
    targets = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=generator)
    return model, idx, targets


def our_step(model, dtype, idx, targets, masks: DropoutMasks) -> dict[str, np.ndarray]:
    return imported_step(model.to(dtype).train(), dtype, idx, targets, masks, loss_fn=next_token_loss)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_gpt_training_step_matches_pytorch(dtype):
    model, idx, targets = gpt_and_batch()
    masks = DropoutMasks()
    want64 = eager_step(model.double(), idx, targets, next_token_loss, masks=masks)
    assert len(masks.masks) == 1 + 2 * LAYERS
    want32 = [eager_step(model.float(), idx, targets, next_token_loss, masks=masks)]
    ours = our_step(model, dtype, idx, targets, masks)
    assert "grad/wte.weight" in ours and "grad/lm_head.weight" not in ours
    assert_step_matches(ours, want64, want32, NUMPY[dtype], label=f"gpt {dtype}")


def with_attention(model, attention):
    for block in model.h:
        block.attn.attention = attention
    return model


@f64_and_f32_when_asked("60-135 s on 2 heavily loaded cores")
def test_gpt_step_with_attention_dropout_matches_pytorch(dtype):
    """nanoGPT's `dropout_p=0.1` in the attention: PyTorch then takes SDPA's math path (bmm,
    softmax, the causal mask from arange and comparisons, native_dropout), which imports op
    by op; the eager reference is that path in eager ops with the same masks."""
    model, idx, targets = gpt_and_batch(DROPOUT)
    masks = DropoutMasks()
    reference = with_attention(copy.deepcopy(model), eager_attention)
    want64 = eager_step(reference.double(), idx, targets, next_token_loss, masks=masks)
    assert len(masks.masks) == 1 + 3 * LAYERS
    want32 = [eager_step(reference.float(), idx, targets, next_token_loss, masks=masks)]
    ours = our_step(model, dtype, idx, targets, masks)
    assert_step_matches(ours, want64, want32, NUMPY[dtype], label=f"gpt with attention dropout {dtype}")
