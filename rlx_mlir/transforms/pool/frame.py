"""Tensors inside a frame of a constant: the window-indexed operands of the phase gathers.

A phase gather reads dy and the argmax at windows `i + d` that may lie outside the
output; framing both by the reach of those offsets (`PoolAxis.halo`) keeps every read in
bounds. Only the frame is filled (one fill per strip, `frame_strips`), never the whole
tensor before its inside is overwritten.
"""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from rlx_mlir.geometry import Pair, frame_strips
from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of

Halo = tuple[Pair, Pair]
"""((top, bottom), (left, right)): the width of a frame."""


def frame(b: TensorBuilder, shape: tuple[int, ...], element: Attribute, halo: Halo, fill: float, like: SSAValue) -> SSAValue:
    """A tensor of `shape` whose outer `halo` rows and columns hold `fill`; the inside is
    left to the caller."""
    n_, c_, h_, w_ = shape
    framed = b.empty(shape, element, like=like)
    for (row, col), (rows, cols) in frame_strips((h_, w_), halo):
        at = (0, 0, row, col)
        filled = b.fill(b.extract_slice(framed, at, (n_, c_, rows, cols)), fill)
        framed = b.insert_slice(filled, framed, at)
    return framed


def framed(b: TensorBuilder, value: SSAValue, halo: Halo, fill: float) -> SSAValue:
    """`value` inside a frame of `fill`, `halo` wide: a vectorizable copy into a framed tensor.

    (tensor.pad would bufferize to a runtime strided memref copy.)
    """
    (top, bottom), (left, right) = halo
    if not (top or bottom or left or right):
        return value
    n_, c_, h_, w_ = shape_of(value)
    outer = frame(b, (n_, c_, h_ + top + bottom, w_ + left + right), element_type_of(value), halo, fill, value)
    at = (0, 0, top, left)
    inside = b.extract_slice(outer, at, shape_of(value))
    # for n, c, h, w:
    #   inside[n, c, h, w] = value[n, c, h, w]
    copied = b.generic(
        ins=[value],
        init=inside,
        maps=[lambda n, c, h, w: (n, c, h, w)] * 2,
        iterators="pppp",
        body=lambda r, v, _old: v,
    )
    return b.insert_slice(copied, outer, at)
