"""How a family module registers its converters: a `ConverterTable` keyed by ATen OpOverload.

Each family module fills its own table (`@converts(aten.add.Tensor, ...)`), and the
package's `__init__` merges them into the one table every front door walks with; an
OpOverload registered by two families is an error there, not a silent override.
"""

from __future__ import annotations

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.emitter import Converter, Emitter


class ConverterTable(dict):
    """ATen OpOverload -> converter, for one op family."""

    def converts(self, *overloads):
        """Register the decorated function as the converter of each ATen OpOverload."""

        def register(function: Converter) -> Converter:
            for overload in overloads:
                self[overload] = function
            return function

        return register


def one_op(op: type[rlx.RlxOpBase]) -> Converter:
    """The converter of an ATen op that is one RLX op of its tensor operands, typed as its result."""

    def convert(e: Emitter, node, *operands):
        return e.emit(op, list(operands), e.type_of(node))

    convert.__doc__ = f"aten -> {op.name}"
    return convert


def merged(*tables: ConverterTable) -> dict[object, Converter]:
    """The families' tables as one; each OpOverload has one converter."""
    table: dict[object, Converter] = {}
    for family in tables:
        twice = table.keys() & family.keys()
        if twice:
            raise ValueError(f"ATen ops converted by two families: {sorted(map(str, twice))}")
        table.update(family)
    return table


def by_rank(*ops: type[rlx.RlxOpBase]) -> dict[int, type[rlx.RlxOpBase]]:
    """One op family's 1-D, 2-D and 3-D ops, by spatial rank: `CONV[rank]`."""
    return {op.SPATIAL_RANK: op for op in ops}
