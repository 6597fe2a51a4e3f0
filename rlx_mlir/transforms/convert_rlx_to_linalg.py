"""`convert-rlx-to-linalg`: every forward RLX op becomes linalg/tensor/arith.

One pattern per op, each stating its formula. Upstream named ops are used where MLIR has
one (`linalg.conv_2d_nchw_fchw`, `linalg.conv_2d_ngchw_gfchw`, `linalg.pooling_nchw_max`,
`linalg.matmul`); the rest are gather-form `linalg.generic`s, whose outputs are indexed
by loop dimensions only. Padding is an explicit `tensor.pad` (zero for convs and im2col,
-inf for max pooling). Groups are a loop dimension (expand_shape in, collapse_shape out),
never a Python loop, so the IR's size never depends on tensor sizes or group counts.
A dynamic batch is carried through: every new tensor reads its batch from an operand.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.rlx import FORWARD_OPS
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of, tensor_type
from rlx_mlir.transforms.conv_transpose import conv_transpose2d
from rlx_mlir.transforms.conversion import apply_full_conversion
from rlx_mlir.transforms.empty_result import EmptyTensors
from rlx_mlir.transforms.unit_height import one_d_patterns

# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


class Conv2dToLinalg(RewritePattern):
    """y[n, g*Fg + f, oh, ow] = sum_{c, kh, kw} xpad[n, g*Cg + c, oh*sh + kh*dh, ow*sw + kw*dw] * w[g*Fg + f, c, kh, kw]

    `linalg.conv_2d_nchw_fchw` for one group; otherwise `linalg.conv_2d_ngchw_gfchw` on
    x expanded to [N, G, C/G, H, W] and w to [G, F/G, C/G, KH, KW], collapsed back to
    [N, F, Ho, Wo]. Depthwise is the case C/G = 1.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, groups, out = op.window(), op.groups(), tensor_type(op.result)
        n, c, h, w = shape_of(op.input)
        f, cg, kh, kw = shape_of(op.weight)
        _, _, ho, wo = out.get_shape()
        xpad = b.pad_spatial(op.input, window.padding, 0.0)
        if groups == 1:
            init = b.full((n, f, ho, wo), out.element_type, 0.0, like=op.input)
            y = b.conv_2d_nchw_fchw(xpad, op.weight, init, window.stride, window.dilation)
        else:
            hp, wp = shape_of(xpad)[2:]
            xg = b.expand_shape(xpad, [[0], [1, 2], [3], [4]], (n, groups, cg, hp, wp))
            wg = b.expand_shape(op.weight, [[0, 1], [2], [3], [4]], (groups, f // groups, cg, kh, kw))
            init = b.full((n, groups, f // groups, ho, wo), out.element_type, 0.0, like=op.input)
            yg = b.conv_2d_ngchw_gfchw(xg, wg, init, window.stride, window.dilation)
            y = b.collapse_shape(yg, [[0], [1, 2], [3], [4]])
        rewriter.replace(op, [], [y])


class ConvTranspose2dToLinalg(RewritePattern):
    """y[n, g*Fg + f, oh, ow] = sum_{c, kh, kw} xs[n, g*Cg + c, oh + (KH-1-kh)*d, ow + (KW-1-kw)*d] * w[g*Cg + c, f, kh, kw]

    `xs` is x stride-dilated and padded by `d*(k-1) - p` (+ output_padding high); see
    `rlx_mlir.transforms.conv_transpose`, which the input gradient shares.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ConvTranspose2dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        y = conv_transpose2d(
            b, op.input, op.weight, op.window(), op.geometry_value("output_padding"), op.groups(), tensor_type(op.result)
        )
        rewriter.replace(op, [], [y])


class MaxPool2dToLinalg(RewritePattern):
    """y[n, c, oh, ow] = max_{kh, kw} xpad[n, c, oh*sh + kh, ow*sw + kw], xpad padded with -inf

    `linalg.pooling_nchw_max` from a -inf init: a padded cell never wins, and every window
    holds a real cell (padding <= kernel / 2).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, out = op.window(), tensor_type(op.result)
        xpad = b.pad_spatial(op.input, window.padding, float("-inf"))
        init = b.full(out.get_shape(), out.element_type, float("-inf"), like=op.input)
        y = b.pooling_nchw_max(xpad, window.kernel, init, window.stride, window.dilation)
        rewriter.replace(op, [], [y])


class AvgPool2dToLinalg(RewritePattern):
    """y[n, c, oh, ow] = (sum_{kh, kw} xpad[n, c, oh*sh + kh, ow*sw + kw]) / count(oh, ow)

    count_include_pad: count = KH*KW (with ceil_mode false every window lies inside the
    padded input, so PyTorch's divisor is always the full window).
    Otherwise count is the number of real cells of the window, PyTorch's
    `(min(oh*sh - ph + KH, H) - max(oh*sh - ph, 0)) * (the same along the width)`,
    computed in padded coordinates (all terms >= 0) from `linalg.index`.
    The sum is a gather-form generic over (n, c, oh, ow, kh, kw) with a shape-only
    [KH, KW] window operand giving the kh, kw ranges; the division rewrites it in place.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, out = op.window(), tensor_type(op.result)
        (sh, sw), (ph, pw), (kh_size, kw_size) = window.stride, window.padding, window.kernel
        h, w = shape_of(op.input)[2:]
        element = out.element_type
        xpad = b.pad_spatial(op.input, window.padding, 0.0)
        shape_only = b.empty(window.kernel, element)
        sums = b.generic(
            ins=[xpad, shape_only],
            init=b.full(out.get_shape(), element, 0.0, like=op.input),
            maps=[
                lambda n, c, oh, ow, kh, kw: (n, c, oh * sh + kh, ow * sw + kw),
                lambda n, c, oh, ow, kh, kw: (kh, kw),
                lambda n, c, oh, ow, kh, kw: (n, c, oh, ow),
            ],
            iterators="ppppRR",
            body=lambda r, x_, _window, acc: r.add(acc, x_),
        )

        def divide(r: RegionBuilder, total: SSAValue) -> SSAValue:
            if op.geometry_value("count_include_pad"):
                return r.div(total, r.constant(kh_size * kw_size, element))
            rows = r.cells_inside(r.loop_index(2), sh, kh_size, ph, h)
            cols = r.cells_inside(r.loop_index(3), sw, kw_size, pw, w)
            return r.div(total, r.index_to_float(r.mul(rows, cols), element))

        y = b.generic(ins=[], init=sums, maps=[lambda n, c, oh, ow: (n, c, oh, ow)], iterators="pppp", body=divide)
        rewriter.replace(op, [], [y])


class MatmulToLinalg(RewritePattern):
    """y[m, n] = sum_k a[m, k] * b[k, n];  batched: y[i, m, n] = sum_k a[i, m, k] * b[i, k, n]

    2-D: `linalg.matmul`. 3-D: a gather-form generic over (i, m, n, k) (xDSL has no
    `linalg.batch_matmul`).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MatmulOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        out = tensor_type(op.result)
        init = b.full(out.get_shape(), out.element_type, 0.0, like=op.lhs)
        if len(out.get_shape()) == 2:
            y = b.matmul(op.lhs, op.rhs, init)
        else:
            y = b.generic(
                ins=[op.lhs, op.rhs],
                init=init,
                maps=[
                    lambda i, m, n, k: (i, m, k),
                    lambda i, m, n, k: (i, k, n),
                    lambda i, m, n, k: (i, m, n),
                ],
                iterators="pppR",
                body=lambda r, a_, b_, acc: r.add(acc, r.mul(a_, b_)),
            )
        rewriter.replace(op, [], [y])


class Im2colToLinalg(RewritePattern):
    """cols[(n, ho, wo), (c, kh, kw)] = xpad[n, c, ho*sh + kh*dh, wo*sw + kw*dw]

    One all-parallel gather-form generic builds [N, Ho, Wo, C, KH, KW] from the
    zero-padded input (a shape-only [KH, KW] operand gives the kh, kw ranges), then
    collapse_shape gives [N*Ho*Wo, C*KH*KW]: F.unfold(x).transpose(1, 2) flattened.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Im2colOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        (sh, sw), (dh, dw) = window.stride, window.dilation
        n, c, h, w = shape_of(op.input)
        ho, wo = window.output_size((h, w))
        element = element_type_of(op.input)
        xpad = b.pad_spatial(op.input, window.padding, 0.0)
        patches = b.generic(
            ins=[xpad, b.empty(window.kernel, element)],
            init=b.empty((n, ho, wo, c, *window.kernel), element, like=op.input),
            maps=[
                lambda n, ho, wo, c, kh, kw: (n, c, ho * sh + kh * dh, wo * sw + kw * dw),
                lambda n, ho, wo, c, kh, kw: (kh, kw),
                lambda n, ho, wo, c, kh, kw: (n, ho, wo, c, kh, kw),
            ],
            iterators="pppppp",
            body=lambda r, x_, _window, _out: x_,
        )
        cols = b.collapse_shape(patches, [[0, 1, 2], [3, 4, 5]])
        rewriter.replace(op, [], [cols])


def forward_patterns() -> list[RewritePattern]:
    return [
        EmptyTensors(),
        *one_d_patterns(),
        Conv2dToLinalg(),
        ConvTranspose2dToLinalg(),
        MaxPool2dToLinalg(),
        AvgPool2dToLinalg(),
        MatmulToLinalg(),
        Im2colToLinalg(),
    ]


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvertRlxToLinalgPass(ModulePass):
    """Rewrite `rlx.conv2d`, `rlx.conv_transpose2d`, `rlx.{max,avg}_pool2d`, `rlx.matmul`
    and `rlx.im2col` into upstream ops.

    Legal after it: `linalg`, `tensor` and `arith` ops (no `math` is needed), plus any RLX
    backward op the input had (those are `decompose-backward`'s). A forward op it cannot
    rewrite fails the pass with a located error (`conversion.apply_full_conversion`).
    Element types and a dynamic batch are preserved; the emitted IR's size does not depend
    on tensor sizes, and each block it wrote into holds one constant per value.
    """

    name = "convert-rlx-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_full_conversion(op, forward_patterns(), FORWARD_OPS, self.name)

