"""The weight gradient of a convolution as linalg: `dw = sum over (n, ho, wo) of dy * xpad`.

    dw[f, c, kh, kw] = sum_{n, ho, wo} dy[n, f, ho, wo] * xpad[n, c, ho*s + kh*d, wo*s + kw*d]

Two 2-D formulations, chosen by decompose-backward's `conv-weight` option: the formula as
one gather-form contraction over channels-last copies (`direct`), or RLX's im2col + matmul
with the batch bug fixed (`im2col`). Both read x padded per side (`Window.low`/`high`).
Any other spatial rank takes `weight_gradient`, the same formula as one NC* gather for
every rank (`ConvBackwardWeightGather`), whichever option is given. See the package (`rlx_mlir.transforms.conv`)
for the shared conventions.
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
from rlx_mlir.dialects.conv import ConvNdBackwardWeightOp
from rlx_mlir.geometry import Window
from rlx_mlir.transforms.builders import (
    TensorBuilder,
    dims_map,
    element_type_of,
    is_dynamic,
    shape_of,
)
from rlx_mlir.transforms.conv.groups import ConvGroups, copy_value, multiply_accumulate


@dataclass(frozen=True)
class WeightGradient:
    """What every weight-gradient formulation reads off its op: the window, the group loop,
    and dw [F, C/G, KH, KW] with F/G filters per group."""

    window: Window
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


def pad_window(b: TensorBuilder, x: SSAValue, window: Window) -> SSAValue:
    """x zero-padded by the window's low and high padding (each side its own)."""
    return b.pad(x, (0, 0, *window.low), (0, 0, *window.high), 0.0)


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
        groups, (sh, sw), (dh, dw) = geo.groups, geo.window.stride, geo.window.dilation
        fg, cg, kh_size, kw_size = geo.fg, geo.cg, geo.kh, geo.kw

        # NCHW -> NHWC, with the group axis (when there is one) before the channels.
        to_channels_last = [0, 3, 4, 1, 2] if groups.grouped else [0, 2, 3, 1]
        low, high = ([0, *side, 0, 0] if groups.grouped else [0, *side, 0] for side in (geo.window.low, geo.window.high))
        xl = b.transpose_padded(groups.split(b, op.input, 1), to_channels_last, low, high)
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

    The gathers index (n, ho, wo) as loops, with plain affine maps; the rows are then
    numbered by reshapes: collapse_shape (n, ho, wo) -> m, and for chunks expand_shape
    m -> (t, r). (Rows numbered inside the maps need floordiv/mod, semi-affine maps that
    IREE refuses to tile and that upstream tiles correctly only when a tile divides the
    steps.)

    Chunking. The rows are numbered m = t*R + r, where R, the rows per chunk, is the largest
    divisor of the row count with R*K <= `max_elements` (K = C/G*KH*KW; R >= 1). col is
    [G, T, R, K] and the contraction reduces over the chunk index t and the row r:

        dw[g, f, c, kh, kw] = sum_{t, r} dyT[g, f, t, r] * col[g, t, r, c, kh, kw]

    What this guarantees: the same numbers as the unchunked product (up to summation
    order), IR whose size does not depend on the data (no unrolled chunk per slice, unlike
    RLX), and an explicit chunk loop t of which each iteration reads one R x K slice of
    col. linalg-on-tensors has no loop to put the im2col producer in, so the buffer is
    bounded by R*K only once the contraction is tiled along t and the im2col generic fused
    into that loop through the row reshapes; the backends materialize all of col.
    With a dynamic batch the row count is unknown at compile time, so the pattern always
    chunks, with R dividing Ho*Wo (at most one sample per chunk).
    """

    max_elements: int = 4_194_304

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardWeightOp, rewriter: PatternRewriter):
        b, geo = TensorBuilder(rewriter, op), WeightGradient.of(op)
        groups, (sh, sw), (dh, dw) = geo.groups, geo.window.stride, geo.window.dilation
        f, fg, cg, kh_size, kw_size = geo.f, geo.fg, geo.cg, geo.kh, geo.kw
        _, _, ho_size, wo_size = shape_of(op.grad_output)
        k = cg * kh_size * kw_size
        element = element_type_of(op.input)
        n_size = shape_of(op.input)[0]
        rows = _RowChunks.choose(n_size, ho_size, wo_size, k, self.max_elements)
        batch_sizes = [b.dim(op.input, 0)] if is_dynamic(n_size) else []

        xpad = groups.split(b, pad_window(b, op.input, geo.window), 1)
        # col[g, n, ho, wo, c, kh, kw] = xpad[n, g, c, ho*sh + kh*dh, wo*sw + kw*dw]
        col = b.generic(
            ins=[xpad],
            init=b.empty(groups.shape([groups.count, n_size, ho_size, wo_size, cg, kh_size, kw_size], 0), element, sizes=batch_sizes),
            maps=groups.maps(
                lambda g, n, ho, wo, c, kh, kw: (n, g, c, ho * sh + kh * dh, wo * sw + kw * dw),
                lambda g, n, ho, wo, c, kh, kw: (g, n, ho, wo, c, kh, kw),
            ),
            iterators=groups.iterators("ppppppp"),
            body=copy_value,
        )
        # dyT[g, f, n, ho, wo] = dy[n, g, f, ho, wo]
        dy_t = b.generic(
            ins=[groups.split(b, op.grad_output, 1)],
            init=b.empty(groups.shape([groups.count, fg, n_size, ho_size, wo_size], 0), element, sizes=batch_sizes),
            maps=groups.maps(
                lambda g, f, n, ho, wo: (n, g, f, ho, wo),
                lambda g, f, n, ho, wo: (g, f, n, ho, wo),
            ),
            iterators=groups.iterators("ppppp"),
            body=copy_value,
        )
        if rows.chunks == 1 and not groups.grouped:
            col_mat = b.collapse_shape(col, [[0, 1, 2], [3, 4, 5]])
            dy_mat = b.collapse_shape(dy_t, [[0], [1, 2, 3]])
            product = b.matmul(dy_mat, col_mat, b.full([f, k], element, 0.0))
            rewriter.replace(op, [], [b.expand_shape(product, [[0], [1, 2, 3]], [f, cg, kh_size, kw_size])])
            return

        # (n, ho, wo) -> m -> (t, r): col [G, T, R, C, KH, KW], dyT [G, F, T, R].
        if groups.grouped:  # col [G, N, Ho, Wo, C, KH, KW], dyT [G, F, N, Ho, Wo]
            col_rows, col_chunks = [[0], [1, 2, 3], [4], [5], [6]], [[0], [1, 2], [3], [4], [5]]
            dy_rows, dy_chunks = [[0], [1], [2, 3, 4]], [[0], [1], [2, 3]]
        else:  # col [N, Ho, Wo, C, KH, KW], dyT [F, N, Ho, Wo]
            col_rows, col_chunks = [[0, 1, 2], [3], [4], [5]], [[0, 1], [2], [3], [4]]
            dy_rows, dy_chunks = [[0], [1, 2, 3]], [[0], [1, 2]]
        t_r, t_sizes = (rows.chunks, rows.per_chunk), rows.dynamic_sizes(b, op.input)
        col = b.expand_shape(
            b.collapse_shape(col, col_rows),
            col_chunks,
            groups.shape([groups.count, *t_r, cg, kh_size, kw_size], 0),
            sizes=t_sizes,
        )
        dy_t = b.expand_shape(b.collapse_shape(dy_t, dy_rows), dy_chunks, groups.shape([groups.count, fg, *t_r], 0), sizes=t_sizes)
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
    """The im2col rows m = (n, ho, wo) in `chunks` chunks of `per_chunk` rows: m = t*R + r.

    `ho_size` and `wo_size` give the rows per sample, of which `per_chunk` is a divisor
    (or a multiple) so that a dynamic batch has a known row count per chunk.
    """

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


def weight_gradient(b: TensorBuilder, x: SSAValue, dy: SSAValue, window: Window, groups: int) -> SSAValue:
    """dw[g, f, c, *k] = sum_{n, *o} dy[n, g, f, *o] * xp[n, g, c, *(o*s + k*d)], for any spatial rank.

    x [N, C, *in], dy [N, F, *out] -> dw [F, C/G, *K]. `xp` is x padded by `window.low`
    and, at the high side, by exactly what the last window `o = out - 1` reads past x
    (`(out-1)*s + d*(k-1) + 1 - low - in`, cropped where negative), so the sizes alone fix
    it: the conv's weight gradient, and the transposed conv's with x and dy swapped (its
    high padding is solved from the sizes, `ConvTransposeBackwardWeight`). One gather-form
    contraction, loops (g, f, c, *k) parallel and (n, *o) reduced; the group loop is left
    out for one group (`ConvGroups`).
    """
    r = window.rank
    group = ConvGroups(groups)
    x_shape, dy_shape = shape_of(x), shape_of(dy)
    inp, out = x_shape[2:], dy_shape[2:]
    s, d, kernel = window.stride, window.dilation, window.kernel
    high = [(out[i] - 1) * s[i] + window.extent[i] - window.low[i] - inp[i] for i in range(r)]
    xp = group.split(b, b.pad_sides(x, window.low, high, 0.0), 1)
    f, cg = dy_shape[1], x_shape[1] // groups
    # loops: g, f, c, k_0..k_{r-1}, n, o_0..o_{r-1}
    loops = 4 + 2 * r
    k_at, o_at = 3, 4 + r
    dw = b.generic(
        ins=[group.split(b, dy, 1), xp],
        init=b.full(group.shape([groups, f // groups, cg, *kernel], 0), element_type_of(x), 0.0),
        maps=group.maps(
            dims_map(loops, lambda i: (i[3 + r], i[0], i[1], *i[o_at:o_at + r])),
            dims_map(loops, lambda i: (i[3 + r], i[0], i[2], *(i[o_at + a] * s[a] + i[k_at + a] * d[a] for a in range(r)))),
            dims_map(loops, lambda i: (i[0], i[1], i[2], *i[k_at:k_at + r])),
        ),
        iterators=group.iterators("p" * (3 + r) + "R" * (1 + r)),
        body=multiply_accumulate,
    )
    return group.merge(b, dw, 0)


class ConvBackwardWeightGather(RewritePattern):
    """dw = `weight_gradient(x, dy)`: the conv weight gradient of any spatial rank (3-D; and
    what the 2-D patterns leave), as one gather-form contraction in NC* layout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvNdBackwardWeightOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rewriter.replace(op, [], [weight_gradient(b, op.input, op.grad_output, op.window(), op.groups())])
