"""Matrix products: `addmm` keeps its `beta` and `alpha`; `mm` and `bmm` are `rlx.matmul`."""

from __future__ import annotations

import torch

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


@converts(aten.addmm.default)
def addmm(e: Emitter, node, bias, a, b, beta=1, alpha=1):
    return e.emit(rlx.AddmmOp, [bias, a, b], e.type_of(node), beta=float(beta), alpha=float(alpha))


@converts(aten.mm.default, aten.bmm.default)
def matmul(e: Emitter, node, a, b):
    return e.emit(rlx.MatmulOp, [a, b], e.type_of(node))
