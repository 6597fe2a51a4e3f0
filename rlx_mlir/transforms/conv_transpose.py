"""The transposed convolution as a gather: zero-insert, pad, then a stride-1 conv.

`conv_transpose2d(x, w)` scatters every input cell into a window of the output. Upstream
linalg has no scatter and we want every output indexed by loop dimensions only, so the
scatter is turned around:

    dx[n, f, oh, ow] = sum_{c in f's group, kh, kw} x[n, c, ih, iw] * w[c, f', kh, kw]
                       where oh + p - kh*d = ih*s   (exact division, ih in range)

which is a stride-1 convolution with dilation `d` of `x` stride-dilated (s - 1 zeros
between cells) and padded by `d*(k-1) - p` on both sides (plus `output_padding` at the
high side), with the kernel flipped and its two channel axes swapped. The flip is folded
into the indexing map of the spread input (it is read at `oh + (KH-1-kh)*d`, the weight at
`kh`), so no flip op is emitted and every loop range comes from a plain operand dimension.

`conv_transpose2d` is shared: `convert-rlx-to-linalg` lowers `rlx.conv_transpose2d` with
it, and `decompose-backward`'s `conv-input=transpose` option lowers the input gradient
with it. The IR it emits does not depend on tensor sizes.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.compat import plus_difference
from rlx_mlir.geometry import Pair, Window2d
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of


def stride_dilate_and_pad(b: TensorBuilder, x: SSAValue, window: Window2d, output_padding: Pair) -> SSAValue:
    """`x` with `s - 1` zeros between cells and `d*(k-1) - p` zeros around (`+ output_padding` high).

    One strided `tensor.insert_slice` into a zero tensor does both the zero insertion and
    the non-negative part of the padding; a negative padding (the forward padding reaches
    beyond the dilated kernel) crops with `tensor.extract_slice` instead.
    """
    n, c, h, w = shape_of(x)
    low = window.adjoint_padding()
    high = (low[0] + output_padding[0], low[1] + output_padding[1])
    dilated = tuple((size - 1) * s + 1 for size, s in zip((h, w), window.stride))
    padded = tuple(size + max(lo, 0) + max(hi, 0) for size, lo, hi in zip(dilated, low, high))
    zeros = b.full((n, c, *padded), element_type_of(x), 0.0, like=x)
    spread = b.insert_slice(x, zeros, offsets=(0, 0, max(low[0], 0), max(low[1], 0)), strides=(1, 1, *window.stride))
    if min(*low, *high) >= 0:
        return spread
    crop = tuple(max(-lo, 0) for lo in low)
    sizes = tuple(size + lo + hi for size, lo, hi in zip(dilated, low, high))
    return b.extract_slice(spread, offsets=(0, 0, *crop), sizes=(n, c, *sizes))


def conv_transpose2d(
    b: TensorBuilder,
    x: SSAValue,
    w: SSAValue,
    window: Window2d,
    output_padding: Pair,
    groups: int,
    result_type: TensorType,
) -> SSAValue:
    """y[n, g*Fg + f, oh, ow] = sum_{c, kh, kw} xs[n, g*Cg + c, oh + (KH-1-kh)*d, ow + (KW-1-kw)*d] * w[g*Cg + c, f, kh, kw]

    `xs` is `stride_dilate_and_pad(x)`; x is [N, C, H, W], w is [C, F/groups, KH, KW] and
    the result [N, F, Ho, Wo] is `result_type`. Groups are a loop dimension `g` of one
    gather-form contraction (expand_shape in, collapse_shape out), never a Python loop.
    """
    n, c, _, _ = shape_of(x)
    _, fg, kh_size, kw_size = shape_of(w)
    _, f, ho, wo = result_type.get_shape()
    cg = c // groups
    dh, dw = window.dilation
    xs = stride_dilate_and_pad(b, x, window, output_padding)
    hs, ws = shape_of(xs)[2:]
    xs = b.expand_shape(xs, [[0], [1, 2], [3], [4]], (n, groups, cg, hs, ws))
    wg = b.expand_shape(w, [[0, 1], [2], [3], [4]], (groups, cg, fg, kh_size, kw_size))
    init = b.full((n, groups, fg, ho, wo), result_type.element_type, 0.0, like=x)
    yg = b.generic(
        ins=[xs, wg],
        init=init,
        maps=[
            # The flipped kernel: x is read at oh + ((KH-1)*d - kh*d).
            lambda n, g, f, oh, ow, c, kh, kw: (
                n, g, c, plus_difference(oh, (kh_size - 1) * dh, kh * dh), plus_difference(ow, (kw_size - 1) * dw, kw * dw)
            ),
            lambda n, g, f, oh, ow, c, kh, kw: (g, c, f, kh, kw),
            lambda n, g, f, oh, ow, c, kh, kw: (n, g, f, oh, ow),
        ],
        iterators="pppppRRR",
        body=lambda r, x_, w_, acc: r.add(acc, r.mul(x_, w_)),
    )
    return b.collapse_shape(yg, [[0], [1, 2], [3], [4]])
