"""A Llama-style decoder's training step, imported from PyTorch, against PyTorch eager.

The model follows the reference implementations (Meta's Llama, HF's LlamaModel) at a small
size: RMSNorm written with elementwise ops, rotate-half rotary embeddings applied with
elementwise ops from cos/sin tables, grouped-query causal attention (4 query heads over 2
key/value heads, `enable_gqa`), a SwiGLU MLP, no biases, an untied head. The comparison is
`oracle.assert_step_matches`: f64 within 1e-9 of PyTorch's f64 step, f32 by the oracle's
rule against PyTorch's f32 and f64 steps.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from asked_for import f64_and_f32_when_asked
from model_steps import NUMPY, imported_step
from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step

VOCAB, WIDTH, HEADS, KV_HEADS, LAYERS, HIDDEN = 61, 32, 4, 2, 2, 88
BATCH, LENGTH = 2, 16
HEAD = WIDTH // HEADS


class RmsNorm(nn.Module):
    """`x * rsqrt(mean(x^2) + eps) * weight`, as Llama's reference code writes it."""

    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(WIDTH))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(WIDTH, HEADS * HEAD, bias=False)
        self.k_proj = nn.Linear(WIDTH, KV_HEADS * HEAD, bias=False)
        self.v_proj = nn.Linear(WIDTH, KV_HEADS * HEAD, bias=False)
        self.o_proj = nn.Linear(HEADS * HEAD, WIDTH, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, HEADS, HEAD).transpose(1, 2)
        k = self.k_proj(x).view(b, t, KV_HEADS, HEAD).transpose(1, 2)
        v = self.v_proj(x).view(b, t, KV_HEADS, HEAD).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, HEADS * HEAD))


class SwiGlu(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(WIDTH, HIDDEN, bias=False)
        self.up_proj = nn.Linear(WIDTH, HIDDEN, bias=False)
        self.down_proj = nn.Linear(HIDDEN, WIDTH, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm, self.post_attention_layernorm = RmsNorm(), RmsNorm()
        self.self_attn, self.mlp = Attention(), SwiGlu()

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, WIDTH)
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.norm = RmsNorm()
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)
        # f32 tables, as the weights: the f32 and f64 steps then start from the same values.
        inverse = 1.0 / (10000 ** (torch.arange(0, HEAD, 2, dtype=torch.float32) / HEAD))
        angles = torch.outer(torch.arange(LENGTH, dtype=torch.float32), inverse)
        angles = torch.cat((angles, angles), dim=-1)  # [T, HEAD], each angle twice (rotate-half)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, idx):
        x = self.embed_tokens(idx)
        cos, sin = self.cos.to(x.dtype), self.sin.to(x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


@f64_and_f32_when_asked("60-135 s on 2 heavily loaded cores")
def test_llama_training_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    model = Llama()
    generator = torch.Generator().manual_seed(1)
    idx = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=generator)
    targets = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=generator)
    masks = DropoutMasks()
    want64 = eager_step(model.double(), idx, targets, next_token_loss, masks=masks)
    want32 = [eager_step(model.float(), idx, targets, next_token_loss, masks=masks)]
    ours = imported_step(model.to(dtype).train(), dtype, idx, targets, masks, loss_fn=next_token_loss)
    assert_step_matches(ours, want64, want32, NUMPY[dtype], label=f"llama {dtype}")
