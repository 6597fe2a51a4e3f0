"""The weight gradient of a convolution as linalg: `dw = sum over (n, ho, wo) of dy * xpad`.

    dw[f, c, kh, kw] = sum_{n, ho, wo} dy[n, f, ho, wo] * xpad[n, c, ho*s + kh*d, wo*s + kw*d]

Two formulations, chosen by decompose-backward's `conv-weight` option: the formula as one
gather-form contraction (`direct`), or RLX's im2col + matmul with the batch bug fixed
(`im2col`). See `conv_backward` for the shared conventions.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import Window2d
from rlx_mlir.transforms.builders import (
    TensorBuilder,
    element_type_of,
    is_dynamic,
    shape_of,
)
from rlx_mlir.transforms.conv_groups import ConvGroups, copy_value, multiply_accumulate


@dataclass(frozen=True)
class WeightGradient:
    """What every weight-gradient formulation reads off its op: the window, the group loop,
    and dw [F, C/G, KH, KW] with F/G filters per group."""

    window: Window2d
    groups: ConvGroups
    f: int
    fg: int
    cg: int
    kh: int
    kw: int

    @staticmethod
    def of(op: rlx.Conv2dBackwardWeightOp) -> WeightGradient:
        groups = ConvGroups(op.groups())
        f, cg, kh, kw = shape_of(op.result)
        return WeightGradient(op.window(), groups, f, f // groups.count, cg, kh, kw)


class ConvBackwardWeightDirect(RewritePattern):
    """dw = sum over (n, ho, wo) of an outer product of channel vectors, read channels-last:

        xl[n, h, w, g, c]  = xpad[n, g, c, h, w]           (x zero-padded by p, transposed)
        dyl[n, ho, wo, g, f] = dy[n, g, f, ho, wo]
        dwl[g, kh, kw, f, c] = sum_{n, ho, wo} dyl[n, ho, wo, g, f] * xl[n, ho*sh + kh*dh, wo*sw + kw*dw, g, c]
        dw[g, f, c, kh, kw]  = dwl[g, kh, kw, f, c]

    with the wider of the two channel axes (c above; f when F/G > C/G) innermost in dwl.
    For fixed (n, ho, wo, kh, kw) the contraction is then a rank-1 update of a [P, Q]
    channel block whose two operands are contiguous rows of xl and dyl: the layout of a
    matmul micro-kernel (broadcast one operand, vector loads of the other), which the
    backend's conv-weight schedule tiles, vectorizes along the inner channel axis and keeps
    in registers across the (ho, wo) sum. In NCHW the same contraction reads both operands
    with the row stride between neighbouring channels, which no vector load covers.

    The two transposes are linear in the data and single passes (the padding is written
    by the transpose into a zero-filled buffer, `TensorBuilder.transpose_padded`); the
    third, of dwl, is weight-sized. x is split to [N, G, C/G, H, W], dy to
    [N, G, F/G, Ho, Wo], and dw [G, F/G, C/G, KH, KW] is collapsed to [F, C/G, KH, KW].
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardWeightOp, rewriter: PatternRewriter):
        b, geo = TensorBuilder(rewriter, op), WeightGradient.of(op)
        groups, (sh, sw), (dh, dw), (ph, pw) = geo.groups, geo.window.stride, geo.window.dilation, geo.window.padding
        fg, cg, kh_size, kw_size = geo.fg, geo.cg, geo.kh, geo.kw

        # NCHW -> NHWC, with the group axis (when there is one) before the channels.
        to_channels_last = [0, 3, 4, 1, 2] if groups.grouped else [0, 2, 3, 1]
        spatial_padding = [0, ph, pw, 0, 0] if groups.grouped else [0, ph, pw, 0]
        xl = b.transpose_padded(groups.split(b, op.input, 1), to_channels_last, spatial_padding, spatial_padding)
        dyl = b.transpose(groups.split(b, op.grad_output, 1), to_channels_last)

        def x_at(g, kh, kw, n, ho, wo, c):
            return (n, ho * sh + kh * dh, wo * sw + kw * dw, g, c)

        if cg >= fg:  # dwl[g, kh, kw, f, c]
            p_size, q_size, to_nchw = fg, cg, [0, 3, 4, 1, 2]
            maps = (
                lambda g, kh, kw, f, c, n, ho, wo: (n, ho, wo, g, f),
                lambda g, kh, kw, f, c, n, ho, wo: x_at(g, kh, kw, n, ho, wo, c),
            )
        else:  # dwl[g, kh, kw, c, f]
            p_size, q_size, to_nchw = cg, fg, [0, 4, 3, 1, 2]
            maps = (
                lambda g, kh, kw, c, f, n, ho, wo: (n, ho, wo, g, f),
                lambda g, kh, kw, c, f, n, ho, wo: x_at(g, kh, kw, n, ho, wo, c),
            )
        zeros = b.full(groups.shape([groups.count, kh_size, kw_size, p_size, q_size], 0), element_type_of(dyl), 0.0)
        dwl = b.generic(
            ins=[dyl, xl],
            init=zeros,
            maps=groups.maps(*maps, lambda g, kh, kw, p, q, n, ho, wo: (g, kh, kw, p, q)),
            iterators=groups.iterators("pppppRRR"),
            body=multiply_accumulate,
        )
        if not groups.grouped:
            to_nchw = [axis - 1 for axis in to_nchw[1:]]
        rewriter.replace(op, [], [groups.merge(b, b.transpose(dwl, to_nchw), 0)])


@dataclass(frozen=True)
class ConvBackwardWeightIm2col(RewritePattern):
    """dw[g, f, (c, kh, kw)] = sum_m dyT[g, f, m] * col[g, m, (c, kh, kw)], rows m = (n, ho, wo)

        col[g, m, c, kh, kw] = xpad[n, g, c, ho*sh + kh*dh, wo*sw + kw*dw]
        dyT[g, f, m]         = dy[n, g, f, ho, wo]

    RLX's im2col + matmul, done right: the im2col matrix is one gather-form generic (not a
    gather per element), and dy's batch axis is moved next to (ho, wo) by a transposing
    generic before the rows are flattened (RLX reshapes [N, F, Ho, Wo] straight to
    [F, N*Ho*Wo], which is only correct for N = 1). Ungrouped and unchunked, the product is
    `linalg.matmul` [F, M] x [M, K]; otherwise a matmul-like generic with a group batch.

    Chunking. The rows are numbered m = t*R + r with (n, ho, wo) = (m div HoWo,
    (m mod HoWo) div Wo, m mod Wo) as affine floordiv/mod indexing maps, where R, the rows
    per chunk, is the largest divisor of the row count with R*K <= `max_elements`
    (K = C/G*KH*KW; R >= 1). col is [G, T, R, K] and the contraction reduces over the
    chunk index t and the row r:

        dw[g, f, c, kh, kw] = sum_{t, r} dyT[g, f, t, r] * col[g, t, r, c, kh, kw]

    What this guarantees: the same numbers as the unchunked product (up to summation
    order), IR whose size does not depend on the data (no unrolled chunk per slice, unlike
    RLX), and an explicit chunk loop t of which each iteration reads one R x K slice of
    col. linalg-on-tensors has no loop to put the im2col producer in, so the buffer is
    bounded by R*K only once the contraction is tiled along t and col fused into that
    loop (e.g. `transform.structured.fuse`); the plain backend materializes all of col.
    With a dynamic batch the row count is unknown at compile time, so the pattern always
    chunks, with R dividing Ho*Wo (at most one sample per chunk).
    """

    max_elements: int = 4_194_304

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardWeightOp, rewriter: PatternRewriter):
        b, geo = TensorBuilder(rewriter, op), WeightGradient.of(op)
        groups, (sh, sw), (dh, dw), (ph, pw) = geo.groups, geo.window.stride, geo.window.dilation, geo.window.padding
        f, fg, cg, kh_size, kw_size = geo.f, geo.fg, geo.cg, geo.kh, geo.kw
        _, _, ho_size, wo_size = shape_of(op.grad_output)
        k = cg * kh_size * kw_size
        element = element_type_of(op.input)
        rows = _RowChunks.choose(shape_of(op.input)[0], ho_size, wo_size, k, self.max_elements)
        t_size, r_size = rows.chunks, rows.per_chunk
        t_sizes = rows.dynamic_sizes(b, op.input)

        xpad = groups.split(b, b.pad_spatial(op.input, (ph, pw), 0.0), 1)
        col = b.generic(
            ins=[xpad],
            init=b.empty(groups.shape([groups.count, t_size, r_size, cg, kh_size, kw_size], 0), element, sizes=t_sizes),
            maps=groups.maps(
                lambda g, t, r, c, kh, kw: (rows.n(t, r), g, c, rows.ho(t, r) * sh + kh * dh, rows.wo(t, r) * sw + kw * dw),
                lambda g, t, r, c, kh, kw: (g, t, r, c, kh, kw),
            ),
            iterators=groups.iterators("pppppp"),
            body=copy_value,
        )
        dy_t = b.generic(
            ins=[groups.split(b, op.grad_output, 1)],
            init=b.empty(groups.shape([groups.count, fg, t_size, r_size], 0), element, sizes=t_sizes),
            maps=groups.maps(
                lambda g, f, t, r: (rows.n(t, r), g, f, rows.ho(t, r), rows.wo(t, r)),
                lambda g, f, t, r: (g, f, t, r),
            ),
            iterators=groups.iterators("pppp"),
            body=copy_value,
        )

        if t_size == 1 and not groups.grouped:
            col_mat = b.collapse_shape(col, [[0, 1], [2, 3, 4]])
            dy_mat = b.collapse_shape(dy_t, [[0], [1, 2]])
            product = b.matmul(dy_mat, col_mat, b.full([f, k], element, 0.0))
            rewriter.replace(op, [], [b.expand_shape(product, [[0], [1, 2, 3]], [f, cg, kh_size, kw_size])])
            return

        zeros = b.full(groups.shape([groups.count, fg, cg, kh_size, kw_size], 0), element, 0.0)
        dw_ = b.generic(
            ins=[dy_t, col],
            init=zeros,
            maps=groups.maps(
                lambda g, f, c, kh, kw, t, r: (g, f, t, r),
                lambda g, f, c, kh, kw, t, r: (g, t, r, c, kh, kw),
                lambda g, f, c, kh, kw, t, r: (g, f, c, kh, kw),
            ),
            iterators=groups.iterators("pppppRR"),
            body=multiply_accumulate,
        )
        rewriter.replace(op, [], [groups.merge(b, dw_, 0)])


@dataclass(frozen=True)
class _RowChunks:
    """The im2col rows m = (n, ho, wo) in `chunks` chunks of `per_chunk` rows: m = t*R + r."""

    chunks: int  # DYNAMIC_INDEX with a dynamic batch
    per_chunk: int
    ho_size: int
    wo_size: int

    @staticmethod
    def choose(batch: int, ho_size: int, wo_size: int, k: int, max_elements: int) -> _RowChunks:
        """One chunk if all rows x K fit `max_elements`, else the largest R that does (R >= 1)
        and divides the row count (one sample's rows when the batch is dynamic)."""
        per_sample = ho_size * wo_size
        if not is_dynamic(batch) and batch * per_sample * k <= max_elements:
            return _RowChunks(1, batch * per_sample, ho_size, wo_size)
        total = per_sample if is_dynamic(batch) else batch * per_sample
        bound = max(1, max_elements // k)
        per_chunk = max(d for d in range(1, min(total, bound) + 1) if total % d == 0)
        chunks = DYNAMIC_INDEX if is_dynamic(batch) else total // per_chunk
        return _RowChunks(chunks, per_chunk, ho_size, wo_size)

    def dynamic_sizes(self, b: TensorBuilder, batched: SSAValue) -> list[SSAValue]:
        """The chunk count as an SSA size when it is dynamic: N * (Ho*Wo / R)."""
        if self.chunks != DYNAMIC_INDEX:
            return []
        n = b.dim(batched, 0)
        factor = self.ho_size * self.wo_size // self.per_chunk
        return [n if factor == 1 else b.value(arith.MuliOp(n, b.index(factor)))]

    def _m(self, t, r):
        return r if self.chunks == 1 else t * self.per_chunk + r

    def n(self, t, r):
        return self._m(t, r) // (self.ho_size * self.wo_size)

    def ho(self, t, r):
        return (self._m(t, r) % (self.ho_size * self.wo_size)) // self.wo_size

    def wo(self, t, r):
        return self._m(t, r) % self.wo_size
