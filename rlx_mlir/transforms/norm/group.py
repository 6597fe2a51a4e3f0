"""Group norm as linalg, forward and backward: layer norm on a grouped view of x.

x [N, C, *spatial] is viewed as xg [N, G, C/G, *spatial] (`tensor.expand_shape`, no copy):
each (n, g) is then a row of layer norm's loops (`RowLoops` with two row axes), whose
mean and rstd are ATen's [N, G] as they stand. The affine weight and bias [C] are read as
[G, C/G] at (g, cg). Results of x's shape are computed in the grouped view and collapsed
back. The IR does not depend on the data size; a dynamic batch only sizes the tensors.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import norm
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.norm.backward import affine_gradients, centered_row_gradient
from rlx_mlir.transforms.norm.forward import RowLoops, row_mean_and_rstd


class GroupedView:
    """x [N, C, *spatial] as [N, G, C/G, *spatial], and [C] vectors as [G, C/G]."""

    def __init__(self, b: TensorBuilder, x: SSAValue, groups: int):
        self.b, self.shape = b, shape_of(x)
        channels = self.shape[1]
        self.grouped_shape = (self.shape[0], groups, channels // groups, *self.shape[2:])
        self.whole = [[0], [1, 2], *([axis] for axis in range(3, len(self.grouped_shape)))]
        self.loops = RowLoops(outer=2, normalized=len(self.grouped_shape) - 2)

    def of_x(self, value: SSAValue) -> SSAValue:
        return self.b.expand_shape(value, self.whole, self.grouped_shape)

    def of_channels(self, vector: SSAValue | None) -> SSAValue | None:
        return None if vector is None else self.b.expand_shape(vector, [[0, 1]], self.grouped_shape[1:3])

    def as_x(self, grouped: SSAValue) -> SSAValue:
        return self.b.collapse_shape(grouped, self.whole)

    def as_channels(self, grouped: SSAValue) -> SSAValue:
        return self.b.collapse_shape(grouped, [[0, 1]])

    def channel(self):
        """A [G, C/G] value at (g, cg), in the grouped loops (n, g, cg, *s)."""
        return dims_map(len(self.grouped_shape), lambda d: (d[1], d[2]))


class GroupNormToLinalg(RewritePattern):
    """native_group_norm, m = C/G * prod(spatial) values per (n, g), over xg [N, G, C/G, *s]:

        mean[n, g] = sum_{cg, *s} xg / m
        rstd[n, g] = 1 / sqrt(sum_{cg, *s} (xg - mean[n, g])^2 / m + eps)
        y[n, g, cg, *s] = (xg - mean[n, g]) * rstd[n, g] * weight[g, cg] + bias[g, cg]

    without a weight (a bias) its product (its sum) is left out.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.GroupNormOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        view = GroupedView(b, op.input, op.groups)
        xg, element = view.of_x(op.input), element_type_of(op.input)
        mean, rstd = row_mean_and_rstd(b, view.loops, xg, op.eps)
        affine = [v for v in (view.of_channels(op.weight), view.of_channels(op.bias)) if v is not None]
        every, row, _ = view.loops.over_x()
        has_weight, has_bias = op.weight is not None, op.bias is not None

        def normalize(r, x_, m_, s_, *rest):
            *wb, _out = rest
            y = r.mul(r.sub(x_, m_), s_)
            y = r.mul(y, wb[0]) if has_weight else y
            return r.add(y, wb[-1]) if has_bias else y

        y = b.generic(
            ins=[xg, mean, rstd, *affine],
            init=b.empty(view.grouped_shape, element, like=xg),
            maps=[every, row, row, *[view.channel()] * len(affine), every],
            iterators="p" * len(view.grouped_shape),
            body=normalize,
        )
        rewriter.replace(op, [], [view.as_x(y), mean, rstd])


class GroupNormBackwardToLinalg(RewritePattern):
    """native_group_norm_backward, over xg [N, G, C/G, *s] with m values per (n, g):

        xhat = (xg - mean[n, g]) * rstd[n, g],   g = dy * weight[g, cg] (dy without one)
        dx = rstd * (g - mean_{cg, *s} g - xhat * mean_{cg, *s}(g * xhat))   (layer norm's)
        dweight[g, cg] = sum_{n, *s} dy * xhat,   dbias[g, cg] = sum_{n, *s} dy
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: norm.GroupNormBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        view = GroupedView(b, op.input, op.groups)
        dy, x = view.of_x(op.grad_output), view.of_x(op.input)
        loops = view.loops
        _, row, _ = loops.over_x()
        dx = centered_row_gradient(
            b, loops, dy, x, op.mean, op.rstd, view.of_channels(op.weight),
            (loops.row(), row), (view.channel(), view.channel()), one_pass=op.weight is not None,
        )
        dweight, dbias = affine_gradients(
            b, dy, x, op.mean, op.rstd, row, view.channel(), view.grouped_shape[1:3],
            "Rpp" + "R" * (len(view.grouped_shape) - 3),
        )
        rewriter.replace(op, [], [view.as_x(dx), view.as_channels(dweight), view.as_channels(dbias)])
