"""torchvision's VisionTransformer at a small size: its training step imported from
PyTorch, against PyTorch eager.

The definition follows torchvision/models/vision_transformer.py (MLPBlock, EncoderBlock,
Encoder, VisionTransformer: the conv patch projection, the class token, learned position
embeddings, `nn.MultiheadAttention(batch_first=True)` in training mode, GELU MLPs,
LayerNorm eps 1e-6, dropout, the zero-initialised head), without torchvision (its wheel
cannot be imported on the CPU torch build, see `models.py`). Size: image 32, patch 8,
2 layers, 4 heads, hidden 64, MLP 128, 10 classes, dropout 0.1 (the encoder's dropouts;
the attention's own dropout is torchvision's default, 0). The comparison is
`oracle.assert_step_matches` on the same weights, images and dropout masks.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
import torch
import torch.nn as nn

from asked_for import f64_and_f32_when_asked
from model_steps import NUMPY, imported_step
from oracle import assert_step_matches
from step_reference import DropoutMasks, eager_step

IMAGE, PATCH, LAYERS, HEADS, HIDDEN, MLP, CLASSES, DROPOUT = 32, 8, 2, 4, 64, 128, 10, 0.1


class MLPBlock(nn.Sequential):
    """torchvision's MLPBlock (an MLP from torchvision.ops.misc): Linear, GELU, Dropout, Linear, Dropout."""

    def __init__(self, in_dim: int, mlp_dim: int, dropout: float):
        super().__init__(nn.Linear(in_dim, mlp_dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(mlp_dim, in_dim),
                         nn.Dropout(dropout))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.normal_(m.bias, std=1e-6)


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x)
        x = x + input
        y = self.ln_2(x)
        y = self.mlp(y)
        return x + y


class Encoder(nn.Module):
    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout):
        super().__init__()
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        layers = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout)
        self.layers = nn.Sequential(layers)
        self.ln = nn.LayerNorm(hidden_dim, eps=1e-6)

    def forward(self, input):
        input = input + self.pos_embedding
        return self.ln(self.layers(self.dropout(input)))


class VisionTransformer(nn.Module):
    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, dropout=0.0,
                 attention_dropout=0.0, num_classes=1000):
        super().__init__()
        self.image_size, self.patch_size, self.hidden_dim = image_size, patch_size, hidden_dim
        self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout)
        self.seq_length = seq_length
        self.heads = nn.Sequential(OrderedDict(head=nn.Linear(hidden_dim, num_classes)))
        fan_in = self.conv_proj.in_channels * self.conv_proj.kernel_size[0] * self.conv_proj.kernel_size[1]
        nn.init.trunc_normal_(self.conv_proj.weight, std=(1 / fan_in) ** 0.5)
        nn.init.zeros_(self.conv_proj.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, c, h, w = x.shape
        p = self.patch_size
        n_h, n_w = h // p, w // p
        x = self.conv_proj(x)
        x = x.reshape(n, self.hidden_dim, n_h * n_w)
        return x.permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        n = x.shape[0]
        batch_class_token = self.class_token.expand(n, -1, -1)
        x = torch.cat([batch_class_token, x], dim=1)
        x = self.encoder(x)
        return self.heads(x[:, 0])


def vit() -> VisionTransformer:
    torch.manual_seed(0)
    model = VisionTransformer(IMAGE, PATCH, LAYERS, HEADS, HIDDEN, MLP, dropout=DROPOUT, num_classes=CLASSES)
    # torchvision zero-initialises the head, which makes every other gradient zero at the
    # first step: give it values so that the step exercises the whole network.
    nn.init.normal_(model.heads.head.weight, std=0.1)
    return model


@f64_and_f32_when_asked("60-135 s on 2 heavily loaded cores")
def test_vit_training_step_matches_pytorch(dtype):
    model = vit()
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, IMAGE, IMAGE, generator=generator)
    target = torch.randint(0, CLASSES, (2,), generator=generator)
    masks = DropoutMasks()
    want64 = eager_step(model.double(), x.double(), target, masks=masks)
    assert len(masks.masks) == 1 + 3 * LAYERS
    want32 = [eager_step(model.float(), x, target, masks=masks)]
    ours = imported_step(model.to(dtype).train(), dtype, x.to(dtype), target, masks)
    assert_step_matches(ours, want64, want32, NUMPY[dtype], label=f"vit {dtype}")
