"""Adjoint ops: the transposes of RLX gradients that no other RLX op expresses.

The autodiff pass writes every VJP in RLX ops. A max-pool gradient routes each window's
cotangent to the window's first maximum; its transpose reads a tensor back at those
positions, which no pool, conv or elementwise op does. These ops are that read:

    g[n, c, *o] = z[n, c, argmax_o(x)]      argmax_o: the first maximum of window o of x
                                            (PyTorch's scan rule, NaN wins)

`rlx.max_pool{r}d_gather %x, %z` has the max pool's window; `rlx.adaptive_max_pool{r}d_gather`
the adaptive windows of its result size. Both are linear in z, and their own transposes are
the max-pool gradients, so the dialect stays closed under differentiation.
"""

from __future__ import annotations

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, expect_same_batch
from rlx_mlir.dialects.properties import FLOAT_TENSOR
from rlx_mlir.dialects.tensors import format_shape
from rlx_mlir.dialects.windows import MAX_POOL_WINDOW, SPATIAL_RANKS, MaxPoolWindowOp, SpatialOp, for_ranks


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


MaxPool1dGatherOp, MaxPool2dGatherOp, MaxPool3dGatherOp = for_ranks(MaxPoolNdGatherOp, "rlx.max_pool{}d_gather")


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


AdaptiveMaxPool1dGatherOp, AdaptiveMaxPool2dGatherOp, AdaptiveMaxPool3dGatherOp = for_ranks(
    AdaptiveMaxPoolNdGatherOp, "rlx.adaptive_max_pool{}d_gather"
)


def ranks(family: str) -> tuple[type[SpatialOp], ...]:
    """The 1-D, 2-D and 3-D ops of one of this module's families: `ranks("MaxPool{}dGatherOp")`."""
    return tuple(globals()[family.format(rank)] for rank in SPATIAL_RANKS)


def same_rank(op: SpatialOp, family: str) -> type[SpatialOp]:
    """The op of `family` at `op`'s spatial rank."""
    return globals()[family.format(op.SPATIAL_RANK)]


FORWARD_OPS = ()
BACKWARD_OPS = (*ranks("MaxPool{}dGatherOp"), *ranks("AdaptiveMaxPool{}dGatherOp"))
"""The gathers are lowered by `decompose-backward` (`transforms.adjoint.patterns()`), with
the max-pool gradients whose argmax they share."""
