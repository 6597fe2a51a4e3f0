"""RLX ops on tensors with a static size-0 dimension: nothing to compute, or a sum of nothing.

An op whose result has a static size-0 dimension computes nothing: it is `tensor.empty`.

A batch of 0 (PyTorch accepts one) or an adaptive pool to 0 cells gives an empty result,
whose every element is vacuously written. Lowering such an op as usual emits slices into
size-0 tensors, and `mlir-opt` 22 rejects a `tensor.insert_slice` at offset 0 of a size-0
dimension ("offset 0 is out-of-bounds: 0 >= 0"), so this pattern comes first in both passes.
A non-empty result of an empty operand occurs where the op sums over that operand's empty
axis: a weight gradient over an empty batch, a matmul over an empty contraction, the input
gradient of an adaptive pool to 0 cells (every gradient is linear in its `grad_output`). It
is zeros, as in PyTorch; tiling the empty reduction crashes mlir-opt 22's tiling (an assertion
in `computeAllSliceParameters`), so the zeros are written directly.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from rlx_mlir.dialects.base import RlxOp
from rlx_mlir.dialects.conv import WeightGradientOp
from rlx_mlir.dialects.matmul import MatmulOp
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of


SUMS_OVER_OPERANDS = (WeightGradientOp, MatmulOp)
"""Ops whose every result element is a sum over elements of the operands (with some axis
of a non-empty result running over every operand element)."""


class EmptyTensors(RewritePattern):
    """An empty result is `tensor.empty`; a sum over an empty operand is zeros."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if not isinstance(op, RlxOp):
            return
        shape, element = shape_of(op.results[0]), element_type_of(op.results[0])
        b = TensorBuilder(rewriter, op)
        if 0 in shape:
            rewriter.replace(op, [], [b.empty(shape, element, like=op.operands[0])])
        elif self._sums_over_nothing(op):
            rewriter.replace(op, [], [b.full(shape, element, 0.0, like=op.operands[0])])

    @staticmethod
    def _sums_over_nothing(op: RlxOp) -> bool:
        if isinstance(op, SUMS_OVER_OPERANDS):
            return any(0 in shape_of(v) for v in op.operands)
        grad_output = getattr(op, "grad_output", None)
        return grad_output is not None and 0 in shape_of(grad_output)
