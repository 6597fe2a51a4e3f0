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
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.conv.backward_weight import WeightGradient, pad_window
from rlx_mlir.transforms.conv.groups import multiply_accumulate
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

    Applies to grouped convs (groups > 1) with column stride 1 (x rows are read
    contiguously) whose channel block C/G x F/G is at most `MAX_GROUP_CHANNEL_PAIRS`
    (`rows` is Wo times the size of dw); declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardWeightOp, rewriter: PatternRewriter):
        geo = WeightGradient.of(op)
        groups, (sh, sw), (dh, dw) = geo.groups, geo.window.stride, geo.window.dilation
        fg, cg, kh_size, kw_size = geo.fg, geo.cg, geo.kh, geo.kw
        if not groups.grouped:
            return decline(op, "one group: the ungrouped forms take it")
        if sw != 1:
            return decline(op, f"column stride {sw}: the rows form reads rows at stride 1")
        if cg * fg > MAX_GROUP_CHANNEL_PAIRS:
            return decline(op, f"{cg * fg} channel pairs per group, above the {MAX_GROUP_CHANNEL_PAIRS} the rows form unrolls")
        b = TensorBuilder(rewriter, op)
        wo_size = shape_of(op.grad_output)[3]
        element = element_type_of(op.result)

        xpad = groups.split(b, pad_window(b, op.input, geo.window), 1)
        dy = groups.split(b, op.grad_output, 1)
        rows = b.generic(
            ins=[dy, xpad],
            init=b.full([groups.count, fg, cg, kh_size, kw_size, wo_size], element, 0.0),
            maps=[
                lambda g, f, c, kh, kw, wo, n, ho: (n, g, f, ho, wo),
                lambda g, f, c, kh, kw, wo, n, ho: (n, g, c, ho * sh + kh * dh, wo + kw * dw),
                lambda g, f, c, kh, kw, wo, n, ho: (g, f, c, kh, kw, wo),
            ],
            iterators="ppppppRR",
            body=multiply_accumulate,
        )
        dw_ = b.generic(
            ins=[rows],
            init=b.full([groups.count, fg, cg, kh_size, kw_size], element, 0.0),
            maps=[
                lambda g, f, c, kh, kw, wo: (g, f, c, kh, kw, wo),
                lambda g, f, c, kh, kw, wo: (g, f, c, kh, kw),
            ],
            iterators="pppppR",
            body=_add,
        )
        rewriter.replace(op, [], [groups.merge(b, dw_, 0)])
