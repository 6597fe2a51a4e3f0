"""The forward pools as linalg: `rlx.max_pool{2,3}d` and `rlx.avg_pool{2,3}d`.

2-D max pooling is the upstream `linalg.pooling_nchw_max`; the rest are gather-form
`linalg.generic`s over (n, c, *o, *k), whose outputs are indexed by loop dimensions only
and whose window ranges come from a shape-only [*K] operand. The input is padded per side
(-inf for max pooling, zero for avg pooling), high as far as the last window reads (ceil
mode may read past the op's padding). The adaptive pools are `adaptive`'s.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, scaled, shape_of, tensor_type


def window_loops_read(window: Window) -> AffineMap:
    """(n, c, *o, *k) -> (n, c, *(o*s + k*d)): a window's cell, over the loops of a pool."""
    r, s, dil = window.rank, window.stride, window.dilation
    return dims_map(2 + 2 * r, lambda d: (d[0], d[1], *(d[2 + i] * s[i] + scaled(d[2 + r + i], dil[i]) for i in range(r))))


def reached_high(window: Window, spatial) -> tuple[int, ...]:
    """The high padding a window loop needs: the op's own (floor mode never reads past it),
    or further where a ceil-mode window runs past the padded input (`Window.reach_high`)."""
    return tuple(max(high, reach) for high, reach in zip(window.high, window.reach_high(spatial)))


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
        override = op.divisor_override
        include_pad = op.count_include_pad
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
