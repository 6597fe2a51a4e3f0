"""The weight gradient of a pointwise convolution over single cells, as one matrix product.

With a kernel of ones, unit stride, no padding, one group, and inputs of one spatial cell,
the weight gradient contracts over the batch alone:

    dw[f, c, 0...] = sum_n dy[n, f, 0...] * x[n, c, 0...] = (dyᵀ · x)[f, c]

Why: it is how a linear layer's weight gradient over a dynamic batch arrives. RLX puts a
dynamic size only in the leading dimension, so the importer cannot transpose dy[B, F] to
[F, B]; it emits dw = dyᵀ·x as the weight gradient of a 1x1 conv1d over one cell
(`rlx_mlir.torch.batch`), which the 2-D direct form then computed as a 1x1 conv weight
gradient over 1x1 images: 266 ms for one 2048-token 384 x 1536 weight gradient of the GPT
step, against 67 ms for the static step's transpose and product. As `linalg.matmul` its
reduction is the dynamic batch, which the matmul schedule packs, dy's transpose folded into
its pack. The squeeze-and-excitation 1x1 convs of MobileNetV3 and EfficientNet are the same
kind (one cell after the global pool).

Registered first among the weight gradients, so it takes these before the 2-D forms.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects.conv import ConvNdBackwardWeightOp
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of


def is_pointwise_over_single_cells(op: ConvNdBackwardWeightOp) -> bool:
    """A one-group conv with a kernel of ones, unit stride and no padding, over inputs of
    one spatial cell: each output cell is the input cell's channels times the weight."""
    window = op.window()
    return (op.groups() == 1 and all(k == 1 for k in window.kernel) and all(s == 1 for s in window.stride)
            and not any(window.low) and not any(window.high) and all(size == 1 for size in shape_of(op.input)[2:]))


def batch_contraction(b: TensorBuilder, x: SSAValue, dy: SSAValue) -> SSAValue:
    """dw [F, C, 1...] = dyᵀ·x for x [N, C, 1...], dy [N, F, 1...] (N may be dynamic)."""
    rank = len(shape_of(x)) - 2
    cells = [[0], [1, *range(2, 2 + rank)]]
    x2, dy2 = b.collapse_shape(x, cells), b.collapse_shape(dy, cells)
    f, c = shape_of(dy)[1], shape_of(x)[1]
    product = b.matmul(b.transpose(dy2, [1, 0]), x2, b.full((f, c), element_type_of(x), 0.0))
    return b.expand_shape(product, cells, (f, c, *[1] * rank))


class PointwiseConvBackwardWeight(RewritePattern):
    """dw of a pointwise conv over single cells, of any rank, as `batch_contraction`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvNdBackwardWeightOp, rewriter: PatternRewriter):
        if not is_pointwise_over_single_cells(op):
            return
        b = TensorBuilder(rewriter, op)
        rewriter.replace(op, [], [batch_contraction(b, op.input, op.grad_output)])
