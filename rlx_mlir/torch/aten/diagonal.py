"""`diagonal` and `diagonal_scatter`: a diagonal as positions of the flattened matrix.

`torch.func.hessian` (and `jacrev`/`jacfwd`) build their standard basis as
`zeros(n, n).diagonal().fill_(1)`, which functionalization records as `diagonal` and
`diagonal_scatter`. The diagonal at `offset` of an (n, m) matrix is the elements at the
flat positions `(i + row0) * m + i + column0`: `index_select` of those positions reads it,
`scatter` writes it. Both only move elements (no arithmetic: an infinity off the diagonal
stays out of the result). The two dims become the last two by a permutation first, as the
result of `diagonal` has the diagonal as its last dim.
"""

from __future__ import annotations

import torch
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i64
from xdsl.ir import SSAValue

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.aten.arguments import dim_index
from rlx_mlir.torch.aten.table import ConverterTable
from rlx_mlir.torch.emitter import Emitter

aten = torch.ops.aten

CONVERTERS = ConverterTable()
converts = CONVERTERS.converts


def flat_positions(rows: int, columns: int, offset: int) -> list[int]:
    """The flat positions of the diagonal at `offset` (above the main one when positive)."""
    row0, column0 = max(-offset, 0), max(offset, 0)
    length = max(0, min(rows - row0, columns - column0))
    return [(i + row0) * columns + i + column0 for i in range(length)]


def matrices_last(e: Emitter, x: SSAValue, dim1: int, dim2: int) -> tuple[SSAValue, list[int]]:
    """`x` with `dim1`, `dim2` moved last and flattened into one: (that value, the permutation)."""
    shape = e.shape(x)
    order = [d for d in range(len(shape)) if d not in (dim1, dim2)] + [dim1, dim2]
    moved = x if order == sorted(order) else e.emit(rlx.PermuteOp, [x], TensorType(e.element(x), [shape[d] for d in order]),
                                                    dims=order)
    rest = [shape[d] for d in order[:-2]]
    return e.reshape(moved, [*rest, shape[dim1] * shape[dim2]]), order


def positions_constant(e: Emitter, positions: list[int]) -> SSAValue:
    tensor_type = TensorType(i64, [len(positions)])
    return e.append(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(tensor_type, positions), tensor_type)).result


def dims_of(e: Emitter, x: SSAValue, dim1: int, dim2: int) -> tuple[int, int]:
    rank = len(e.shape(x))
    dim1, dim2 = dim_index(dim1, rank), dim_index(dim2, rank)
    if dim1 == dim2:
        raise e.fail(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dim1, dim2


@converts(aten.diagonal.default)
def diagonal(e: Emitter, node, x, offset=0, dim1=0, dim2=1):
    dim1, dim2 = dims_of(e, x, dim1, dim2)
    flat, _ = matrices_last(e, x, dim1, dim2)
    positions = flat_positions(e.shape(x)[dim1], e.shape(x)[dim2], offset)
    return e.emit(rlx.IndexSelectOp, [flat, positions_constant(e, positions)], e.type_of(node),
                  dim=len(e.shape(flat)) - 1)


@converts(aten.diagonal_scatter.default)
def diagonal_scatter(e: Emitter, node, x, src, offset=0, dim1=0, dim2=1):
    """`x` with its diagonal replaced by `src` (whose last dim is the diagonal)."""
    dim1, dim2 = dims_of(e, x, dim1, dim2)
    shape = e.shape(x)
    flat, order = matrices_last(e, x, dim1, dim2)
    positions = flat_positions(shape[dim1], shape[dim2], offset)
    if not positions:
        return x
    src_shape = list(e.shape(src))
    index = e.reshape(positions_constant(e, positions), [1] * (len(src_shape) - 1) + [len(positions)])
    if list(e.shape(index)) != src_shape:
        index = e.emit(rlx.ExpandOp, [index], TensorType(i64, src_shape))
    written = e.emit(rlx.ScatterOp, [flat, index, src], flat.type, dim=len(src_shape) - 1)
    moved = e.reshape(written, [shape[d] for d in order])
    if order == sorted(order):
        return moved
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return e.emit(rlx.PermuteOp, [moved], e.type_of(node), dims=inverse)
