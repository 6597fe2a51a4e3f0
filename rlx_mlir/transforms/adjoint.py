"""Lowering of the adjoint ops (`dialects.adjoint`): reads at each window's first maximum.

    g[n, c, *o] = z[n, c, a[n, c, *o]]        a = PyTorch's saved indices of the pool of x

`a` is the argmax the max-pool gradients compute (`scanned_first_argmax`,
`adaptive_first_argmax`: the same scan rule, so the gather reads exactly where the
gradient writes), the flat input index of each window's winner; the gather is one
all-parallel generic over the output that reads z, viewed as [N, C, prod(spatial)], there.
Any spatial rank, any window; nothing is unrolled.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from rlx_mlir.dialects import adjoint
from rlx_mlir.transforms.adaptive_pool_backward import adaptive_first_argmax
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.max_pool_argmax import ARGMAX_TYPE, scanned_first_argmax

MAX_POOL_GATHERS = adjoint.ranks("MaxPool{}dGatherOp")
ADAPTIVE_MAX_POOL_GATHERS = adjoint.ranks("AdaptiveMaxPool{}dGatherOp")


def gather_at(b: TensorBuilder, z: SSAValue, argmax: SSAValue, like: SSAValue) -> SSAValue:
    """g[n, c, *o] = z_flat[n, c, argmax[n, c, *o]]: one parallel generic over argmax's shape."""
    out_shape = shape_of(argmax)
    rank = len(shape_of(z)) - 2
    flat = b.collapse_shape(z, [[0], [1], list(range(2, 2 + rank))])
    loops = len(out_shape)

    def body(r: RegionBuilder, at: SSAValue, _out: SSAValue) -> SSAValue:
        return r.extract(flat, [r.loop_index(0), r.loop_index(1), r.index_cast(at, IndexType())])

    # for n, c, *o: g[n, c, *o] = z[n, c, a[n, c, *o]]
    return b.generic(
        ins=[argmax],
        init=b.empty(out_shape, element_type_of(z), like=like),
        maps=[dims_map(loops, lambda d: d), dims_map(loops, lambda d: d)],
        iterators="p" * loops,
        body=body,
    )


class MaxPoolGatherToLinalg(RewritePattern):
    """g[n, c, *o] = z[n, c, scanned_first_argmax(x)[n, c, *o]], for every rank and window."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, MAX_POOL_GATHERS):
            return
        b = TensorBuilder(rewriter, op)
        out_shape = shape_of(op.results[0])
        argmax = scanned_first_argmax(b, op.input, op.window(), b.empty(out_shape, ARGMAX_TYPE, like=op.input))
        rewriter.replace(op, [], [gather_at(b, op.source, argmax, op.input)])


class AdaptiveMaxPoolGatherToLinalg(RewritePattern):
    """g[n, c, *o] = z[n, c, adaptive_first_argmax(x)[n, c, *o]]."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, ADAPTIVE_MAX_POOL_GATHERS):
            return
        b = TensorBuilder(rewriter, op)
        argmax = adaptive_first_argmax(b, op.input, tuple(shape_of(op.results[0])[2:]))
        rewriter.replace(op, [], [gather_at(b, op.source, argmax, op.input)])


def patterns() -> list[RewritePattern]:
    """The lowering of every adjoint op (`decompose-backward` owns them: `adjoint.BACKWARD_OPS`)."""
    return [MaxPoolGatherToLinalg(), AdaptiveMaxPoolGatherToLinalg()]
