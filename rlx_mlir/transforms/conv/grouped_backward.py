"""Grouped and depthwise convolution gradients in forms the backend schedules well.

Patterns here run before the general ones of `backward_weight`/`backward_input`
and decline (leave the op) where they do not apply, so an op they do not take is
decomposed by the general formulation.

The input gradient needs nothing here: the general `direct` form is already the upstream
named `linalg.conv_2d_ngchw_gfchw` on the padded dy, which the backend's grouped-conv
schedule tiles to one output row per step (vectorized along W) and works on directly.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import StridePhase
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.conv.backward_weight import WeightGradient, pad_window
from rlx_mlir.transforms.conv.groups import multiply_accumulate
from rlx_mlir.transforms.conv.stride_phases import padded_phase_input
from rlx_mlir.transforms.conversion import decline

# The weight-gradient row partials are Wo times the size of dw: the row form is for groups
# whose channel block (C/G x F/G) is too small to vectorize along channels (the
# measurements: docs/conv-backward-notes.md).
MAX_GROUP_CHANNEL_PAIRS = 64


def _add(r, value: SSAValue, acc: SSAValue) -> SSAValue:
    return r.add(acc, value)


class GroupedConvBackwardWeightRows(RewritePattern):
    """dw[g, f, c, kh, kw] = sum_wo rows[g, f, c, kh, kw, wo]
    rows[g, f, c, kh, kw, wo] = sum_{n, ho} dy[n, g, f, ho, wo] * xpad[n, g, c, ho*sh + kh*dh, wo + kw*dw]

    The direct weight gradient with the sum over output columns wo taken last: the main
    contraction keeps wo parallel, so each step of its (n, ho) reduction is one
    multiply-add of a dy row and an x row into a row accumulator, vectorized along W
    without horizontal sums. That is what a group of few channels needs: the general form
    vectorizes along the group's channels (C/G, F/G), which are 1 for depthwise convs.

    A column stride sw > 1 reads x rows every sw columns, which no vector load covers; so x
    is split into its column phases x_b[.., h, j] = xpad[.., h, sw*(q_b + j) + b]
    (`StridePhase`, as the strided forward conv does), each read by the taps of residue b,
    kw = taps_b[t], at stride 1:

        rows_b[g, f, c, kh, t, wo] = sum_{n, ho} dy[n, g, f, ho, wo] * x_b[n, g, c, ho*sh + kh*dh, wo + t*e_b]

    and the phase's dw columns taps_b are written by a strided insert_slice. The phases
    together copy x once, and do exactly the strided gradient's multiply-adds.

    Applies to grouped convs (groups > 1) whose channel block C/G x F/G is at most
    `MAX_GROUP_CHANNEL_PAIRS` (`rows` is Wo times the size of dw); declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardWeightOp, rewriter: PatternRewriter):
        geo = WeightGradient.of(op)
        groups, sw, dw = geo.groups, geo.window.stride[1], geo.window.dilation[1]
        if not groups.grouped:
            return decline(op, "one group: the ungrouped forms take it")
        if geo.cg * geo.fg > MAX_GROUP_CHANNEL_PAIRS:
            return decline(op, f"{geo.cg * geo.fg} channel pairs per group, above the {MAX_GROUP_CHANNEL_PAIRS} the rows form unrolls")
        b = TensorBuilder(rewriter, op)
        if sw == 1:
            x = groups.split(b, pad_window(b, op.input, geo.window), 1)
            dw_ = _row_partials_gradient(b, geo, groups.split(b, op.grad_output, 1), x, geo.kw, dw)
            rewriter.replace(op, [], [groups.merge(b, dw_, 0)])
            return
        dy = groups.split(b, op.grad_output, 1)
        wo_size = shape_of(op.grad_output)[3]
        dw_ = b.full([groups.count, geo.fg, geo.cg, geo.kh, geo.kw], element_type_of(op.result), 0.0)
        every_row = StridePhase(0, (0,), 0, 1)  # the rows at stride 1: all padded rows, in order
        padded_rows = geo.window.low[0] + shape_of(op.input)[2] + geo.window.high[0]
        for col in StridePhase.split(geo.kw, sw, dw):
            size = (padded_rows, col.rows(wo_size))
            x_b = padded_phase_input(b, op.input, (1, sw), geo.window.low, (every_row, col), size)
            dw_b = _row_partials_gradient(b, geo, dy, groups.split(b, x_b, 1), len(col.taps), col.dilation)
            dw_ = b.insert_slice(dw_b, dw_, (0, 0, 0, 0, col.taps[0]), (1, 1, 1, 1, col.tap_step))
        rewriter.replace(op, [], [groups.merge(b, dw_, 0)])


def _row_partials_gradient(
    b: TensorBuilder, geo: WeightGradient, dy: SSAValue, x: SSAValue, taps: int, tap_dilation: int
) -> SSAValue:
    """dw[g, f, c, kh, t] = sum_wo rows[g, f, c, kh, t, wo], read from x at column stride 1:
    rows[g, f, c, kh, t, wo] = sum_{n, ho} dy[n, g, f, ho, wo] * x[n, g, c, ho*sh + kh*dh, wo + t*e]."""
    sh, dh = geo.window.stride[0], geo.window.dilation[0]
    wo_size, element = shape_of(dy)[4], element_type_of(dy)
    e = tap_dilation
    rows = b.generic(
        ins=[dy, x],
        init=b.full([geo.groups.count, geo.fg, geo.cg, geo.kh, taps, wo_size], element, 0.0),
        maps=[
            lambda g, f, c, kh, t, wo, n, ho: (n, g, f, ho, wo),
            lambda g, f, c, kh, t, wo, n, ho: (n, g, c, ho * sh + kh * dh, wo + t * e),
            lambda g, f, c, kh, t, wo, n, ho: (g, f, c, kh, t, wo),
        ],
        iterators="ppppppRR",
        body=multiply_accumulate,
    )
    return b.generic(
        ins=[rows],
        init=b.full([geo.groups.count, geo.fg, geo.cg, geo.kh, taps], element, 0.0),
        maps=[
            lambda g, f, c, kh, t, wo: (g, f, c, kh, t, wo),
            lambda g, f, c, kh, t, wo: (g, f, c, kh, t),
        ],
        iterators="pppppR",
        body=_add,
    )
