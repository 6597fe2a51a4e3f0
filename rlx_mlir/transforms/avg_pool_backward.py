"""The avg-pool gradient, one pattern per formulation.

    dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] / divisor(oh, ow)

divisor is KH*KW with `count_include_pad`, else the number of the window's cells inside
the unpadded input. `dy / divisor` is computed as PyTorch does. Each pattern declines
where its formulation does not apply; `pool_backward.pool_backward_patterns` lists them
in priority order.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import windows_tile_input
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.pool_gather import Candidate, tiled_gather, window_gather


class AvgPool2dBackwardTiled(RewritePattern):
    """dx[n, c, oh*KH + kh, ow*KW + kw] = dy[n, c, oh, ow] / (KH*KW)

    For windows that tile the input (stride == kernel, no padding: every window has
    KH*KW real cells, whatever `count_include_pad` says), as an all-parallel
    `tiled_gather`. Declines otherwise.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dBackwardOp, rewriter: PatternRewriter):
        window = op.window()
        if not windows_tile_input(window):
            return
        b = TensorBuilder(rewriter, op)
        area = window.kernel[0] * window.kernel[1]
        element = element_type_of(op.grad_output)

        def share(r: RegionBuilder, dy: SSAValue) -> SSAValue:
            return r.div(dy, r.constant(area, element))

        dx = tiled_gather(
            b, window, shape_of(op.grad_output), shape_of(op.result), op.grad_output, [op.grad_output], None, share
        )
        rewriter.replace(op, [], [dx])


class AvgPool2dBackwardWindows(RewritePattern):
    """dx[n, c, h, w] = sum_{windows (oh, ow) containing (h, w)} dy[n, c, oh, ow] / divisor(oh, ow)

    divisor = KH*KW with count_include_pad (padded cells count; no window overhangs the
    padding without ceil_mode), else the window's cells inside the unpadded input:
    `(min(oh*S + K, H + P) - max(oh*S, P))` per axis, in padded coordinates. A
    `window_gather` over the candidate windows of each cell; applies to every window.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AvgPool2dBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        dx_shape = shape_of(op.result)
        element = element_type_of(op.grad_output)
        include_pad = op.geometry_value("count_include_pad")

        def divisor(r: RegionBuilder, at: Candidate) -> SSAValue:
            if include_pad:
                return r.constant(window.kernel[0] * window.kernel[1], element)
            rows = r.cells_inside(at.oh, window.stride[0], window.kernel[0], window.padding[0], dx_shape[2])
            cols = r.cells_inside(at.ow, window.stride[1], window.kernel[1], window.padding[1], dx_shape[3])
            return r.index_to_float(r.mul(rows, cols), element)

        def share(r: RegionBuilder, at: Candidate, _cell: SSAValue):
            dy = r.extract(op.grad_output, [at.n, at.c, at.oh, at.ow])
            return None, r.div(dy, divisor(r, at))

        dx = window_gather(b, window, shape_of(op.grad_output), dx_shape, op.grad_output, None, share)
        rewriter.replace(op, [], [dx])
