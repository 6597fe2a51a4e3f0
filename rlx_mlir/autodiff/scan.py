"""VJP rules of the scans, written in scans and layout ops so that they differentiate again.

For h = linear_scan(a, x) along dim, h[t] = a[t] h[t-1] + x[t] with h[-1] = 0, the
cotangent g = x_bar of h[t] gathers h_bar[t] and what h[t+1] = a[t+1] h[t] + ... sends
back:

    g[t] = h_bar[t] + a[t+1] g[t+1]      (g[T] = 0): the reversed scan of h_bar with a shifted one step
    x_bar = g,  a_bar[t] = g[t] h[t-1]   (h shifted one step, a zero in front)

A reversed scan mirrors it (shift the other way, scan forward). A shift is a slice of
T - 1 steps put back one step over by `slice_backward` (zeros in the vacated step); with
T = 1 the slice is empty and the shift all zeros, which is exact (h = x there), needs no
case of its own and keeps a dynamic batch (a zero constant could not have one).

The cumulative sum is linear: its VJP is the cumulative sum of the cotangent the other way.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


def shifted(b, value: SSAValue, dim: int, steps: int) -> SSAValue:
    """`value` moved `steps` (+1 or -1) along `dim`: out[t] = value[t - steps], zero where that is outside."""
    length = value.type.get_shape()[dim]
    source = (0, length - 1) if steps > 0 else (1, length)
    target = (1, length) if steps > 0 else (0, length - 1)
    shape = list(value.type.get_shape())
    shape[dim] = length - 1
    part_type = TensorType(value.type.element_type, shape)
    part = b.build(rlx.SliceOp, [value], part_type, dim=dim, start=source[0], end=source[1])
    return b.build(rlx.SliceBackwardOp, [part], value, dim=dim, start=target[0], end=target[1])


@vjp_rule(rlx.LinearScanOp)
def linear_scan(b, op, h_bar):
    """h = linear_scan(a, x): g = linear_scan(a shifted against the scan, h_bar, the other way),
    x_bar = g, a_bar = g * (h shifted along the scan) (module docstring)."""
    a, x = op.operands
    dim, reverse = op.dim, op.reverse
    along = -1 if reverse else 1
    g = b.build(rlx.LinearScanOp, [shifted(b, a, dim, -along), h_bar], x, dim=dim, reverse=not reverse)
    return b.mul(g, shifted(b, op.result, dim, along)), g


@vjp_rule(rlx.CumsumOp)
def cumsum(b, op, y_bar):
    """y = cumsum(x) along dim: y[t] reads x[s] for every s <= t, so x_bar[s] = sum_{t >= s} y_bar[t],
    the cumsum of y_bar the other way."""
    return (b.like(op, rlx.CumsumOp, [y_bar], op.input, reverse=not op.reverse),)
