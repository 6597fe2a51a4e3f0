"""`convert-rlx-to-linalg`: every forward RLX op becomes linalg/tensor/arith.

One pattern per op family, each stating its formula once for 2-D and 3-D (1-D ops reach
it as 2-D ops with a unit height). Upstream named ops are used where MLIR (and xDSL) has
one (`linalg.conv_2d_nchw_fchw`, `linalg.conv_2d_ngchw_gfchw`, `linalg.pooling_nchw_max`,
`linalg.matmul`); the rest, the 3-D ops among them, are gather-form `linalg.generic`s,
whose outputs are indexed by loop dimensions only. Padding is an explicit `tensor.pad`
per side (zero for convs, avg pools and im2col, -inf for max pooling), high as far as the
last window reads (ceil mode may read past the op's padding). Groups are a loop dimension
(expand_shape in, collapse_shape out), never a Python loop, so the IR's size never depends
on tensor sizes, kernel sizes or group counts. A dynamic batch is carried through: every
new tensor reads its batch from an operand. The transposed conv is `conv_transpose`'s,
the adaptive pools `adaptive_pool`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.rlx import FORWARD_OPS
from rlx_mlir.geometry import Window
from rlx_mlir.transforms import activation, elementwise, layout, loss, norm
from rlx_mlir.transforms.adaptive_pool import adaptive_pool_patterns
from rlx_mlir.transforms.builders import (
    RegionBuilder,
    TensorBuilder,
    dims_map,
    element_type_of,
    shape_of,
    tensor_type,
)
from rlx_mlir.transforms.conv_stride_phases import strided_conv_phases
from rlx_mlir.transforms.conv_transpose import conv_transpose
from rlx_mlir.transforms.conversion import apply_full_conversion
from rlx_mlir.transforms.empty_result import EmptyTensors
from rlx_mlir.transforms.options import CheckedOptions, StridedConv
from rlx_mlir.transforms.unit_height import one_d_patterns

# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


def _scaled(expr, factor: int):
    return expr if factor == 1 else expr * factor


def window_loops_read(window: Window) -> AffineMap:
    """(n, c, *o, *k) -> (n, c, *(o*s + k*d)): a window's cell, over the loops of a pool or im2col."""
    r, s, dil = window.rank, window.stride, window.dilation
    return dims_map(2 + 2 * r, lambda d: (d[0], d[1], *(d[2 + i] * s[i] + _scaled(d[2 + r + i], dil[i]) for i in range(r))))


def reached_high(window: Window, spatial) -> tuple[int, ...]:
    """The high padding a window loop needs: the op's own (floor mode never reads past it),
    or further where a ceil-mode window runs past the padded input (`Window.reach_high`)."""
    return tuple(max(high, reach) for high, reach in zip(window.high, window.reach_high(spatial)))


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
            dims_map(loops, lambda d: (d[0], d[1], d[3 + r], *(d[3 + i] * s[i] + _scaled(d[4 + r + i], dil[i]) for i in range(r)))),
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
    a strided 2-D conv of one group is `conv_stride_phases`' sum of stride-1 convs.
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
    `wf` the flipped weight; see `rlx_mlir.transforms.conv_transpose`, which the input
    gradient shares.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.ConvTranspose2dOp | rlx.ConvTranspose3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        y = conv_transpose(
            b, op.input, op.weight, op.window(), op.geometry_value("output_padding"), op.groups(), tensor_type(op.result)
        )
        rewriter.replace(op, [], [y])


class MaxPoolToLinalg(RewritePattern):
    """y[n, c, *o] = max_{*k} xpad[n, c, *(o*s + k*d)], xpad padded with -inf

    Padded low by `Window.low` and high as far as the last window reads (`reached_high`:
    in ceil mode past the op's padding). A padded cell never wins, and every window holds a
    real cell (padding <= kernel / 2, and a ceil-mode window starts inside the input or its
    low padding). The max is `arith.maximumf`, which returns NaN when either side is NaN:
    a NaN in a window is its max, as PyTorch's kernels (`val > max || isnan(val)`) give.
    2-D: `linalg.pooling_nchw_max` from a -inf init. 3-D: the same reduction as a
    gather-form generic over (n, c, *o, *k), a shape-only [*K] operand giving the k ranges.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MaxPool2dOp | rlx.MaxPool3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, out = op.window(), tensor_type(op.result)
        spatial = shape_of(op.input)[2:]
        xpad = b.pad_sides(op.input, window.low, reached_high(window, spatial), float("-inf"))
        init = b.full(out.get_shape(), out.element_type, float("-inf"), like=op.input)
        if window.rank == 2:
            y = b.pooling_nchw_max(xpad, window.kernel, init, window.stride, window.dilation)
        else:
            r = window.rank
            y = b.generic(
                ins=[xpad, b.empty(window.kernel, out.element_type)],
                init=init,
                maps=[
                    window_loops_read(window),
                    dims_map(2 + 2 * r, lambda d: d[2 + r:]),
                    dims_map(2 + 2 * r, lambda d: d[:2 + r]),
                ],
                iterators="p" * (2 + r) + "R" * r,
                body=lambda r_, x_, _window, acc: r_.value(arith.MaximumfOp(acc, x_)),
            )
        rewriter.replace(op, [], [y])


class AvgPoolToLinalg(RewritePattern):
    """y[n, c, *o] = (sum_{*k} xpad[n, c, *(o*s + k)]) / divisor(*o), PyTorch's divisor:

    - `divisor_override` when set (non-zero);
    - count_include_pad: the window's cells inside the padded input `[-pl, n + ph)`, per
      axis `min(o*s + K, pl + n + ph) - o*s` in padded coordinates: K everywhere in floor
      mode (a constant), less for the last windows of ceil mode that run past the padding
      (PyTorch's `pool_size`, taken before clipping to the input);
    - otherwise the cells inside the input, `min(o*s + K, pl + n) - max(o*s, pl)` per axis.
    The divisor is the product over the axes, computed from `linalg.index` where it varies.
    x is zero-padded as far as the last window reads (`reached_high`). The sum is a
    gather-form generic over (n, c, *o, *k) with a shape-only [*K] window operand giving
    the k ranges; the division, an input-less generic, rewrites it in place (the pool
    schedule library recognises the pair by that shape).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dOp | rlx.AvgPool3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, out = op.window(), tensor_type(op.result)
        r, stride, kernel, low = window.rank, window.stride, window.kernel, window.low
        spatial = shape_of(op.input)[2:]
        element = out.element_type
        high = reached_high(window, spatial)
        xpad = b.pad_sides(op.input, low, high, 0.0)
        sums = b.generic(
            ins=[xpad, b.empty(kernel, element)],
            init=b.full(out.get_shape(), element, 0.0, like=op.input),
            maps=[
                window_loops_read(window),
                dims_map(2 + 2 * r, lambda d: d[2 + r:]),
                dims_map(2 + 2 * r, lambda d: d[:2 + r]),
            ],
            iterators="p" * (2 + r) + "R" * r,
            body=lambda r_, x_, _window, acc: r_.add(acc, x_),
        )
        override = op.geometry_value("divisor_override")
        include_pad = op.geometry_value("count_include_pad")
        # Axes whose last windows run past the padded input: there the included count varies.
        clipped = [i for i in window.axes if high[i] > window.high[i]]

        def divide(b_: RegionBuilder, total: SSAValue) -> SSAValue:
            if override:
                return b_.div(total, b_.constant(override, element))
            if include_pad and not clipped:
                return b_.div(total, b_.constant(math.prod(kernel), element))
            count, constant = None, 1
            for i in window.axes:
                o = b_.loop_index(2 + i)
                if include_pad and i not in clipped:
                    constant *= kernel[i]
                    continue
                if include_pad:  # min(o*s + K, pl + n + ph) - o*s
                    start = b_.mul(o, b_.index(stride[i]))
                    end = b_.minui(b_.add(start, b_.index(kernel[i])), b_.index(low[i] + spatial[i] + window.high[i]))
                    cells = b_.sub(end, start)
                else:
                    cells = b_.cells_inside(o, stride[i], kernel[i], low[i], spatial[i])
                count = cells if count is None else b_.mul(count, cells)
            if constant != 1:
                count = b_.mul(count, b_.index(constant))
            return b_.div(total, b_.index_to_float(count, element))

        y = b.generic(ins=[], init=sums, maps=[dims_map(2 + r, lambda d: d)], iterators="p" * (2 + r), body=divide)
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
    """cols[(n, *o), (c, *k)] = xpad[n, c, *(o*s + k*d)]

    One all-parallel gather-form generic builds [N, *out, C, *K] from the input zero-padded
    per side (a shape-only [*K] operand gives the k ranges), then collapse_shape gives
    [N*prod(out), C*prod(K)]: in 2-D F.unfold(x).transpose(1, 2) flattened.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Im2colOp | rlx.Im2col3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        r, s, dil = window.rank, window.stride, window.dilation
        n, c, *spatial = shape_of(op.input)
        out = window.output_size(spatial)
        element = element_type_of(op.input)
        xpad = b.pad_sides(op.input, window.low, window.high, 0.0)
        loops = 2 + 2 * r  # n, *o, c, *k
        patches = b.generic(
            ins=[xpad, b.empty(window.kernel, element)],
            init=b.empty((n, *out, c, *window.kernel), element, like=op.input),
            maps=[
                dims_map(loops, lambda d: (d[0], d[1 + r], *(d[1 + i] * s[i] + _scaled(d[2 + r + i], dil[i]) for i in range(r)))),
                dims_map(loops, lambda d: d[2 + r:]),
                dims_map(loops, lambda d: d),
            ],
            iterators="p" * loops,
            body=lambda r_, x_, _window, _out: x_,
        )
        cols = b.collapse_shape(patches, [list(range(1 + r)), list(range(1 + r, loops))])
        rewriter.replace(op, [], [cols])


def forward_patterns(strided_conv: StridedConv = "direct") -> list[RewritePattern]:
    return [
        EmptyTensors(),
        *one_d_patterns(),
        ConvToLinalg(strided_conv),
        ConvTransposeToLinalg(),
        MaxPoolToLinalg(),
        AvgPoolToLinalg(),
        *adaptive_pool_patterns(),
        MatmulToLinalg(),
        Im2colToLinalg(),
        *elementwise.patterns(),
        *activation.patterns(),
        *norm.patterns(),
        *loss.patterns(),
        *layout.patterns(),
    ]


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvertRlxToLinalgPass(CheckedOptions):
    """Rewrite `rlx.conv{2,3}d`, `rlx.conv_transpose{2,3}d`, `rlx.{max,avg}_pool{2,3}d`,
    `rlx.adaptive_{max,avg}_pool{2,3}d`, `rlx.matmul` and `rlx.im2col{,3d}` into upstream
    ops (the 1-D ops once rewritten to 2-D).

    Legal after it: `linalg`, `tensor`, `arith` and `math` ops, plus any RLX
    backward op the input had (those are `decompose-backward`'s). A forward op it cannot
    rewrite fails the pass with a located error (`conversion.apply_full_conversion`).
    Element types and a dynamic batch are preserved; the emitted IR's size does not depend
    on tensor sizes, and each block it wrote into holds one constant per value.

    Option `strided-conv`: `direct` (a strided conv stays one strided named op) or `phases`
    (a 2-D strided conv of one group becomes a stride-1 conv per stride phase of its input,
    `conv_stride_phases`; the native backend's choice, as its schedules vectorize stride-1
    rows).
    """

    name = "convert-rlx-to-linalg"

    strided_conv: StridedConv = "direct"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_full_conversion(op, forward_patterns(self.strided_conv), FORWARD_OPS, self.name)

