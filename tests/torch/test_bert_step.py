"""A BERT-style encoder's masked-language-model step, imported from PyTorch, against eager.

`nn.TransformerEncoderLayer` (batch_first, GELU, both `norm_first` arrangements) under a
`src_key_padding_mask` of varying lengths (padded keys are not attended), token and
position embeddings, and a masked-language-model loss: cross-entropy whose `ignore_index`
skips every position that is not a prediction target. Dropout 0.1 in the layers' three
`nn.Dropout`s, whose masks the step takes and PyTorch replays (the attention's internal
dropout is set to 0: PyTorch's kernel draws it where no mask can be replayed). The comparison is `oracle.assert_step_matches`.
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

VOCAB, WIDTH, HEADS, FEEDFORWARD, LAYERS, LENGTH, IGNORE = 50, 32, 4, 64, 2, 12, -100
LENGTHS = (12, 7, 3)
"""The sequences' true lengths: the rest of each row is padding."""


class Encoder(nn.Module):
    def __init__(self, norm_first: bool):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Embedding(LENGTH, WIDTH)
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(WIDTH, HEADS, FEEDFORWARD, dropout=0.1, activation="gelu", batch_first=True,
                                       norm_first=norm_first)
            for _ in range(LAYERS)
        ])
        for layer in self.layers:
            # The attention's own dropout runs inside PyTorch's attention kernel, whose masks
            # cannot be replayed; the layer's three nn.Dropout modules keep theirs.
            layer.self_attn.dropout = 0.0
        self.head = nn.Linear(WIDTH, VOCAB)
        padding = torch.arange(LENGTH)[None, :] >= torch.tensor(LENGTHS)[:, None]
        self.register_buffer("padding", padding, persistent=False)

    def forward(self, idx):
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1]))
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=self.padding)
        return self.head(x)


def masked_lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=IGNORE)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
@f64_and_f32_when_asked("60-135 s on 2 heavily loaded cores")
def test_bert_masked_lm_step_matches_pytorch(dtype, norm_first):
    torch.manual_seed(0)
    model = Encoder(norm_first)
    generator = torch.Generator().manual_seed(1)
    idx = torch.randint(0, VOCAB, (len(LENGTHS), LENGTH), generator=generator)
    targets = torch.randint(0, VOCAB, (len(LENGTHS), LENGTH), generator=generator)
    chosen = torch.rand(len(LENGTHS), LENGTH, generator=generator) < 0.3
    targets = torch.where(chosen & ~model.padding, targets, torch.full_like(targets, IGNORE))
    masks = DropoutMasks()
    want64 = eager_step(model.double(), idx, targets, masked_lm_loss, masks=masks)
    want32 = [eager_step(model.float(), idx, targets, masked_lm_loss, masks=masks)]
    ours = imported_step(model.to(dtype).train(), dtype, idx, targets, masks, loss_fn=masked_lm_loss)
    assert_step_matches(ours, want64, want32, NUMPY[dtype], label=f"bert {dtype} norm_first={norm_first}")
