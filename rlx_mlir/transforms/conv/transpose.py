"""The transposed convolution as a gather: zero-insert, pad, then a stride-1 conv.

`conv_transpose(x, w)` scatters every input cell into a window of the output. Upstream
linalg has no scatter and we want every output indexed by loop dimensions only, so the
scatter is turned around, per spatial axis (one to three of them):

    y[n, f, o] = sum_{c in f's group, k} x[n, c, i] * w[c, f', k]
                 where o + pl - k*d = i*s   (exact division, i in range)

which is a stride-1 convolution with dilation `d` of `x` stride-dilated (s - 1 zeros
between cells) and padded by `d*(k-1) - pl` low and `d*(k-1) - ph + output_padding` high
(per side; a negative amount crops), with the kernel flipped and its two channel axes
swapped. The high side covers every output_padding PyTorch accepts
(`< max(stride, dilation)`): the rows past the spread input read zeros, as they should.
The flip is its own small generic that reads the weight with `tensor.extract` at
`K-1-k`: folded into an indexing map (`o + (K-1-k)*d`) it would be a negative
coefficient, which aborts upstream MLIR's tiling (`nonpositive multiplying coefficient`)
and which IREE tiles into wrongly sized slices. The contraction's maps then have positive
coefficients only, and every loop range comes from a plain operand dimension.

`conv_transpose` is shared: `convert-rlx-to-linalg` lowers `rlx.conv_transpose{2,3}d`
with it, and `decompose-backward`'s `conv-input=transpose` option lowers the input
gradient with it (as `conv_transpose2d`, the same function). The IR it emits does not
depend on tensor sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of


def transpose_padding(window: Window, output_padding: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(low, high) padding of the spread input: `d*(k-1) - pl` and `d*(k-1) - ph + output_padding`."""
    reach = tuple(window.dilation[i] * (window.kernel[i] - 1) for i in window.axes)
    low = tuple(reach[i] - window.low[i] for i in window.axes)
    high = tuple(reach[i] - window.high[i] + output_padding[i] for i in window.axes)
    return low, high


def stride_dilate_and_pad(b: TensorBuilder, x: SSAValue, window: Window, output_padding: Sequence[int]) -> SSAValue:
    """`x` with `s - 1` zeros between cells, padded per side by `transpose_padding`.

    One strided `tensor.insert_slice` into a zero tensor does both the zero insertion and
    the non-negative part of the padding; a negative padding (the forward padding reaches
    beyond the dilated kernel) crops with `tensor.extract_slice` instead.
    """
    n, c, *spatial = shape_of(x)
    low, high = transpose_padding(window, output_padding)
    dilated = tuple((size - 1) * s + 1 for size, s in zip(spatial, window.stride))
    padded = tuple(size + max(lo, 0) + max(hi, 0) for size, lo, hi in zip(dilated, low, high))
    zeros = b.full((n, c, *padded), element_type_of(x), 0.0, like=x)
    spread = b.insert_slice(x, zeros, offsets=(0, 0, *(max(lo, 0) for lo in low)), strides=(1, 1, *window.stride))
    if min(*low, *high) >= 0:
        return spread
    crop = tuple(max(-lo, 0) for lo in low)
    sizes = tuple(size + lo + hi for size, lo, hi in zip(dilated, low, high))
    return b.extract_slice(spread, offsets=(0, 0, *crop), sizes=(n, c, *sizes))


def flipped_kernel(b: TensorBuilder, w: SSAValue) -> SSAValue:
    """wf[c, f, *k] = w[c, f, *(K-1-k)], read with tensor.extract.

    The weight is small, so the gather costs nothing next to the contraction; see the
    module docstring for why the flip is not an indexing map.
    """
    shape = shape_of(w)
    rank = len(shape)

    def value(r: RegionBuilder, _out: SSAValue) -> SSAValue:
        c, f, *taps = (r.loop_index(d) for d in range(rank))
        flipped = [r.sub(r.index(size - 1), k) for size, k in zip(shape[2:], taps)]
        return r.extract(w, [c, f, *flipped])

    return b.generic(
        ins=[],
        init=b.empty(shape, element_type_of(w)),
        maps=[dims_map(rank, lambda d: d)],
        iterators="p" * rank,
        body=value,
    )


def conv_transpose(
    b: TensorBuilder,
    x: SSAValue,
    w: SSAValue,
    window: Window,
    output_padding: Sequence[int],
    groups: int,
    result_type: TensorType,
) -> SSAValue:
    """y[n, g*Fg + f, *o] = sum_{c, *k} xs[n, g*Cg + c, *(o + k*d)] * wf[g*Cg + c, f, *k]

    `xs` is `stride_dilate_and_pad(x)` and `wf` the `flipped_kernel` of w; x is
    [N, C, *in], w is [C, F/groups, *K] and the result [N, F, *out] is `result_type`.
    Groups are a loop dimension `g` of one gather-form contraction (expand_shape in,
    collapse_shape out), never a Python loop. Loops: (n, g, f, *o, c, *k).
    """
    n, c, *_ = shape_of(x)
    _, fg, *kernel = shape_of(w)
    rank = len(kernel)
    _, _, *out = result_type.get_shape()
    cg = c // groups
    dil = window.dilation
    xs = stride_dilate_and_pad(b, x, window, output_padding)
    spatial = shape_of(xs)[2:]
    keep = [[axis] for axis in range(3, 3 + rank)]
    xs = b.expand_shape(xs, [[0], [1, 2], *keep], (n, groups, cg, *spatial))
    wg = b.expand_shape(flipped_kernel(b, w), [[0, 1], [2], *keep], (groups, cg, fg, *kernel))
    init = b.full((n, groups, fg, *out), result_type.element_type, 0.0, like=x)
    loops = 3 + rank + 1 + rank  # n, g, f, *o, c, *k
    o_ = lambda d: d[3:3 + rank]  # noqa: E731
    k_ = lambda d: d[4 + rank:]  # noqa: E731
    yg = b.generic(
        ins=[xs, wg],
        init=init,
        maps=[
            dims_map(loops, lambda d: (d[0], d[1], d[3 + rank], *(o + k * dil[i] for i, (o, k) in enumerate(zip(o_(d), k_(d)))))),
            dims_map(loops, lambda d: (d[1], d[3 + rank], d[2], *k_(d))),
            dims_map(loops, lambda d: (d[0], d[1], d[2], *o_(d))),
        ],
        iterators="p" * (3 + rank) + "R" * (1 + rank),
        body=lambda r, x_, w_, acc: r.add(acc, r.mul(x_, w_)),
    )
    return b.collapse_shape(yg, [[0], [1, 2], *keep])


conv_transpose2d = conv_transpose
"""The name `backward_input.ConvBackwardInputTranspose` imports: any rank works."""
