"""A 1-D conv or pool is its 2-D op over a unit height.

    op1d(x[N, C, L], ...) = collapse(op2d(x[N, C, 1, L], ...))

with the height axis's window the identity: kernel 1, stride 1, dilation 1, padding 0,
output_padding 0. Every 2-D output size along that axis is then 1 (`(1 + 0 - 0 - 1) / 1 + 1`,
`(1 - 1) * 1 + 0 + 1`, an adaptive window [0, 1)), and each 2-D formula reduces to the
1-D one, so the 1-D ops get every 2-D lowering, fast path and schedule, as PyTorch's CPU
convolutions do when they view a 1-D conv as a 2-D one. The rewrite happens at the RLX level,
inside the pass that owns the op: the 2-D op it emits is rewritten by that pass's own
2-D pattern.

Operands and results of rank 3 ([N, C, L]; weights [F, C/g, K]) gain the unit axis at
position 2 by `tensor.expand_shape`, which keeps a dynamic batch; im2col's [rows, cols]
result is the same matrix in 1-D and 2-D.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.properties import SIZES
from rlx_mlir.dialects.windows import SpatialOp
from rlx_mlir.transforms.builders import TensorBuilder, shape_of

IDENTITY_AXIS = {"kernel_size": 1, "stride": 1, "dilation": 1, "output_padding": 0}
"""The window of the unit height axis, per spatial property (padding is 0 on each side)."""


def _two_d_twin(op: type[SpatialOp]) -> type[SpatialOp]:
    """The 2-D op of `op`'s family: `rlx.conv1d` -> `rlx.conv2d`, `rlx.im2col1d` -> `rlx.im2col`."""
    (family,) = [family for family in rlx.RANKED_FAMILIES if op in family]
    return family.at(2)


def with_unit_height(name: str, values: tuple[int, ...]) -> tuple[int, ...]:
    """A 1-D spatial property as its 2-D value: the height axis first, then the 1-D axis.

    Per-side padding `[low, high]` becomes `[0, low, 0, high]`.
    """
    if name == "padding":
        low, high = (values[0], values[0]) if len(values) == 1 else values
        return (0, low) if low == high else (0, low, 0, high)
    return (IDENTITY_AXIS[name], *values)


def _unit_height_type(type_: Attribute) -> Attribute:
    assert isinstance(type_, TensorType), type_
    shape = type_.get_shape()
    if len(shape) != 3:
        return type_  # im2col's matrix
    return TensorType(type_.element_type, [shape[0], shape[1], 1, shape[2]])


class OneDimensionalAsTwo(RewritePattern):
    """Rewrite every 1-D RLX op as its 2-D op with a unit height (see the module docstring)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SpatialOp) or op.SPATIAL_RANK != 1:
            return
        b = TensorBuilder(rewriter, op)
        operands = [self._expand(b, value) for value in op.operands]
        geometry = {
            name: with_unit_height(name, op.geometry_value(name)) if kind is SIZES else op.geometry_value(name)
            for name, kind in op.property_kinds().items()
        }
        result_type = _unit_height_type(op.results[0].type)
        twin = _two_d_twin(type(op)).build_with(operands, result_type, **geometry)
        b.emit(twin)
        result = twin.results[0]
        if result_type is not op.results[0].type:
            result = b.collapse_shape(result, [[0], [1], [2, 3]])
        rewriter.replace(op, [], [result])

    @staticmethod
    def _expand(b: TensorBuilder, value: SSAValue) -> SSAValue:
        if len(shape_of(value)) != 3:
            return value  # col2im's columns: one matrix in 1-D and 2-D, as im2col's result
        n, c, length = shape_of(value)
        return b.expand_shape(value, [[0], [1], [2, 3]], (n, c, 1, length))
