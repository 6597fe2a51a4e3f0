"""The forward convolutions as linalg: `rlx.conv{2,3}d` and `rlx.conv_transpose{2,3}d`.

Upstream named ops where MLIR (and xDSL) has one (`linalg.conv_2d_nchw_fchw`,
`linalg.conv_2d_ngchw_gfchw`); the 3-D convs are gather-form `linalg.generic`s whose
outputs are indexed by loop dimensions only. Padding is an explicit zero `tensor.pad` per
side. Groups are a loop dimension (expand_shape in, collapse_shape out), never a Python
loop, so the IR's size never depends on tensor sizes, kernel sizes or group counts. The
transposed conv is `transpose`'s, the strided conv by stride phases `stride_phases`', one
with narrow output rows as a matmul `narrow_rows`', one whose windows read disjoint inputs
as a matmul `disjoint_windows`'.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, scaled, shape_of, tensor_type
from rlx_mlir.transforms.conv.disjoint_windows import conv_as_row_matmul, has_disjoint_windows
from rlx_mlir.transforms.conv.narrow_rows import conv_as_matmul, has_narrow_rows
from rlx_mlir.transforms.conv.stride_phases import strided_conv_phases
from rlx_mlir.transforms.conv.transpose import conv_transpose
from rlx_mlir.transforms.options import StridedConv


def grouped_conv(b: TensorBuilder, xpad: SSAValue, w: SSAValue, window: Window, groups: int, out: TensorType) -> SSAValue:
    """y[n, g, f, *o] = sum_{c, *k} xpad[n, g, c, *(o*s + k*d)] * w[g, f, c, *k], any spatial rank.

    One gather-form contraction over the loops (n, g, f, *o, c, *k): x expanded to
    [N, G, C/G, *in], w to [G, F/G, C/G, *K] (PyTorch's weight is group-major along F),
    the result collapsed back to [N, F, *out]. Groups are a loop, never a Python loop.
    """
    r, s, dil = window.rank, window.stride, window.dilation
    n, _, *spatial = shape_of(xpad)
    f, cg, *kernel = shape_of(w)
    keep = [[axis] for axis in range(3, 3 + r)]
    xg = b.expand_shape(xpad, [[0], [1, 2], *keep], (n, groups, cg, *spatial))
    wg = b.expand_shape(w, [[0, 1], [2], *keep], (groups, f // groups, cg, *kernel))
    init = b.full((n, groups, f // groups, *out.get_shape()[2:]), out.element_type, 0.0, like=xpad)
    loops = 3 + r + 1 + r
    yg = b.generic(
        ins=[xg, wg],
        init=init,
        maps=[
            dims_map(loops, lambda d: (d[0], d[1], d[3 + r], *(d[3 + i] * s[i] + scaled(d[4 + r + i], dil[i]) for i in range(r)))),
            dims_map(loops, lambda d: (d[1], d[2], d[3 + r], *d[4 + r:])),
            dims_map(loops, lambda d: (d[0], d[1], d[2], *d[3:3 + r])),
        ],
        iterators="p" * (3 + r) + "R" * (1 + r),
        body=lambda r_, x_, w_, acc: r_.add(acc, r_.mul(x_, w_)),
    )
    return b.collapse_shape(yg, [[0], [1, 2], *keep])


class ConvToLinalg(RewritePattern):
    """y[n, g*Fg + f, *o] = sum_{c, *k} xpad[n, g*Cg + c, *(o*s + k*d)] * w[g*Fg + f, c, *k]

    xpad is x zero-padded per side (`Window.low`/`high`). In 2-D the upstream named ops:
    `linalg.conv_2d_nchw_fchw` for one group; otherwise `linalg.conv_2d_ngchw_gfchw` on
    x expanded to [N, G, C/G, H, W] and w to [G, F/G, C/G, KH, KW], collapsed back to
    [N, F, Ho, Wo] (depthwise is the case C/G = 1). xDSL has no 3-D named conv, so 3-D is
    `grouped_conv`, one gather-form generic with a group loop. With `strided_conv="phases"`
    (the backend's form) a strided 2-D conv of one group is `stride_phases`' sum of
    stride-1 convs, or `narrow_rows`' matmul where its output rows are narrow, or
    `disjoint_windows`' matmul where its windows read disjoint inputs (a patch embedding).
    """

    def __init__(self, strided_conv: StridedConv = "direct"):
        super().__init__()
        self.strided_conv = strided_conv

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dOp | rlx.Conv3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, groups, out = op.window(), op.groups(), tensor_type(op.result)
        xpad = b.pad_sides(op.input, window.low, window.high, 0.0)
        if window.rank != 2:
            y = grouped_conv(b, xpad, op.weight, window, groups, out)
        elif groups == 1 and self.strided_conv == "phases" and window.stride != (1, 1):
            if has_narrow_rows(out):
                y = conv_as_matmul(b, xpad, op.weight, window, out)
            elif has_disjoint_windows(window, shape_of(op.weight)[2:]):
                y = conv_as_row_matmul(b, xpad, op.weight, window, out)
            else:
                y = strided_conv_phases(b, xpad, op.weight, window, out)
        elif groups == 1:
            init = b.full(out.get_shape(), out.element_type, 0.0, like=op.input)
            y = b.conv_2d_nchw_fchw(xpad, op.weight, init, window.stride, window.dilation)
        else:
            n, _, hp, wp = shape_of(xpad)
            f, cg, kh, kw = shape_of(op.weight)
            _, _, ho, wo = out.get_shape()
            xg = b.expand_shape(xpad, [[0], [1, 2], [3], [4]], (n, groups, cg, hp, wp))
            wg = b.expand_shape(op.weight, [[0, 1], [2], [3], [4]], (groups, f // groups, cg, kh, kw))
            init = b.full((n, groups, f // groups, ho, wo), out.element_type, 0.0, like=op.input)
            yg = b.conv_2d_ngchw_gfchw(xg, wg, init, window.stride, window.dilation)
            y = b.collapse_shape(yg, [[0], [1, 2], [3], [4]])
        rewriter.replace(op, [], [y])


class ConvTransposeToLinalg(RewritePattern):
    """y[n, g*Fg + f, *o] = sum_{c, *k} xs[n, g*Cg + c, *(o + k*d)] * wf[g*Cg + c, f, *k]

    `xs` is x stride-dilated and padded per side by `d*(k-1) - p` (+ output_padding high),
    `wf` the flipped weight; see `rlx_mlir.transforms.conv.transpose`, which the input
    gradient shares.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ConvTranspose2dOp | rlx.ConvTranspose3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        y = conv_transpose(
            b, op.input, op.weight, op.window(), op.output_padding, op.groups(), tensor_type(op.result)
        )
        rewriter.replace(op, [], [y])
