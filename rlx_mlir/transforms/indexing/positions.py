"""What every indexing lowering asks of an index: is it inside, and where may it be read safely.

An index is data, so no verifier can keep it in range. Each lowering casts it to `index`,
compares it once with the size it indexes (unsigned, so a negative index is outside too)
and reads at the index clamped to 0 when outside; the read value is then masked. No index,
however bad, reads or writes out of bounds.
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of

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


def leading_part(b: TensorBuilder, value: SSAValue, sizes: list[Size]) -> SSAValue:
    """`value[0:sizes[0], 0:sizes[1], ...]`, or `value` itself when that is all of it."""
    if all(isinstance(size, int) for size in sizes) and tuple(sizes) == tuple(shape_of(value)):
        return value
    static = [size if isinstance(size, int) else DYNAMIC_INDEX for size in sizes]
    result_type = TensorType(element_type_of(value), static)
    rank = len(sizes)
    return b.value(tensor.ExtractSliceOp(value, [0] * rank, list(sizes), [1] * rank, result_type))


def along_index(rank: int, dim: int) -> AffineMap:
    """(q_0, ..., q_{rank-1}, m) -> q with q[dim] := m: the index (and src) seen from a result
    element q and a reduction over the index's positions m along `dim`."""
    return dims_map(rank + 1, lambda d: tuple(d[rank] if axis == dim else d[axis] for axis in range(rank)))


def covered_part(b: TensorBuilder, op: Operation) -> tuple[list[Size], SSAValue]:
    """(the index's sizes, the part of the input a scatter's index covers): the index's
    extent in every dim but `dim`, where it is the input's; the input itself when that is all of it."""
    rank, dim = len(shape_of(op.index)), op.dim
    index_sizes = [size_of(b, op.index, axis) for axis in range(rank)]
    region = [size_of(b, op.input, dim) if axis == dim else size for axis, size in enumerate(index_sizes)]
    return index_sizes, leading_part(b, op.input, region)
