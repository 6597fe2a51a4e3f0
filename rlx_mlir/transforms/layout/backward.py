"""The lowering of `rlx.slice_backward`, the gradient of a slice (decompose-backward).

A slice reads each selected input element once, so its gradient writes dy back to those
positions and zero everywhere else: a zero tensor of the input's shape (the result type)
with dy inserted by one strided `tensor.insert_slice`.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import layout
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.layout.forward import along


class SliceBackwardToInsertSlice(RewritePattern):
    """dx[.., start + i * step, ..] = dy[.., i, ..] along dim; dx = 0 elsewhere."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.SliceBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        dim, start, _, step = op.geometry()
        shape, element = shape_of(op.result), element_type_of(op.result)
        if 0 in shape:
            dx = b.empty(shape, element, like=op.grad_output)
        else:
            dx = b.full(shape, element, 0, like=op.grad_output)
            if 0 not in shape_of(op.grad_output):
                rank = len(shape)
                dx = b.insert_slice(op.grad_output, dx, along(dim, start, 0, rank), along(dim, step, 1, rank))
        rewriter.replace(op, [], [dx])
