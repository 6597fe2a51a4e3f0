"""A stride-1 convolution of a small output computed on wrapped rows: one long row per image.

    y[n, c, q, r] = sum_{f, t, u} xp[n, f, y0 + q + t*dh, x0 + r + u*dw] * w[c, f, t, u]

Read xp [N, F, Hp, Wp] as one flat row per image (a view of a contiguous tensor), and the
output as `count_h` rows of the padded width Wp each:

    yw[n, c, q*Wp + r] = sum_t sum_{f, u} flat[n, f, (y0 + t*dh)*Wp + x0 + (q*Wp + r) + u*dw] * w[c, f, t, u]

For every kernel row t this is a 1-row conv (kernel 1 x Tw) of a slice of the flat row,
the kernel rows accumulating into one output; columns r >= count_w of each output row read
across the row's end into the next one and are dropped by the final slice. Why: the conv
schedule runs its vector lanes along the output width, and an output a few columns wide
(a stride phase of a small feature map: 4 columns in the WGAN-GP critic's 8x8 input
gradient, 7 in ResNet's last stage) is widened to a whole vector, wasting up to half of the
multiply-adds; one row of count_h*Wp columns fills the vectors, wasting only the Wp -
count_w wrapped columns of each row. Nothing is copied on the way in: the slices are views.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, shape_of


def wrapped_rows_height(origin: tuple[int, int], window_height: int, last_tap_column: int) -> int:
    """The rows xp needs for the window at `origin`, `window_height` rows high. The last
    kernel row's slice ends `origin[1] + last_tap_column` (last_tap_column = dw*(Tw-1))
    columns into the row below the window's last one, so that row must exist, as zeros,
    unless it ends exactly at the window's last row; the window fits in the width, so one
    row is always enough."""
    return origin[0] + window_height + (1 if origin[1] + last_tap_column > 0 else 0)


def wrapped_rows_conv(
    b: TensorBuilder,
    flat: SSAValue,
    width: int,
    w: SSAValue,
    origin: tuple[int, int],
    count: tuple[int, int],
    dilation: tuple[int, int],
) -> SSAValue:
    """y [N, C, count_h, count_w] of the window at `origin` of xp [N, F, Hp, Wp = `width`],
    given as `flat` = `b.flat_rows(xp)`, and the kernel `w` [C, F, Th, Tw] (stride 1,
    `dilation`). xp must hold `wrapped_rows_height(...)` rows."""
    n, f = shape_of(flat)[:2]
    c, _, th, tw = shape_of(w)
    (y0, x0), (count_h, count_w), (dh, dw), wp = origin, count, dilation, width
    length = count_h * wp
    y = b.full((n, c, 1, length), element_type_of(w), 0.0, like=flat)
    for t in range(th):
        start = (y0 + t * dh) * wp + x0
        x_t = b.extract_slice(flat, offsets=(0, 0, 0, start), sizes=(n, f, 1, length + dw * (tw - 1)))
        w_t = b.extract_slice(w, offsets=(0, 0, t, 0), sizes=(c, f, 1, tw))
        y = b.conv_2d_nchw_fchw(x_t, w_t, y, strides=(1, 1), dilations=(1, dw))
    rows = b.unflat_rows(y, count_h, wp)
    return b.extract_slice(rows, offsets=(0, 0, 0, 0), sizes=(n, c, count_h, count_w))
