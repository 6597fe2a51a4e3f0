"""The op families, in the order both passes populate their patterns.

A family's patterns only match its own ops, so the order between families decides
nothing; within a family, `populate_forward` and `populate_backward` list its patterns in
priority order. One tuple keeps the two passes' lists in the same order as
`rlx_mlir/dialects` and `rlx_mlir/autodiff`.
"""

from __future__ import annotations

from rlx_mlir.transforms import activation, adjoint, attention, comparison, conv, creation, elementwise, indexing, layout, loss, matmul, norm, pool, quantization, rope, scan, selection

FAMILIES = (conv, pool, matmul, elementwise, activation, norm, loss, layout, indexing, adjoint, scan, comparison, rope, quantization, attention, selection, creation)
