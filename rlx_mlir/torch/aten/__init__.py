"""ATen -> RLX: one converter per ATen op, each reading like the mapping it implements.

A converter takes the emitter `e`, the FX node, and the node's arguments as ATen's schema
names them, with every tensor already an RLX value (a Python number stays a number). It
returns the RLX value of the node's result, or a tuple for an op with several results
(None where PyTorch's `output_mask` asks for none). Result types come from the node's
fake tensor (`e.type_of(node)`, `e.type_of(node, i)`).

The semantics of each RLX op are its ATen op's (the README's dialect reference), so most
converters only rename and normalize arguments (`arguments`). The converters live by op
family, as the dialect's ops do (`rlx_mlir.dialects`); this package merges the families'
tables into `CONVERTERS`, the one table every PyTorch front door translates with, and
`SUPPORTED`, the ops the decomposition table keeps whole.
"""

from __future__ import annotations

from rlx_mlir.torch.aten import (
    activation,
    attention,
    comparison,
    conv,
    creation,
    diagonal,
    elementwise,
    indexing,
    layout,
    loss,
    matmul,
    norm,
    pool,
    quantization,
    random_masks,
    selection,
    strided,
)
from rlx_mlir.torch.aten.table import merged

CONVERTERS = merged(
    creation.CONVERTERS,
    random_masks.CONVERTERS,
    elementwise.CONVERTERS,
    activation.CONVERTERS,
    matmul.CONVERTERS,
    layout.CONVERTERS,
    diagonal.CONVERTERS,
    strided.CONVERTERS,
    conv.CONVERTERS,
    pool.CONVERTERS,
    norm.CONVERTERS,
    loss.CONVERTERS,
    indexing.CONVERTERS,
    comparison.CONVERTERS,
    selection.CONVERTERS,
    attention.CONVERTERS,
    quantization.CONVERTERS,
)

SUPPORTED = frozenset(CONVERTERS)
"""Every ATen op the importer maps: what the decomposition table keeps whole."""

__all__ = ["CONVERTERS", "SUPPORTED"]
