"""VJP rules of the layout ops: each moves data, so its VJP moves the cotangent back.

    reshape <-> reshape        permute(dims) <-> permute(inverse of dims)
    slice <-> slice_backward   concat <-> slices of the cotangent    split <-> concat
    expand: the cotangent summed over the stretched and the new leading dims
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(rlx.ReshapeOp)
def reshape(b, op, y_bar):
    """y = x.view(shape): x_bar = y_bar.view(x's shape)."""
    return (b.build(rlx.ReshapeOp, [y_bar], op.input),)


@vjp_rule(rlx.PermuteOp)
def permute(b, op, y_bar):
    """y = x.permute(dims), y axis k = x axis dims[k]: x_bar = y_bar.permute(inverse(dims))."""
    dims = op.dims
    inverse = [dims.index(axis) for axis in range(len(dims))]
    return (b.build(rlx.PermuteOp, [y_bar], op.input, dims=inverse),)


@vjp_rule(rlx.SliceOp)
def slice_(b, op, y_bar):
    """y = x[start:end:step] along dim: x_bar = slice_backward(y_bar), zeros elsewhere."""
    return (b.like(op, rlx.SliceBackwardOp, [y_bar], op.input),)


@vjp_rule(rlx.SliceBackwardOp)
def slice_backward(b, op, dx_bar):
    """dx = zeros with dy at the sliced positions, linear in dy: dy_bar = dx_bar[start:end:step]."""
    return (b.like(op, rlx.SliceOp, [dx_bar], op.operands[0]),)


@vjp_rule(rlx.ConcatOp)
def concat(b, op, y_bar):
    """y = cat(xs, dim): x_k_bar = y_bar[offset_k : offset_k + size_k] along dim."""
    dim = op.dim
    bars, start = [], 0
    for x in op.operands:
        end = start + x.type.get_shape()[dim]
        bars.append(b.build(rlx.SliceOp, [y_bar], x, dim=dim, start=start, end=end))
        start = end
    return tuple(bars)


@vjp_rule(rlx.SplitOp)
def split(b, op, *piece_bars):
    """ys = x.split(sizes, dim): x_bar = cat(ys_bar, dim)."""
    return (b.build(rlx.ConcatOp, list(piece_bars), op.input, dim=op.dim),)


@vjp_rule(rlx.ExpandOp)
def expand(b, op, y_bar):
    """y = x.expand(shape): x_bar = y_bar summed over the new and the stretched dims, as x's shape."""
    return (b.sum_to(y_bar, op.input),)
