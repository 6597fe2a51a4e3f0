"""The gradients of a transposed convolution as linalg: a forward conv, and a conv weight gradient.

`y = conv_transpose(x, w)` (x [N, C, *in], w [C, F/G, *K], y [N, F, *out]) is the adjoint
of the forward conv `z = conv(y', w)` with the same stride s, padding (pl, ph), dilation d
and groups G: cell i of x scatters into the cells `i*s - pl + k*d` of y. So

    dx[n, g*C/G + c, *i] = sum_{f, *k} dyp[n, g*F/G + f, *(i*s + k*d)] * w[g*C/G + c, f, *k]
    dw[g*C/G + c, f, *k] = sum_{n, *i} x[n, g*C/G + c, *i] * dyp[n, g*F/G + f, *(i*s + k*d)]

with `dyp` dy padded by pl low (dy read as zero outside). dx is the forward conv of dy with
w, computed for x's `in` cells only: the conv of dy has `in + floor(op / s)` cells, more
than x when the forward's output_padding op is at least s (allowed when d > s, e.g. op 2
with s 2 and d 4), and those extra cells are cropped. dw is the conv weight gradient with
the roles of x and dy swapped (`backward_weight.weight_gradient`). Neither needs the
forward's output_padding: it is the part of dy past the last cell that x reaches, so the
high padding (negative: a crop) is solved from the sizes, `(in-1)*s + d*(k-1) + 1 - pl - out`
(`Window.solved_transpose_output_padding` checks them; the verifier already has).

One pattern per op, for every spatial rank; the IR does not depend on tensor sizes.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects.conv import ConvTransposeNdBackwardInputOp, ConvTransposeNdBackwardWeightOp
from rlx_mlir.transforms.builders import TensorBuilder, shape_of, tensor_type
from rlx_mlir.transforms.conv.backward_input import correlate
from rlx_mlir.transforms.conv.backward_weight import weight_gradient


class ConvTransposeBackwardInput(RewritePattern):
    """dx = conv(dy, w), stride s, dilation d, groups G, on dy padded by pl low and by what
    x's last cell reads at the high side (cropped where negative): `correlate`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvTransposeNdBackwardInputOp, rewriter: PatternRewriter):
        window = op.window()
        inp, out = shape_of(op.result)[2:], shape_of(op.grad_output)[2:]
        window.solved_transpose_output_padding(inp, out)  # consistent sizes, or a GeometryError
        high = [(inp[i] - 1) * window.stride[i] + window.extent[i] - window.low[i] - out[i] for i in window.axes]
        b = TensorBuilder(rewriter, op)
        dyp = b.pad_sides(op.grad_output, window.low, high, 0.0)
        dx = correlate(b, dyp, op.weight, window.stride, window.dilation, op.groups(), tensor_type(op.result))
        rewriter.replace(op, [], [dx])


class ConvTransposeBackwardWeight(RewritePattern):
    """dw = weight_gradient(x := dy, dy := x): the conv weight gradient of dy's windows
    against x, [C, F/G, *K]."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvTransposeNdBackwardWeightOp, rewriter: PatternRewriter):
        window = op.window()
        window.solved_transpose_output_padding(shape_of(op.input)[2:], shape_of(op.grad_output)[2:])
        b = TensorBuilder(rewriter, op)
        rewriter.replace(op, [], [weight_gradient(b, op.grad_output, op.input, window, op.groups())])
