"""The input gradient of a convolution as linalg: the adjoint convolution of dy.

    dx[n, c, i, j] = sum_{f, kh, kw : i = oh*sh + kh*dh - ph, j = ow*sw + kw*dw - pw} dy[n, f, oh, ow] * w[f, c, kh, kw]

Two 2-D formulations, chosen by decompose-backward's `conv-input` option: stride-phase
forward convs of dy (`direct`), or RLX's transposed convolution of the stride-spread dy
(`transpose`); both take padding per side. Any other spatial rank takes the stride-phase
form written for every rank (`ConvBackwardInputGather`, built on `correlate`, the forward
conv as one gather-form generic), whichever option is given. See the package (`rlx_mlir.transforms.conv`) for the
shared conventions.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.conv import ConvNdBackwardInputOp
from rlx_mlir.geometry import AxisPhase, Window, conv_transpose_output_size
from rlx_mlir.transforms.builders import (
    RegionBuilder,
    TensorBuilder,
    dims_map,
    element_type_of,
    shape_of,
    tensor_type,
)
from rlx_mlir.transforms.conv.groups import ConvGroups, multiply_accumulate
from rlx_mlir.transforms.conv.transpose import conv_transpose2d
from rlx_mlir.transforms.conv.wrapped_rows import wrapped_rows_conv, wrapped_rows_height

WRAP_BELOW = 16
"""Phases with fewer output columns than this are computed on wrapped rows: the widest f32
vector the conv schedule uses (16 lanes), so that no machine widens such a row by more
than it is. A geometry choice, not the host's: on 8 lanes a 9 to 15 column row splits into
partial vectors (14 = 8 + 4 + 2), which one long row avoids as well. Measured (A/B in one
process, benchmarks/README.md): 4 columns 1.9x, 7 columns 1.2x, 8 columns 1.1x faster."""


class ConvBackwardInputDirect(RewritePattern):
    """dx = one stride-1 forward conv of dy per stride phase (row residue mod s), no zero MACs:

        dx[n, c, sh*q + a, sw*r + b] = sum_{f, t, u} dyw_ab[n, f, q + t*dh', r + u*dw'] * w_ab[c, f, t, u]
        w_ab[c, f, t, u]             = w[f, c, taps_a[Th-1-t], taps_b[Tw-1-u]]

    (`geometry.AxisPhase` has the index algebra: which taps reach a phase, the dy window `dyw_ab`
    each reads and its dilation d' = d / gcd(s, d)). Each phase is the upstream
    `linalg.conv_2d_nchw_fchw` (stride 1) of a window of dy (a slice of one padded dy, or
    dy itself) with a small sub-kernel generic (w read with tensor.extract, so no indexing
    map has a negative coefficient: MLIR tiling and IREE reject those), and lands in dx by
    a strided `tensor.insert_slice`; phases that no tap reaches stay zero. With stride 1
    there is one phase, the whole adjoint conv. Unlike spreading dy with s - 1 zeros
    between cells and convolving that, no multiply-add reads an inserted zero (3/4 of them
    for stride 2).

    A phase whose sub-kernel is 1x1 and whose window is exactly dy (1x1 convs) is
    convolved on dy's flattened rows ([N, F, 1, H*W]): the same contraction with one long
    row, which the conv schedule's vector tiles along W divide more often. A strided phase
    of one group with short rows (fewer than `WRAP_BELOW` columns: a 4x4 or 7x7 dy) is
    convolved on wrapped rows (`wrapped_rows_conv`): the padded dy flattened to one row
    per image, one 1-row conv per kernel row, so the vectors run over several output
    rows at once instead of one short row widened to a whole vector. With groups the
    sub-kernel is [G, C/G, F/G, Th, Tw] and the conv `linalg.conv_2d_ngchw_gfchw` on dy
    split by groups.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardInputOp, rewriter: PatternRewriter):
        window = op.window()
        n, c, h, w = shape_of(op.result)
        window.solved_output_padding(shape_of(op.grad_output)[2:], (h, w))  # consistent sizes, or a GeometryError
        rows, cols = (
            AxisPhase.split(size, k, s, p, d)
            for size, k, s, p, d in zip((h, w), window.kernel, window.stride, window.low, window.dilation)
        )
        phases = _Phases(TensorBuilder(rewriter, op), op, rows, cols)
        if window.stride == (1, 1):
            (row,), (col,) = rows, cols
            rewriter.replace(op, [], [phases.conv(row, col)])
            return
        b = phases.b
        dx = b.full((n, c, h, w), element_type_of(op.weight), 0.0, like=op.grad_output)
        for row in rows:
            for col in cols:
                dx = b.insert_slice(phases.conv(row, col), dx, offsets=(0, 0, row.start, col.start), strides=(1, 1, *window.stride))
        rewriter.replace(op, [], [dx])


class _Phases:
    """The phase convs of one input gradient, sharing one padded dy and one flattened dy."""

    def __init__(self, b: TensorBuilder, op: rlx.Conv2dBackwardInputOp, rows: list[AxisPhase], cols: list[AxisPhase]):
        self.b, self.op = b, op
        self.groups = ConvGroups(op.groups())
        self.strided = op.window().stride != (1, 1)
        self.dy_out = shape_of(op.grad_output)[2:]
        self.low = [max([0, *(phase.low for phase in axis)]) for axis in (rows, cols)]
        self.high = [max([0, *(phase.high(out) for phase in axis)]) for axis, out in zip((rows, cols), self.dy_out)]
        wrapped = [(row, col) for row in rows for col in cols if self.wraps(row, col)]
        if wrapped:
            height = max(
                wrapped_rows_height(self.origin(row, col), row.window, col.dilation * (len(col.taps) - 1)) for row, col in wrapped
            )
            self.high[0] = max(self.high[0], height - self.low[0] - self.dy_out[0])
        self._padded: SSAValue | None = None
        self._flat: SSAValue | None = None
        self._padded_flat: SSAValue | None = None

    def padded(self) -> SSAValue:
        """dy padded by the largest low/high padding any phase needs (built once, when first needed)."""
        if self._padded is None:
            self._padded = self.b.pad(self.op.grad_output, (0, 0, *self.low), (0, 0, *self.high), 0.0)
        return self._padded

    def padded_flat(self) -> SSAValue:
        """The padded dy as [N, F, 1, Hp*Wp], for the wrapped-row phases."""
        if self._padded_flat is None:
            self._padded_flat = self.b.flat_rows(self.padded())
        return self._padded_flat

    def flat(self) -> SSAValue:
        """dy as [N, F, 1, Ho*Wo]."""
        if self._flat is None:
            self._flat = self.b.flat_rows(self.op.grad_output)
        return self._flat

    def wraps(self, row: AxisPhase, col: AxisPhase) -> bool:
        """Whether the phase is computed on wrapped rows (`wrapped_rows_conv`): a strided
        gradient's phase of one group, more than one row high, with rows shorter than
        WRAP_BELOW columns, and not a flattened 1x1 phase (already one long row). Grouped
        phases keep the grouped conv, whose schedule is another."""
        return self.strided and not self.groups.grouped and col.count < WRAP_BELOW and row.count > 1 and not self.flat_phase(row, col)

    def flat_phase(self, row: AxisPhase, col: AxisPhase) -> bool:
        """A 1x1 sub-kernel reading exactly dy: convolved on dy's flattened rows."""
        return len(row.taps) == len(col.taps) == 1 and (row.low, col.low) == (0, 0) and (row.window, col.window) == self.dy_out

    def origin(self, row: AxisPhase, col: AxisPhase) -> tuple[int, int]:
        """Where the phase's dy window starts in the padded dy."""
        return self.low[0] - row.low, self.low[1] - col.low

    def window(self, row: AxisPhase, col: AxisPhase) -> SSAValue:
        """dyw: dy itself when the phase reads exactly dy, else a slice of the padded dy."""
        sizes = (row.window, col.window)
        if (row.low, col.low) == (0, 0) and sizes == self.dy_out:
            return self.op.grad_output
        padded = self.padded()
        offsets = (self.low[0] - row.low, self.low[1] - col.low)
        if offsets == (0, 0) and sizes == shape_of(padded)[2:]:
            return padded
        n, f = shape_of(self.op.grad_output)[:2]
        return self.b.extract_slice(padded, offsets=(0, 0, *offsets), sizes=(n, f, *sizes))

    def conv(self, row: AxisPhase, col: AxisPhase) -> SSAValue:
        """dx at rows `row`, columns `col`: [N, C, row.count, col.count]."""
        b, groups = self.b, self.groups
        n, c = shape_of(self.op.result)[:2]
        element = element_type_of(self.op.weight)
        if self.wraps(row, col):
            w = _sub_kernel(b, self.op.weight, groups, row, col)
            origin, count = self.origin(row, col), (row.count, col.count)
            return wrapped_rows_conv(b, self.padded_flat(), shape_of(self.padded())[3], w, origin, count, (row.dilation, col.dilation))
        dyw = self.window(row, col)
        flat = self.flat_phase(row, col)
        out = (1, row.count * col.count) if flat else (row.count, col.count)
        zeros = b.full(groups.shape([n, groups.count, c // groups.count, *out], 1), element, 0.0, like=self.op.grad_output)
        conv = b.conv_2d_ngchw_gfchw if groups.grouped else b.conv_2d_nchw_fchw
        dx = conv(
            groups.split(b, self.flat() if flat else dyw, 1),
            _sub_kernel(b, self.op.weight, groups, row, col),
            zeros,
            strides=(1, 1),
            dilations=(row.dilation, col.dilation),
        )
        dx = groups.merge(b, dx, 1)
        if flat:
            dx = b.unflat_rows(dx, row.count, col.count)
        return dx


def reversed_tap(r: RegionBuilder, axis: AxisPhase, t: SSAValue) -> SSAValue:
    """The kernel tap `taps[T-1-t]` of a phase's t-th (reversed) tap: `last - step*t`, the
    taps being `step` apart."""
    last = r.index(axis.taps[-1])
    if len(axis.taps) == 1:
        return last
    step = axis.taps[1] - axis.taps[0]
    return r.sub(last, t if step == 1 else r.mul(r.index(step), t))


def _sub_kernel(b: TensorBuilder, weight: SSAValue, groups: ConvGroups, row: AxisPhase, col: AxisPhase) -> SSAValue:
    """w_ab[(g,) c, f, t, u] = w[(g,) f, c, taps_a[Th-1-t], taps_b[Tw-1-u]]: the phase's taps,
    reversed, with the channel axes swapped.

    Read with tensor.extract (in bounds by construction) rather than through an indexing
    map `last - step*t`: a negative coefficient in a map aborts MLIR's tiling and IREE's
    compilation, and the weight is too small for the gather to matter.
    """
    f, cg = shape_of(weight)[:2]
    w_split = groups.split(b, weight, 0)

    def sub_kernel_value(r: RegionBuilder, _out: SSAValue) -> SSAValue:
        *group, c_, f_, t, u = (r.loop_index(d) for d in range(len(groups.iterators("ppppp"))))
        return r.extract(w_split, [*group, f_, c_, reversed_tap(r, row, t), reversed_tap(r, col, u)])

    return b.generic(
        ins=[],
        init=b.empty(groups.shape([groups.count, cg, f // groups.count, len(row.taps), len(col.taps)], 0), element_type_of(weight)),
        maps=groups.maps(lambda g, c, f, t, u: (g, c, f, t, u)),
        iterators=groups.iterators("ppppp"),
        body=sub_kernel_value,
    )


class ConvBackwardInputTranspose(RewritePattern):
    """dx = conv_transpose2d(dy, w, stride s, padding pl (both sides), dilation d, output_padding op, groups G)

    RLX's route. The transposed conv crops its output by the forward's low padding `pl` at
    both ends; the high side then gets `op = in - ((out-1)*s - 2*pl + d*(k-1) + 1)` back, so
    that dx has the declared size: the forward's own solved output_padding
    (`Window.solved_output_padding`) when the padding is symmetric, and with per-side
    padding the same sum with `ph` replaced by `pl`, which may be negative (a crop) or at
    least s. w [F, C/G, KH, KW] is already conv_transpose2d's [C_in = F, C_out/G = C/G, KH, KW].
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardInputOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window = op.window()
        result_type = tensor_type(op.result)
        out, inp = shape_of(op.grad_output)[2:], tuple(result_type.get_shape()[2:])
        window.solved_output_padding(out, inp)  # consistent sizes, or a GeometryError
        low_both = Window.of(window.kernel, window.stride, window.low, window.dilation)
        output_padding = tuple(
            inp[i] - conv_transpose_output_size(out[i], window.kernel[i], window.stride[i], window.low[i], window.dilation[i], 0)
            for i in window.axes
        )
        dx = conv_transpose2d(b, op.grad_output, op.weight, low_both, output_padding, op.groups(), result_type)
        rewriter.replace(op, [], [dx])


def correlate(
    b: TensorBuilder,
    x: SSAValue,
    w: SSAValue,
    stride: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    result_type: TensorType,
) -> SSAValue:
    """y[n, g, fo, *o] = sum_{ci, *k} x[n, g, ci, *(o*s + k*d)] * w[g, fo, ci, *k], any spatial rank.

    The forward conv of an already padded x [N, C, *in] with w [F, C/G, *K] into
    `result_type` [N, F, *out], as one gather-form generic; x must reach exactly
    `(out-1)*s + d*(k-1) + 1` along each axis. The group loop is left out for one group.
    """
    r = len(stride)
    group = ConvGroups(groups)
    n, f, *out = result_type.get_shape()
    # loops: g, n, fo, o_0..o_{r-1}, ci, k_0..k_{r-1}
    loops = 4 + 2 * r
    o_at, k_at = 3, 4 + r
    y = b.generic(
        ins=[group.split(b, x, 1), group.split(b, w, 0)],
        init=b.full(group.shape([n, groups, f // groups, *out], 1), result_type.element_type, 0.0, like=x),
        maps=group.maps(
            dims_map(loops, lambda i: (i[1], i[0], i[3 + r], *(i[o_at + a] * stride[a] + i[k_at + a] * dilation[a] for a in range(r)))),
            dims_map(loops, lambda i: (i[0], i[2], i[3 + r], *i[k_at:k_at + r])),
            dims_map(loops, lambda i: (i[1], i[0], i[2], *i[o_at:o_at + r])),
        ),
        iterators=group.iterators("p" * (3 + r) + "R" * (1 + r)),
        body=multiply_accumulate,
    )
    return group.merge(b, y, 1)


class ConvBackwardInputGather(RewritePattern):
    """`ConvBackwardInputDirect`'s stride phases for any spatial rank, each phase a `correlate`:

        dx[n, c, *(s*q + a)] = sum_{f, *t} dyw_a[n, f, *(q + t*d')] * w_a[c, f, *t]
        w_a[c, f, *t]        = w[f, c, *taps_a[T-1-t]]

    for every phase a (a tuple of per-axis `geometry.AxisPhase`s, at most prod(s) of them: a
    bound of the geometry, not of the data). The dy windows are slices of one dy padded by
    the largest low/high any phase needs; each phase lands in dx by a strided
    `tensor.insert_slice`; rows that no tap reaches stay zero. No multiply-add reads an
    inserted zero. Used for 3-D (upstream's one named 3-D conv takes no groups and xDSL
    does not define it, so the phase convs are generics) and registered after the 2-D
    patterns.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvNdBackwardInputOp, rewriter: PatternRewriter):
        window = op.window()
        dx_shape, dy_shape = shape_of(op.result), shape_of(op.grad_output)
        n, c, *inp = dx_shape
        out = dy_shape[2:]
        window.solved_output_padding(out, inp)  # consistent sizes, or a GeometryError
        axes = [
            AxisPhase.split(inp[i], window.kernel[i], window.stride[i], window.low[i], window.dilation[i])
            for i in window.axes
        ]
        b = TensorBuilder(rewriter, op)
        low = [max([0, *(phase.low for phase in axis)]) for axis in axes]
        high = [max([0, *(phase.high(out[i]) for phase in axis)]) for i, axis in enumerate(axes)]
        dyp = b.pad(op.grad_output, (0, 0, *low), (0, 0, *high), 0.0)
        element = element_type_of(op.weight)
        w_split = ConvGroups(op.groups()).split(b, op.weight, 0)
        dx = None if all(s == 1 for s in window.stride) else b.full(dx_shape, element, 0.0, like=op.grad_output)
        for phases in itertools.product(*axes):
            offsets = [low[i] - phase.low for i, phase in enumerate(phases)]
            sizes = [phase.window for phase in phases]
            dyw = dyp if sizes == list(shape_of(dyp)[2:]) else b.extract_slice(dyp, (0, 0, *offsets), (*dy_shape[:2], *sizes))
            part = correlate(
                b, dyw, _sub_kernel_nd(b, w_split, op.groups(), phases), (1,) * window.rank,
                tuple(phase.dilation for phase in phases), op.groups(),
                TensorType(element, [n, c, *(phase.count for phase in phases)]),
            )
            if dx is None:
                dx = part
            else:
                dx = b.insert_slice(part, dx, offsets=(0, 0, *(phase.start for phase in phases)), strides=(1, 1, *window.stride))
        if dx is None:  # no phase reaches dx (stride 1 always has one)
            dx = b.full(dx_shape, element, 0.0, like=op.grad_output)
        rewriter.replace(op, [], [dx])


def _sub_kernel_nd(b: TensorBuilder, w_split: SSAValue, groups: int, phases: Sequence[AxisPhase]) -> SSAValue:
    """w_a[c, f, *t] = w[f, c, *taps[T-1-t]] per group, merged to [C, F/G, *T]: `_sub_kernel`
    for any rank (read with tensor.extract, for the same reason). `w_split` is w split by
    groups ([G, F/G, C/G, *K]; w itself for one group)."""
    group = ConvGroups(groups)
    fg, cg = shape_of(w_split)[group.grouped:][:2]
    r = len(phases)

    def value(rb: RegionBuilder, _out: SSAValue) -> SSAValue:
        loops = [rb.loop_index(d) for d in range(len(group.iterators("p" * (3 + r))))]
        *g, c_, f_ = loops[: len(loops) - r]
        taps = [reversed_tap(rb, phase, t) for phase, t in zip(phases, loops[len(loops) - r :])]
        return rb.extract(w_split, [*g, f_, c_, *taps])

    sub = b.generic(
        ins=[],
        init=b.empty(group.shape([groups, cg, fg, *(len(phase.taps) for phase in phases)], 0), element_type_of(w_split)),
        maps=group.maps(dims_map(3 + r, lambda i: tuple(i))),
        iterators=group.iterators("p" * (3 + r)),
        body=value,
    )
    return group.merge(b, sub, 0)
