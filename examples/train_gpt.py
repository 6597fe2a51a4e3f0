"""Train a character-level GPT with our compiled training step, next to PyTorch eager.

    python examples/train_gpt.py [--steps 80] [--quiet]

The text is the source of a module of Python's standard library (`textwrap.py`), so
nothing is downloaded. The model is nanoGPT's at a small size (2 layers, 4 heads, width
64, block 32, learned position embeddings, causal `F.scaled_dot_product_attention`,
GELU, LayerNorm, a head tied to the token embedding). It is exported once with
`rlx_mlir.torch.export_training_step` and compiled to native code. Two copies start from
the same weights: one trains with our compiled step (loss and gradients from native code,
the AdamW update in PyTorch), the other with PyTorch eager (`loss.backward()`), on the
same batches. Each step prints both losses; at the end the script prints a sample
generated with the weights our step trained.

The script checks, and exits 1 otherwise, that the two loss curves agree within 1e-3 at
every step and that our run learned: the mean of its last 10 losses is below 70% of
log(vocabulary), the loss of a uniform guess.
"""

from __future__ import annotations

import argparse
import copy
import inspect
import math
import sys
import textwrap

import torch
import torch.nn as nn
import torch.nn.functional as F

from rlx_mlir.torch import export_training_step

BLOCK, WIDTH, HEADS, LAYERS, BATCH = 32, 64, 4, 2, 8
LOSS_AGREEMENT = 1e-3


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(WIDTH, 3 * WIDTH)
        self.c_proj = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(WIDTH, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(WIDTH), CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self, vocabulary: int):
        super().__init__()
        self.wte = nn.Embedding(vocabulary, WIDTH)
        self.wpe = nn.Embedding(BLOCK, WIDTH)
        self.h = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(WIDTH)
        self.lm_head = nn.Linear(WIDTH, vocabulary, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


def corpus():
    """The characters of textwrap.py as token ids, and the alphabet."""
    text = inspect.getsource(textwrap)
    alphabet = sorted(set(text))
    index = {ch: i for i, ch in enumerate(alphabet)}
    return torch.tensor([index[ch] for ch in text], dtype=torch.long), alphabet


def batches(data, steps: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        starts = torch.randint(0, len(data) - BLOCK - 1, (BATCH,), generator=generator)
        yield (torch.stack([data[s:s + BLOCK] for s in starts]), torch.stack([data[s + 1:s + BLOCK + 1] for s in starts]))


@torch.no_grad()
def sample(model, alphabet, length: int = 120, seed: int = 0) -> str:
    generator = torch.Generator().manual_seed(seed)
    idx = torch.zeros((1, 1), dtype=torch.long)
    for _ in range(length):
        logits = model(idx[:, -BLOCK:])[:, -1]
        idx = torch.cat([idx, torch.multinomial(logits.softmax(-1), 1, generator=generator)], dim=1)
    return "".join(alphabet[i] for i in idx[0].tolist())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--quiet", action="store_true", help="print only every 20th step")
    args = parser.parse_args(argv)
    data, alphabet = corpus()
    torch.manual_seed(0)
    ours = Gpt(len(alphabet))
    eager = copy.deepcopy(ours)
    x0, y0 = next(batches(data, 1))
    compiled = export_training_step(ours, (x0, y0), loss_fn=next_token_loss).compile()
    optimizers = [torch.optim.AdamW(m.parameters(), lr=3e-3) for m in (ours, eager)]
    worst, losses = 0.0, []
    for step, (x, y) in enumerate(batches(data, args.steps), start=1):
        loss, grads, _ = compiled(x, y)
        for name, parameter in ours.named_parameters():
            parameter.grad = torch.from_numpy(grads[name])
        optimizers[0].step()
        optimizers[1].zero_grad()
        eager_loss = next_token_loss(eager(x), y)
        eager_loss.backward()
        optimizers[1].step()
        ours_loss, eager_value = float(loss), eager_loss.item()
        worst = max(worst, abs(ours_loss - eager_value))
        losses.append(ours_loss)
        if not args.quiet or step % 20 == 0 or step == args.steps:
            print(f"step {step:4d}: loss ours {ours_loss:.5f}  eager {eager_value:.5f}")
    final, uniform = sum(losses[-10:]) / len(losses[-10:]), math.log(len(alphabet))
    print(f"largest loss difference {worst:.2e}; mean of the last 10 losses {final:.3f} (uniform guess {uniform:.3f})")
    print("sample:", repr(sample(ours, alphabet)))
    agree, learned = worst <= LOSS_AGREEMENT, final <= 0.7 * uniform
    if not (agree and learned):
        print(f"FAILED: loss curves agree within {LOSS_AGREEMENT}: {agree}; learned: {learned}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
