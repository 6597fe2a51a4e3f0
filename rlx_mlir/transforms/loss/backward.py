"""The lowering of the loss gradients: `rlx.log_softmax_backward`, `rlx.softmax_backward`,
`rlx.nll_loss_backward`.

The (log-)softmax gradients are one reduction along `dim` (`loss.Axis`) and one parallel
map; the NLL gradient is one parallel generic over the input that compares each class
index with the target (a scatter written as a gather: every output element is indexed by
the loops, and nothing is read at a data-dependent index).
"""

from __future__ import annotations

from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.loss.forward import Axis, exp, neg


class LogSoftmaxBackwardToLinalg(RewritePattern):
    """dx[*i] = dy[*i] - exp(y[*i]) * s,   s = sum_dim dy   (y = log_softmax(x))

    ATen's `_log_softmax_backward_data` formula, in its order of operations.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.LogSoftmaxBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        axis = Axis(shape_of(op.grad_output), op.dim)
        s = axis.reduce(b, [op.grad_output], 0.0, lambda r, dy, acc: r.accumulate(acc, dy))
        dx = axis.map(
            b, [op.grad_output, op.output], [s], lambda r, dy, y, s_: r.sub(dy, r.mul(exp(r, y), s_))
        )
        rewriter.replace(op, [], [dx])


class SoftmaxBackwardToLinalg(RewritePattern):
    """dx[*i] = y[*i] * (dy[*i] - s),   s = sum_dim dy * y   (y = softmax(x))

    ATen's `_softmax_backward_data` formula, in its order of operations.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.SoftmaxBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        axis = Axis(shape_of(op.grad_output), op.dim)
        s = axis.reduce(b, [op.grad_output, op.output], 0.0, lambda r, dy, y, acc: r.accumulate(acc, r.mul(dy, y)))
        dx = axis.map(b, [op.grad_output, op.output], [s], lambda r, dy, y, s_: r.mul(y, r.sub(dy, s_)))
        rewriter.replace(op, [], [dx])


class NllLossBackwardToLinalg(RewritePattern):
    """dlogp[n, c, *d] = (c == t and t != ignore_index) ? weight[c] * -g : 0,   t = target[n, *d]

    g = grad_output[n, *d] for "none" on a batched input, grad_output / total_weight for
    "mean", grad_output otherwise (ATen's `-(mean ? g / total_weight : g)`, times the
    weight). One all-parallel generic over the input's loops (n, c, *d), or (c)
    unbatched; the weight is read at the loop's class c, so a target outside [0, C)
    matches no class and gets no gradient, without any read out of bounds.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.NllLossBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        shape = shape_of(op.input)
        rank = len(shape)
        batched = rank >= 2
        class_axis = 1 if batched else 0
        reduction, ignore_index = op.reduction, op.ignore_index
        element = element_type_of(op.input)
        target_map = dims_map(rank, lambda d: (d[0], *d[2:]) if batched else ())
        scalar = dims_map(rank, lambda d: ())
        grad_map = target_map if reduction == "none" and batched else scalar

        def gradient(r: RegionBuilder, g: SSAValue, t: SSAValue, w: SSAValue, total: SSAValue, _out) -> SSAValue:
            cls = r.index_cast(r.loop_index(class_axis), i64)
            hit = r.and_(r.cmpi("eq", t, cls), r.cmpi("ne", t, r.constant(ignore_index, i64)))
            share = r.div(g, total) if reduction == "mean" else g
            return r.select(hit, r.mul(w, neg(r, share)), r.constant(0.0, element))

        dx = b.generic(
            ins=[op.grad_output, op.target, op.weight, op.total_weight],
            init=b.empty(shape, element, like=op.input),
            maps=[grad_map, target_map, dims_map(rank, lambda d: (d[class_axis],)), scalar, dims_map(rank, lambda d: d)],
            iterators="p" * rank,
            body=gradient,
        )
        rewriter.replace(op, [], [dx])
