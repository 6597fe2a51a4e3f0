"""A strided 2-D convolution as stride-1 convolutions, one per stride phase of its input.

    y[n, f, o, p] = sum_{c, kh, kw} xpad[n, c, s*o + d*kh, s'*p + d'*kw] * w[f, c, kh, kw]
                  = sum_{a, b} sum_{c, t, u} x_ab[n, c, o + t*e, p + u*e'] * w_ab[f, c, t, u]

    x_ab[n, c, i, j] = xpad[n, c, s*(q_a + i) + a, s'*(q_b + j) + b]
    w_ab[f, c, t, u] = w[f, c, taps_a[t], taps_b[u]]

where `a` and `b` are the residues of the rows and columns the taps read (`d*kh mod s`;
`geometry.StridePhase` has the algebra: the taps of a residue, their first row `q_a` and
their dilation `e = d / gcd(s, d)`). Each phase is the upstream `linalg.conv_2d_nchw_fchw`
at stride 1, accumulating into the one output; the phases' multiply-adds are exactly the
strided conv's, and the phase copies `x_ab` (gather-form generics) read every input element
once in all.

Why: the native backend's conv schedule runs vector lanes along the output width, and a
stride-2 conv reads every other input column there. Vectorized, those reads were gathers
and the conv ran at 5 GFLOP/s (ResNet-18's downsampling convs: 0.02-0.06 of PyTorch's
speed), where its stride-1 phases read whole rows. This is `convert-rlx-to-linalg`'s
`strided-conv=phases`, which the backend asks for; the default keeps the one strided named
op, the form other toolchains expect.

A phase with a 1x1 sub-kernel convolves flattened rows (`[N, C, 1, Ho*Wo]`, views of
contiguous tensors): the same contraction with one long row, which the schedule's vector
tiles divide more often (a 1x1 stride-2 conv to 7x7 is one 49-wide row, not seven 7-wide
ones).

`padded_phase_input` builds one phase from the unpadded x instead (a zero fill and a
strided slice): the grouped weight gradient's column phases (`grouped_backward`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.geometry import StridePhase, Window
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, element_type_of, shape_of


def strided_conv_phases(b: TensorBuilder, xpad: SSAValue, w: SSAValue, window: Window, out: TensorType) -> SSAValue:
    """y = sum over the stride phases (a, b) of conv_stride1(x_ab, w_ab) (one group, 2-D)."""
    kernel = shape_of(w)[2:]
    rows, cols = (StridePhase.split(k, s, d) for k, s, d in zip(kernel, window.stride, window.dilation))
    y = b.full(out.get_shape(), out.element_type, 0.0, like=xpad)
    for row in rows:
        for col in cols:
            y = _accumulate_phase(b, xpad, w, window, row, col, y)
    return y


def _accumulate_phase(
    b: TensorBuilder, xpad: SSAValue, w: SSAValue, window: Window, row: StridePhase, col: StridePhase, y: SSAValue
) -> SSAValue:
    """y + conv_stride1(x_ab, w_ab): the taps of residues (row, col)."""
    n, f, ho, wo = shape_of(y)
    c = shape_of(xpad)[1]
    x_ab = _phase_input(b, xpad, window.stride, row, col, (row.rows(ho), col.rows(wo)))
    w_ab = b.extract_slice(
        w,
        offsets=(0, 0, row.taps[0], col.taps[0]),
        sizes=(f, c, len(row.taps), len(col.taps)),
        strides=(1, 1, row.tap_step, col.tap_step),
    )
    if len(row.taps) == len(col.taps) == 1:
        flat = b.conv_2d_nchw_fchw(b.flat_rows(x_ab), w_ab, b.flat_rows(y), (1, 1), (1, 1))
        return b.unflat_rows(flat, ho, wo)
    return b.conv_2d_nchw_fchw(x_ab, w_ab, y, (1, 1), (row.dilation, col.dilation))


def _phase_input(
    b: TensorBuilder, xpad: SSAValue, stride: tuple[int, ...], row: StridePhase, col: StridePhase, size: tuple[int, int]
) -> SSAValue:
    """x_ab[n, c, i, j] = xpad[n, c, s*i + first_a, s'*j + first_b], a contiguous copy."""
    n, c = shape_of(xpad)[:2]
    sh, sw = stride
    first_row, first_col = row.first_row(sh), col.first_row(sw)
    return b.generic(
        ins=[xpad],
        init=b.empty((n, c, *size), element_type_of(xpad), like=xpad),
        maps=[
            dims_map(4, lambda d: (d[0], d[1], d[2] * sh + first_row, d[3] * sw + first_col)),
            dims_map(4, lambda d: tuple(d)),
        ],
        iterators="pppp",
        body=lambda r, x, _out: x,
    )


def padded_phase_input(
    b: TensorBuilder,
    x: SSAValue,
    stride: tuple[int, int],
    low: tuple[int, int],
    phases: tuple[StridePhase, StridePhase],
    size: tuple[int, int],
) -> SSAValue:
    """x_ab[n, c, i, j] = xpad[n, c, s*i + first_a, s'*j + first_b] for the row and column
    `phases` (a, b), with xpad = x zero-padded by `low` before each axis (zeros past its end
    too), built without xpad: a zero fill and the strided slice of x's cells it holds.

    A zero fill and an insert_slice are what the backend's grouped-conv schedule writes as
    vector rows (the copy is one pass over the phase's cells of x); a tensor.pad followed by
    the phase copy wrote and read every padded cell twice more.
    """
    n, c = shape_of(x)[:2]
    axes = [
        _phase_cells(s, phase.first_row(s), before, extent, out)
        for s, phase, before, extent, out in zip(stride, phases, low, shape_of(x)[2:], size)
    ]
    zeros = b.full((n, c, *size), element_type_of(x), 0.0, like=x)
    if any(count == 0 for _, _, count in axes):
        return zeros
    cells = b.extract_slice(
        x,
        offsets=(0, 0, *(source for _, source, _ in axes)),
        sizes=(n, c, *(count for _, _, count in axes)),
        strides=(1, 1, *stride),
    )
    return b.insert_slice(cells, zeros, (0, 0, *(dest for dest, _, _ in axes)))


def _phase_cells(stride: int, first: int, low: int, extent: int, size: int) -> tuple[int, int, int]:
    """Along one axis of a phase i -> xpad[stride*i + first] of `size` cells: the first cell
    that is in x (not padding), the x index it reads, and how many cells read x."""
    dest = max(0, -((first - low) // stride))  # the least i with stride*i + first >= low
    source = stride * dest + first - low
    count = max(0, min(size - dest, -((source - extent) // stride)))
    return dest, source, count
