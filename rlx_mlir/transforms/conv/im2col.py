"""`rlx.im2col{,3d}` as linalg: the patches of a convolution's input, one row per output cell."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, scaled, shape_of


def patches(
    b: TensorBuilder, xpad: SSAValue, window: Window, kernel: Sequence[int], out: Sequence[int],
    channels_first: bool = False, like: SSAValue | None = None,
) -> SSAValue:
    """p[n, *o, c, *k] = xpad[n, c, *(o*s + k*d)]; with `channels_first`, p[c, *k, n, *o].

    One all-parallel gather-form generic over the loops (n, *o, c, *k) (or (c, *k, n, *o));
    a shape-only [*K] operand gives the k ranges. A dynamic batch is read from `like`
    (default `xpad`).
    """
    r, s, dil = window.rank, window.stride, window.dilation
    n, c = shape_of(xpad)[:2]
    element = element_type_of(xpad)
    loops = 2 + 2 * r
    if channels_first:  # loops (c, *k, n, *o)
        batch, cell, channel, tap, shape = r + 1, r + 2, 0, 1, (c, *kernel, n, *out)
    else:  # loops (n, *o, c, *k)
        batch, cell, channel, tap, shape = 0, 1, r + 1, r + 2, (n, *out, c, *kernel)
    return b.generic(
        ins=[xpad, b.empty(kernel, element)],
        init=b.empty(shape, element, like=xpad if like is None else like),
        maps=[
            dims_map(loops, lambda d: (d[batch], d[channel], *(d[cell + i] * s[i] + scaled(d[tap + i], dil[i]) for i in range(r)))),
            dims_map(loops, lambda d: d[tap:tap + r]),
            dims_map(loops, lambda d: d),
        ],
        iterators="p" * loops,
        body=lambda r_, x_, _window, _out: x_,
    )


class Im2colToLinalg(RewritePattern):
    """cols[(n, *o), (c, *k)] = xpad[n, c, *(o*s + k*d)]

    `patches` [N, *out, C, *K] of the input zero-padded per side, then collapse_shape gives
    [N*prod(out), C*prod(K)]: in 2-D F.unfold(x).transpose(1, 2) flattened.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Im2colOp | rlx.Im2col3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        r = window.rank
        spatial = shape_of(op.input)[2:]
        xpad = b.pad_sides(op.input, window.low, window.high, 0.0)
        p = patches(b, xpad, window, window.kernel, window.output_size(spatial), like=op.input)
        cols = b.collapse_shape(p, [list(range(1 + r)), list(range(1 + r, 2 + 2 * r))])
        rewriter.replace(op, [], [cols])
