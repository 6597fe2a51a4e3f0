"""The input gradient of a convolution as linalg: the adjoint convolution of dy.

    dx[n, c, h, w] = sum_{f, kh, kw} dyp[n, f, h + kh*d, w + kw*d] * wflip[c, f, kh, kw]

Two formulations, chosen by decompose-backward's `conv-input` option: the upstream named
forward conv of the stride-spread, padded dy with the flipped weight (`direct`), or RLX's
transposed convolution (`transpose`). See `conv_backward` for the shared conventions.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import (
    RegionBuilder,
    TensorBuilder,
    element_type_of,
    shape_of,
    tensor_type,
)
from rlx_mlir.transforms.conv_groups import ConvGroups


class ConvBackwardInputDirect(RewritePattern):
    """dx = conv_2d_nchw_fchw(dyp, wflip, stride 1, dilation d), the adjoint convolution:

        wflip[c, f, kh, kw] = w[f, c, KH-1-kh, KW-1-kw]
        dx[n, c, h, w]      = sum_{f, kh, kw} dyp[n, f, h + kh*dh, w + kw*dw] * wflip[c, f, kh, kw]

    (the same sum as `dyp[n, f, h + (KH-1-kh)*dh, ...] * w[f, c, kh, kw]` with kh -> KH-1-kh).
    The kernel flip and channel swap are a small separate generic on the weight (reading w
    with tensor.extract), so the main
    contraction reads dyp with non-negative coefficients and is the upstream named forward
    conv, which schedules tile and vectorize like any forward conv (tiling a map with a
    negative coefficient aborts in MLIR). With groups the weight is split to
    [G, F/G, C/G, KH, KW], flipped to [G, C/G, F/G, KH, KW] and the conv is
    `linalg.conv_2d_ngchw_gfchw` on dyp split to [N, G, F/G, Hp, Wp].

    `dyp` is dy with s - 1 zeros between cells, padded low by `d*(k-1) - p`
    (`Window2d.adjoint_padding`) and high by that plus the solved output_padding
    (`Window2d.solved_output_padding`), cropped where either is negative, so dx has exactly
    the declared H, W, also when the forward conv's last window did not reach the input's
    end.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardInputOp, rewriter: PatternRewriter):
        from rlx_mlir.transforms.conv_transpose import stride_dilate_and_pad

        b = TensorBuilder(rewriter, op)
        window, groups = op.window(), ConvGroups(op.groups())
        n, c, h, w = shape_of(op.result)
        f, cg, kh_size, kw_size = shape_of(op.weight)
        element = element_type_of(op.weight)
        output_padding = window.solved_output_padding(shape_of(op.grad_output)[2:], (h, w))

        dyp = groups.split(b, stride_dilate_and_pad(b, op.grad_output, window, output_padding), 1)
        w_split = groups.split(b, op.weight, 0)

        def flipped(r: RegionBuilder, _out: SSAValue) -> SSAValue:
            *group, c_, f_, kh, kw = (r.loop_index(d) for d in range(len(groups.iterators("ppppp"))))
            kh_flipped = r.sub(r.index(kh_size - 1), kh)
            kw_flipped = r.sub(r.index(kw_size - 1), kw)
            return r.extract(w_split, [*group, f_, c_, kh_flipped, kw_flipped])

        # The flip is read with tensor.extract (in bounds by construction) rather than through
        # an indexing map `KH-1-kh`: a negative coefficient in a map aborts MLIR's tiling and
        # IREE's compilation, and the weight is too small for the gather to matter.
        wflip = b.generic(
            ins=[],
            init=b.empty(groups.shape([groups.count, cg, f // groups.count, kh_size, kw_size], 0), element),
            maps=groups.maps(lambda g, c, f, kh, kw: (g, c, f, kh, kw)),
            iterators=groups.iterators("ppppp"),
            body=flipped,
        )
        zeros = b.full(groups.shape([n, groups.count, c // groups.count, h, w], 1), element, 0.0, like=op.grad_output)
        conv = b.conv_2d_ngchw_gfchw if groups.grouped else b.conv_2d_nchw_fchw
        dx = conv(dyp, wflip, zeros, strides=(1, 1), dilations=window.dilation)
        rewriter.replace(op, [], [groups.merge(b, dx, 1)])


class ConvBackwardInputTranspose(RewritePattern):
    """dx = conv_transpose2d(dy, w, stride s, padding p, dilation d, output_padding op, groups G)

    RLX's route, with `op` solved per axis by `Window2d.solved_output_padding` so that dx
    has the declared size. w [F, C/G, KH, KW] is already conv_transpose2d's
    [C_in = F, C_out/G = C/G, KH, KW].
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardInputOp, rewriter: PatternRewriter):
        from rlx_mlir.transforms.conv_transpose import conv_transpose2d

        b = TensorBuilder(rewriter, op)
        window = op.window()
        result_type = tensor_type(op.result)
        output_padding = window.solved_output_padding(shape_of(op.grad_output)[2:], tuple(result_type.get_shape()[2:]))
        dx = conv_transpose2d(b, op.grad_output, op.weight, window, output_padding, op.groups(), result_type)
        rewriter.replace(op, [], [dx])
