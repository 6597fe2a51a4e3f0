"""What every indexing lowering asks of an index: is it inside, and where may it be read safely.

An index is data, so no verifier can keep it in range. Each lowering casts it to `index`,
compares it once with the size it indexes (unsigned, so a negative index is outside too)
and reads at the index clamped to 0 when outside; the read value is then masked. No index,
however bad, reads or writes out of bounds.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue

from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, is_dynamic, shape_of

Size = SSAValue | int
"""A size along one axis: a static int, or an `index` value read with `tensor.dim`."""


def clamped(r: RegionBuilder, position: SSAValue, size: Size) -> tuple[SSAValue, SSAValue]:
    """(safe, inside): `position` (an `index`) where 0 <= position < size, else 0; and whether it was inside."""
    inside = r.in_range(position, size if isinstance(size, SSAValue) else r.index(size))
    return r.select(inside, position, r.index(0)), inside


def position_of(r: RegionBuilder, index: SSAValue, size: Size) -> tuple[SSAValue, SSAValue]:
    """(safe, inside) of an i64 `index` into an axis of `size`: `clamped` of its `index` cast."""
    return clamped(r, r.index_cast(index, IndexType()), size)


def size_of(b: TensorBuilder, value: SSAValue, axis: int) -> Size:
    """`value`'s size along `axis`: static, or its `tensor.dim` (emitted before the generic)."""
    size = shape_of(value)[axis]
    return b.dim(value, axis) if is_dynamic(size) else size
