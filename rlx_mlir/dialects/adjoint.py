"""Adjoint ops: the transposes of RLX gradients that no other RLX op expresses.

The autodiff pass writes every VJP in RLX ops. A max-pool gradient routes each window's
cotangent to the window's first maximum; its transpose reads a tensor back at those
positions, which no pool, conv or elementwise op does. These ops are that read:

    g[n, c, *o] = z[n, c, argmax_o(x)]      argmax_o: the first maximum of window o of x
                                            (PyTorch's scan rule, NaN wins)

`rlx.max_pool{r}d_gather %x, %z` has the max pool's window; `rlx.adaptive_max_pool{r}d_gather`
the adaptive windows of its result size. Both are linear in z, and their own transposes are
the max-pool gradients, so the dialect stays closed under differentiation.

`rlx.col2im{r}d` is the transpose of im2col (`rlx.im2col` in 2-D): it sums each column
entry back into the input cell it was copied from; im2col is in turn its VJP.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR, sizes_property
from rlx_mlir.dialects.tensors import format_shape
from rlx_mlir.dialects.windows import (
    MAX_POOL_WINDOW,
    WINDOW,
    MaxPoolWindowOp,
    SpatialOp,
    WindowOp,
    for_ranks,
)


def _expect_source_like_input(x, z) -> None:
    if tuple(z) != tuple(x):
        raise VerifyException(
            f"expected the source to have the input's shape {format_shape(x)}, got {format_shape(z)}"
        )


class MaxPoolNdGatherOp(MaxPoolWindowOp):
    """`g = max_pool_gather(x, z)`: g[n, c, *o] = z[n, c, first argmax of window o of x]; z has x's shape.

    The transpose of `max_pool_backward(x, .)`; g has the pool's output shape.
    """

    input = operand_def(FLOAT_TENSOR)
    source = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $source {MAX_POOL_WINDOW} {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, z, _ = self.spatial_shapes()
        _expect_source_like_input(x, z)
        window = self.window()
        window.validate_pool_padding()
        self.expect_result_shape((x[0], x[1], *window.output_size(x[2:])))


MAX_POOL_GATHER = for_ranks(MaxPoolNdGatherOp, "rlx.max_pool{}d_gather")
MaxPool1dGatherOp, MaxPool2dGatherOp, MaxPool3dGatherOp = MAX_POOL_GATHER


class AdaptiveMaxPoolNdGatherOp(SpatialOp):
    """`g = adaptive_max_pool_gather(x, z)`: g[n, c, *o] = z[n, c, first argmax of adaptive window o of x].

    The transpose of `adaptive_max_pool_backward(x, .)`; the output size is the result type's.
    """

    input = operand_def(FLOAT_TENSOR)
    source = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $source {SIGNATURE}"

    def verify_shapes(self) -> None:
        x, z, g = self.spatial_shapes()
        _expect_source_like_input(x, z)
        if any(size < 1 for size in x[2:]):
            raise VerifyException(
                f"expected the input to have a non-empty spatial size (an adaptive pool needs a cell "
                f"for every window), got {list(x[2:])}"
            )
        expect_same_batch(x, "input", g, "result")
        self.expect_result_shape((x[0], x[1], *g[2:]))


ADAPTIVE_MAX_POOL_GATHER = for_ranks(AdaptiveMaxPoolNdGatherOp, "rlx.adaptive_max_pool{}d_gather")
AdaptiveMaxPool1dGatherOp, AdaptiveMaxPool2dGatherOp, AdaptiveMaxPool3dGatherOp = ADAPTIVE_MAX_POOL_GATHER


class Col2imNdOp(WindowOp):
    """`x = col2im(cols)`: [N * prod(out), C * prod(K)] -> [N, C, *in], the transpose of im2col.

    x[n, c, *i] = sum over the window cells (o, k) with `o*s - pl + k*d = i` of
    cols[(n, *o), (c, *k)]: each input cell gathers every column entry im2col copied it
    to (a padded cell's entries have nowhere to go). The result type gives N, C and the
    input size, which the columns cannot tell. Static shapes only.
    """

    RANK_DEFAULTS: ClassVar[dict[str, int]] = {"dilation": 1}

    input = operand_def(FLOAT_TENSOR)
    dilation = sizes_property()

    assembly_format = f"$input {WINDOW} (`dilation` $dilation^)? {SIGNATURE}"

    def batched_values(self) -> set[str]:
        return set()

    def verify_shapes(self) -> None:
        cols = self.shape_of(0, 2)
        x = self.shape_of(-1, self.tensor_rank())
        window = self.window()
        out = window.output_size(x[2:])
        expected = (x[0] * math.prod(out), x[1] * math.prod(window.kernel))
        if tuple(cols) != expected:
            raise VerifyException(
                f"expected the columns to have shape {format_shape(expected)} (im2col of the result "
                f"{format_shape(x)}), got {format_shape(cols)}"
            )


COL2IM = for_ranks(Col2imNdOp, "rlx.col2im{}d")
Col2im1dOp, Col2im2dOp, Col2im3dOp = COL2IM


FORWARD_OPS = ()
BACKWARD_OPS = (*MAX_POOL_GATHER, *ADAPTIVE_MAX_POOL_GATHER, *COL2IM)
"""The gathers are lowered by `decompose-backward` (`transforms/adjoint/`), with
the max-pool gradients whose argmax they share."""
