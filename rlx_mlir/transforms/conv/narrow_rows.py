"""A strided 2-D convolution with narrow output rows as one matmul over its patches.

    y[n, f, o, p] = sum_{c, kh, kw} w[f, (c, kh, kw)] * cols[(c, kh, kw), (n, o, p)]
    cols[(c, kh, kw), (n, o, p)] = xpad[n, c, o*s + kh*d, p*s' + kw*d']

`cols` is im2col's patches laid out channels-first (one gather-form generic, every input
row read once per tap), so the conv is the plain `linalg.matmul` w [F, C*KH*KW] x cols
[C*KH*KW, N*Ho*Wo], whose result [F, N, Ho, Wo] is transposed to NCHW.

Why: the native backend's conv schedule runs vector lanes along the output row, and a row
narrower than its short vector is widened to one (zero columns, the result sliced back).
At a 4-column row (DCGAN's last stride-2 conv, 8x8 -> 4x4) half of every FMA computed
padding, and each of its four stride phases added a pad, a fill and a copy: 9 GFLOP/s.
As a matmul the whole contraction is one long row of N*Ho*Wo columns, which the matmul
schedule packs: 2.5x faster for 16x128x8x8 * 256x128x4x4 (benchmarks/README.md).

Only strided convs (`forward.ConvToLinalg` asks), whose alternative is the phases: the
dilated stride-1 convs of the same step's double backward measured 1.3x faster
(128x16x8x8 * 256x16x4x4), 0.9x (64x16x16x16 * 128x16x8x8) and 0.4x (3x16x32x32 *
64x16x16x16: a 48-column matmul) as matmuls. Only rows at most half a short vector
wide: a 7-column row wastes one column in eight.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import TensorBuilder, is_dynamic, shape_of
from rlx_mlir.transforms.conv.im2col import patches

NARROW_ROW = 4
"""The widest output row lowered as a matmul: half of the 8-column short vector that the
conv schedule widens narrower rows to, so that at least half its FMAs would be padding."""


def has_narrow_rows(out: TensorType) -> bool:
    """A static conv output [N, F, Ho, Wo] whose rows are at most `NARROW_ROW` wide."""
    shape = out.get_shape()
    return not any(is_dynamic(size) for size in shape) and shape[3] <= NARROW_ROW


def conv_as_matmul(b: TensorBuilder, xpad: SSAValue, w: SSAValue, window: Window, out: TensorType) -> SSAValue:
    """y = transpose(w_flat @ cols) for a one-group 2-D conv of static shapes."""
    n, f, ho, wo = out.get_shape()
    cols = b.collapse_shape(patches(b, xpad, window, shape_of(w)[2:], (ho, wo), channels_first=True), [[0, 1, 2], [3, 4, 5]])
    w_flat = b.collapse_shape(w, [[0], [1, 2, 3]])
    product = b.matmul(w_flat, cols, b.full((f, n * ho * wo), out.element_type, 0.0, like=xpad))
    return b.transpose(b.expand_shape(product, [[0], [1, 2, 3]], (f, n, ho, wo)), (1, 0, 2, 3))
