"""`rlx.im2col{,3d}` as linalg: the patches of a convolution's input, one row per output cell."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, scaled, shape_of


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
                dims_map(loops, lambda d: (d[0], d[1 + r], *(d[1 + i] * s[i] + scaled(d[2 + r + i], dil[i]) for i in range(r)))),
                dims_map(loops, lambda d: d[2 + r:]),
                dims_map(loops, lambda d: d),
            ],
            iterators="p" * loops,
            body=lambda r_, x_, _window, _out: x_,
        )
        cols = b.collapse_shape(patches, [list(range(1 + r)), list(range(1 + r, loops))])
        rewriter.replace(op, [], [cols])
