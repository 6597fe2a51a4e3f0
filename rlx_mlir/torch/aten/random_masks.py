"""Random ops: each mask is an argument of the step, not a draw of PyTorch's generator.

`Emitter.mask_argument` adds the argument; the step's caller draws (or replays) it.
"""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter, OnlyFor

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


@converts(aten.native_dropout.default)
def native_dropout(e: Emitter, node, x, p, train):
    """(y, mask) with `y = x * mask * (1 / (1 - p))`, the mask an argument (keep: 1 - p)."""
    if train is False:
        return x, OnlyFor("the mask of an evaluation-mode dropout", ())
    mask = e.mask_argument("dropout", p, node.meta["val"][0])
    ty = e.type_of(node, 0)
    return e.emit(rlx.MulOp, [e.emit(rlx.MulOp, [x, mask], ty), e.scalar(dropout_scale(p), ty.element_type)], ty), mask


def dropout_scale(p: float) -> float:
    """ATen's `1 / (1 - p)`, and 0 for p = 1 (every cell dropped)."""
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


@converts(aten.native_dropout_backward.default)
def native_dropout_backward(e: Emitter, node, grad_output, mask, scale):
    """`dx = dy * mask * scale`."""
    ty = e.type_of(node)
    return e.emit(rlx.MulOp, [e.emit(rlx.MulOp, [grad_output, mask], ty), e.scalar(scale, ty.element_type)], ty)


@converts(aten.bernoulli.p)
def bernoulli(e: Emitter, node, x, p=0.5, generator=None):
    """A tensor of x's shape whose cells are 1 with probability p: an argument of the step."""
    return e.mask_argument("bernoulli", p, node.meta["val"])
