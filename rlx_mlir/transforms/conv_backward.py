"""Convolution gradients as gather-form linalg contractions.

For `y = conv2d(x, w)` with stride s, padding p, dilation d and `groups` G
(x [N,C,H,W], w [F,C/G,KH,KW], dy [N,F,Ho,Wo]):

    dw[f, c, kh, kw] = sum_{n, ho, wo} dy[n, f, ho, wo] * xpad[n, c, ho*s + kh*d, wo*s + kw*d]
    dx[n, c, h, w]   = sum_{f, kh, kw} dyp[n, f, h + (KH-1-kh)*d, w + (KW-1-kw)*d] * w[f, c, kh, kw]
                     = sum_{f, kh, kw} dyp[n, f, h + kh*d, w + kw*d] * wflip[c, f, kh, kw]

where `xpad` is x zero-padded by p and `dyp` is dy with s - 1 zeros between cells, padded
by `d*(k-1) - p` low and `d*(k-1) - p + output_padding` high (cropped where negative) so
that dx has exactly the declared size. Each is written with a group loop `g`: channel axes
are split by `expand_shape` into (G, channels/G) and joined again by `collapse_shape`;
with `groups == 1` the group loop and the group axes are left out (`_Groups`).

Every output is indexed by loop dimensions only, every size and offset is a constant of
the op's geometry (the batch may be dynamic), so the IR is the same size for any tensor
size and the work is linear in it. Accumulation is in the op's element type.

Formulations (pass options):
- `conv-weight=direct`: `ConvBackwardWeightDirect`, the dw formula as one contraction.
- `conv-weight=im2col`: `ConvBackwardWeightIm2col`, RLX's im2col + matmul with dy's batch
  axis moved before the flatten, optionally chunked over rows.
- `conv-input=direct`: `ConvBackwardInputDirect`, the dx formula as the upstream named
  forward conv of dyp with the flipped, channel-swapped weight (a small generic).
- `conv-input=transpose`: `ConvBackwardInputTranspose`, RLX's route: a transposed conv of
  dy with the solved output_padding (`conv_transpose.conv_transpose2d`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import (
    RegionBuilder,
    TensorBuilder,
    affine_map,
    element_type_of,
    is_dynamic,
    shape_of,
    tensor_type,
)
from rlx_mlir.transforms.options import check_choice

CONV_WEIGHT = ("direct", "im2col")
CONV_INPUT = ("direct", "transpose")


def _multiply_accumulate(r: RegionBuilder, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
    return r.add(acc, r.mul(a, b))


def _copy(_r: RegionBuilder, value: SSAValue, _out: SSAValue) -> SSAValue:
    return value


@dataclass(frozen=True)
class _Groups:
    """The group loop `g`, written once in each formula and left out when `groups == 1`.

    Formulas are written with `g` as loop dimension 0 and with a group axis in the
    operands that `split` made. With one group, `split`/`merge` are no-ops, `maps` drops
    loop `g` and every map result that is exactly `g`, and `iterators` drops g's letter,
    so the ungrouped IR is the plain NCHW contraction.
    """

    count: int

    @property
    def grouped(self) -> bool:
        return self.count > 1

    def split(self, b: TensorBuilder, value: SSAValue, axis: int) -> SSAValue:
        """Channels `axis` -> (G, channels/G)."""
        if not self.grouped:
            return value
        shape = list(shape_of(value))
        shape[axis : axis + 1] = [self.count, shape[axis] // self.count]
        reassociation = [[i] for i in range(axis)] + [[axis, axis + 1]]
        reassociation += [[i + 1] for i in range(axis + 1, len(shape) - 1)]
        return b.expand_shape(value, reassociation, shape)

    def merge(self, b: TensorBuilder, value: SSAValue, axis: int) -> SSAValue:
        """(G, channels/G) at `axis` -> channels."""
        if not self.grouped:
            return value
        rank = len(shape_of(value))
        reassociation = [[i] for i in range(axis)] + [[axis, axis + 1]]
        reassociation += [[i] for i in range(axis + 2, rank)]
        return b.collapse_shape(value, reassociation)

    def shape(self, shape: Sequence[int], axis: int) -> list[int]:
        """A shape written with the group axis at `axis`, without it for one group."""
        return list(shape) if self.grouped else [s for i, s in enumerate(shape) if i != axis]

    def maps(self, *specs: Callable[..., tuple]) -> list[AffineMap]:
        maps = [affine_map(spec) for spec in specs]
        if self.grouped:
            return maps
        g = AffineDimExpr(0)
        kept = [m.drop_results([result == g for result in m.results]) for m in maps]
        return [m.drop_dims([dim == 0 for dim in range(m.num_dims)]) for m in kept]

    def iterators(self, letters: str) -> str:
        return letters if self.grouped else letters[1:]


class ConvBackwardWeightDirect(RewritePattern):
    """dw[g, f, c, kh, kw] = sum_{n, ho, wo} dy[n, g, f, ho, wo] * xpad[n, g, c, ho*sh + kh*dh, wo*sw + kw*dw]

    One gather-form contraction: (g,) f, c, kh, kw parallel; n, ho, wo reduction. xpad is x
    zero-padded by p (`tensor.pad`); x is split to [N, G, C/G, H, W], dy to
    [N, G, F/G, Ho, Wo], and dw [G, F/G, C/G, KH, KW] is collapsed to [F, C/G, KH, KW].

    The same sum is a forward conv with the roles swapped (batch <-> channels):

        dwT[c, f, kh, kw] = sum_{n, ho, wo} xT[c, n, kh*dh + ho*sh, kw*dw + wo*sw] * dyT[f, n, ho, wo]
                          = conv_2d_nchw_fchw(xT = xpad^T [C, N, Hp, Wp], dyT = dy^T [F, N, Ho, Wo],
                                              strides = (dh, dw), dilations = (sh, sw)),  dw = dwT^T

    That form is not emitted: it needs two full-size transposes of x and dy, and its conv
    (a KH x KW output per channel pair, an Ho x Wo "kernel") tiles badly, while the gather
    form has a dedicated transform schedule (the backend's `optimizing` pipelines; ~0.35x
    PyTorch on the dense benchmark cases, against ~0.01x for the chunked im2col route).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardWeightOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        window, groups = op.window(), _Groups(op.groups())
        (sh, sw), (dh, dw), (ph, pw) = window.stride, window.dilation, window.padding
        f, cg, kh_size, kw_size = shape_of(op.result)

        xpad = groups.split(b, b.pad_spatial(op.input, (ph, pw), 0.0), 1)
        dy = groups.split(b, op.grad_output, 1)
        zeros = b.full(groups.shape([groups.count, f // groups.count, cg, kh_size, kw_size], 0), element_type_of(dy), 0.0)
        dw_ = b.generic(
            ins=[dy, xpad],
            init=zeros,
            maps=groups.maps(
                lambda g, f, c, kh, kw, n, ho, wo: (n, g, f, ho, wo),
                lambda g, f, c, kh, kw, n, ho, wo: (n, g, c, ho * sh + kh * dh, wo * sw + kw * dw),
                lambda g, f, c, kh, kw, n, ho, wo: (g, f, c, kh, kw),
            ),
            iterators=groups.iterators("pppppRRR"),
            body=_multiply_accumulate,
        )
        rewriter.replace(op, [], [groups.merge(b, dw_, 0)])


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
        b = TensorBuilder(rewriter, op)
        window, groups = op.window(), _Groups(op.groups())
        (sh, sw), (dh, dw), (ph, pw) = window.stride, window.dilation, window.padding
        _, _, ho_size, wo_size = shape_of(op.grad_output)
        f, cg, kh_size, kw_size = shape_of(op.result)
        fg, k = f // groups.count, cg * kh_size * kw_size
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
            body=_copy,
        )
        dy_t = b.generic(
            ins=[groups.split(b, op.grad_output, 1)],
            init=b.empty(groups.shape([groups.count, fg, t_size, r_size], 0), element, sizes=t_sizes),
            maps=groups.maps(
                lambda g, f, t, r: (rows.n(t, r), g, f, rows.ho(t, r), rows.wo(t, r)),
                lambda g, f, t, r: (g, f, t, r),
            ),
            iterators=groups.iterators("pppp"),
            body=_copy,
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
            body=_multiply_accumulate,
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
        return [n if factor == 1 else b.emit(arith.MuliOp(n, b.index(factor))).results[0]]

    def _m(self, t, r):
        return r if self.chunks == 1 else t * self.per_chunk + r

    def n(self, t, r):
        return self._m(t, r) // (self.ho_size * self.wo_size)

    def ho(self, t, r):
        return (self._m(t, r) % (self.ho_size * self.wo_size)) // self.wo_size

    def wo(self, t, r):
        return self._m(t, r) % self.wo_size


class ConvBackwardInputDirect(RewritePattern):
    """dx = conv_2d_nchw_fchw(dyp, wflip, stride 1, dilation d), the adjoint convolution:

        wflip[c, f, kh, kw] = w[f, c, KH-1-kh, KW-1-kw]
        dx[n, c, h, w]      = sum_{f, kh, kw} dyp[n, f, h + kh*dh, w + kw*dw] * wflip[c, f, kh, kw]

    (the same sum as `dyp[n, f, h + (KH-1-kh)*dh, ...] * w[f, c, kh, kw]` with kh -> KH-1-kh).
    The kernel flip and channel swap are a small separate generic on the weight (reading w
    with tensor.extract), so the main
    contraction reads dyp with non-negative coefficients and is the upstream named forward
    conv, which schedules tile and vectorize like any forward conv (tiling a map with a
    negative coefficient aborts in MLIR). With groups the weight is split to
    [G, F/G, C/G, KH, KW], flipped to [G, C/G, F/G, KH, KW] and the conv is
    `linalg.conv_2d_ngchw_gfchw` on dyp split to [N, G, F/G, Hp, Wp].

    `dyp` is dy with s - 1 zeros between cells, padded low by `d*(k-1) - p`
    (`Window2d.adjoint_padding`) and high by that plus the solved output_padding
    (`Window2d.solved_output_padding`), cropped where either is negative, so dx has exactly
    the declared H, W, also when the forward conv's last window did not reach the input's
    end.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardInputOp, rewriter: PatternRewriter):
        from rlx_mlir.transforms.conv_transpose import stride_dilate_and_pad

        b = TensorBuilder(rewriter, op)
        window, groups = op.window(), _Groups(op.groups())
        n, c, h, w = shape_of(op.result)
        f, cg, kh_size, kw_size = shape_of(op.weight)
        element = element_type_of(op.weight)
        output_padding = window.solved_output_padding(shape_of(op.grad_output)[2:], (h, w))

        dyp = groups.split(b, stride_dilate_and_pad(b, op.grad_output, window, output_padding), 1)
        w_split = groups.split(b, op.weight, 0)

        def flipped(r: RegionBuilder, _out: SSAValue) -> SSAValue:
            *group, c_, f_, kh, kw = (r.loop_index(d) for d in range(len(groups.iterators("ppppp"))))
            kh_flipped = r.sub(r.index(kh_size - 1), kh)
            kw_flipped = r.sub(r.index(kw_size - 1), kw)
            return r.extract(w_split, [*group, f_, c_, kh_flipped, kw_flipped])

        # The flip is read with tensor.extract (in bounds by construction) rather than through
        # an indexing map `KH-1-kh`: a negative coefficient in a map aborts MLIR's tiling and
        # IREE's compilation, and the weight is too small for the gather to matter.
        wflip = b.generic(
            ins=[],
            init=b.empty(groups.shape([groups.count, cg, f // groups.count, kh_size, kw_size], 0), element),
            maps=groups.maps(lambda g, c, f, kh, kw: (g, c, f, kh, kw)),
            iterators=groups.iterators("ppppp"),
            body=flipped,
        )
        zeros = b.full(groups.shape([n, groups.count, c // groups.count, h, w], 1), element, 0.0, like=op.grad_output)
        conv = b.conv_2d_ngchw_gfchw if groups.grouped else b.conv_2d_nchw_fchw
        dx = conv(dyp, wflip, zeros, strides=(1, 1), dilations=window.dilation)
        rewriter.replace(op, [], [groups.merge(b, dx, 1)])


class ConvBackwardInputTranspose(RewritePattern):
    """dx = conv_transpose2d(dy, w, stride s, padding p, dilation d, output_padding op, groups G)

    RLX's route, with `op` solved per axis by `Window2d.solved_output_padding` so that dx
    has the declared size. w [F, C/G, KH, KW] is already conv_transpose2d's
    [C_in = F, C_out/G = C/G, KH, KW].
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.Conv2dBackwardInputOp, rewriter: PatternRewriter):
        from rlx_mlir.transforms.conv_transpose import conv_transpose2d

        b = TensorBuilder(rewriter, op)
        window = op.window()
        result_type = tensor_type(op.result)
        output_padding = window.solved_output_padding(shape_of(op.grad_output)[2:], tuple(result_type.get_shape()[2:]))
        dx = conv_transpose2d(b, op.grad_output, op.weight, window, output_padding, op.groups(), result_type)
        rewriter.replace(op, [], [dx])


def conv_backward_patterns(
    conv_weight: str = "direct", im2col_max_elements: int = 4_194_304, conv_input: str = "direct"
) -> list[RewritePattern]:
    """The patterns for `rlx.conv2d_backward_{weight,input}` in the chosen formulations."""
    check_choice("decompose-backward", "conv-weight", conv_weight, CONV_WEIGHT)
    check_choice("decompose-backward", "conv-input", conv_input, CONV_INPUT)
    weight = ConvBackwardWeightDirect() if conv_weight == "direct" else ConvBackwardWeightIm2col(im2col_max_elements)
    input_ = ConvBackwardInputDirect() if conv_input == "direct" else ConvBackwardInputTranspose()
    return [weight, input_]
