"""The adaptive-pool gradients, 2-D and 3-D: windows chosen by the input and output sizes.

Output cell o along an axis of `size` inputs and `out` outputs reads the cells
`[floor(o*size/out), ceil((o+1)*size/out))` (`geometry.adaptive_window`); the windows that
contain input cell i are the contiguous range `[floor(i*out/size), ceil((i+1)*out/size))`
(`geometry.adaptive_windows_of_cell`), at most `adaptive_windows_per_cell` of them. Both
bounds are computed from the loop index in the body, so the IR has one size for any
tensor size:

    adaptive avg:  dx[n, c, *i] = sum_{o containing i} dy[n, c, *o] / |window(o)|
    adaptive max:  dx[n, c, *i] = sum_{o containing i} (argmax(o) == i) * dy[n, c, *o]

When the sizes divide (`size % out == 0`) on every axis, the windows are a pool's with
kernel = stride = size / out: the pattern emits that pool's backward op, which its own
pattern rewrites (the full conversion's walker re-applies the patterns to the ops a pattern
creates, `PatternRewriteWalker(apply_recursively=True)`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import adaptive_kernel, adaptive_windows_per_cell
from rlx_mlir.transforms.pool.avg_backward import AVG_POOL_BACKWARD_OPS, gather_windows, scaled_by_window
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.conversion import decline
from rlx_mlir.transforms.options import PoolTies

ADAPTIVE_AVG_OPS = (rlx.AdaptiveAvgPool2dBackwardOp, rlx.AdaptiveAvgPool3dBackwardOp)
ADAPTIVE_MAX_OPS = (rlx.AdaptiveMaxPool2dBackwardOp, rlx.AdaptiveMaxPool3dBackwardOp)
MAX_POOL_BACKWARD_OPS = {2: rlx.MaxPool2dBackwardOp, 3: rlx.MaxPool3dBackwardOp}
DELEGATED_MAX_RANKS = (2, 3)
"""The ranks whose dividing adaptive max pools become `rlx.max_pool{r}d_backward`."""


ARGMAX_TYPE = IntegerType(32)
"""The flat spatial index of a window's winner (PyTorch's saved index, `i_0*H*W + i_1*W + i_2`)."""


def _window_start_end(r: RegionBuilder, o: SSAValue, size: int, out: int) -> tuple[SSAValue, SSAValue]:
    """`floor(o*size/out)`, `ceil((o+1)*size/out)`: adaptive window o's cells along an axis."""
    start = r.div(r.mul(o, r.index(size)), r.index(out))
    end = r.div(r.add(r.mul(o, r.index(size)), r.index(size + out - 1)), r.index(out))
    return start, end


def _windows_of_cell(r: RegionBuilder, i: SSAValue, size: int, out: int) -> tuple[SSAValue, SSAValue]:
    """`floor(i*out/size)`, `ceil((i+1)*out/size)`: the adaptive windows containing cell i."""
    first = r.div(r.mul(i, r.index(out)), r.index(size))
    end = r.div(r.add(r.mul(i, r.index(out)), r.index(out + size - 1)), r.index(size))
    return first, end


def _adaptive_candidate(spatial: tuple[int, ...], out: tuple[int, ...]):
    """The `gather_windows` candidates of an adaptive pool: window `first(i) + j`, valid below `end(i)`."""

    def candidate(r: RegionBuilder, axis: int, cell: SSAValue, j: SSAValue) -> tuple[SSAValue, SSAValue]:
        first, end = _windows_of_cell(r, cell, spatial[axis], out[axis])
        o = r.add(first, j)
        return o, r.cmpi("ult", o, end)

    return candidate


def _divides(spatial: tuple[int, ...], out: tuple[int, ...]) -> bool:
    return all(n % m == 0 for n, m in zip(spatial, out))


def _pool_properties(spatial: tuple[int, ...], out: tuple[int, ...]) -> dict:
    kernel = tuple(n // m for n, m in zip(spatial, out))
    return dict(kernel_size=kernel, stride=kernel, padding=(0,) * len(kernel))


class AdaptiveAvgPoolBackwardAsPool(RewritePattern):
    """Sizes that divide: `rlx.avg_pool{r}d_backward` with kernel = stride = size / out
    (every window then has exactly K cells, the adaptive divisor)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, ADAPTIVE_AVG_OPS):
            return
        spatial, out = shape_of(op.result)[2:], shape_of(op.grad_output)[2:]
        if not _divides(spatial, out):
            return decline(op, f"output {tuple(out)} does not divide input {tuple(spatial)}: not a pool")
        pool = AVG_POOL_BACKWARD_OPS[len(spatial)].build_with(
            [op.grad_output], op.result.type, **_pool_properties(spatial, out)
        )
        pool.location = op.location
        rewriter.replace(op, [pool])


class AdaptiveAvgPoolBackwardGather(RewritePattern):
    """dx[n, c, *i] = sum_{o in [floor(i*m/n), ceil((i+1)*m/n)) per axis} dy[n, c, *o] / |window(o)|

    `scaled = dy / prod_a (end_a(o) - start_a(o))` (one generic over dy), then
    `gather_windows` over a fixed `adaptive_windows_per_cell` candidates per axis, masked
    past the cell's last window.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, ADAPTIVE_AVG_OPS):
            return
        b = TensorBuilder(rewriter, op)
        dy, dx_shape = op.grad_output, shape_of(op.result)
        spatial, out = dx_shape[2:], shape_of(dy)[2:]
        element = element_type_of(dy)

        def area(r: RegionBuilder, windows: list[SSAValue]) -> SSAValue:
            count = None
            for axis, o in enumerate(windows):
                start, end = _window_start_end(r, o, spatial[axis], out[axis])
                cells = r.sub(end, start)
                count = cells if count is None else r.mul(count, cells)
            return r.index_to_float(count, element)

        scaled = scaled_by_window(b, dy, area)
        extents = [adaptive_windows_per_cell(n, m) for n, m in zip(spatial, out)]

        def value(r: RegionBuilder, n, c, windows, _cells):
            return None, r.extract(scaled, [n, c, *windows])

        dx = gather_windows(b, dx_shape, dy, extents, _adaptive_candidate(spatial, out), value)
        rewriter.replace(op, [], [dx])


class AdaptiveMaxPoolBackwardAsPool(RewritePattern):
    """Sizes that divide (ranks `DELEGATED_MAX_RANKS`): `rlx.max_pool{r}d_backward` with
    kernel = stride = size / out, whose own patterns have the fast tiled argmax. Only under
    PyTorch's tie rule: `pool-ties=all` applies to max pools, never to adaptive ones."""

    def __init__(self, pool_ties: PoolTies):
        self.pool_ties = pool_ties

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, ADAPTIVE_MAX_OPS):
            return
        if self.pool_ties != "first":
            return decline(op, f"pool-ties={self.pool_ties} applies to max pools, not to adaptive ones")
        spatial, out = shape_of(op.input)[2:], shape_of(op.grad_output)[2:]
        if len(spatial) not in DELEGATED_MAX_RANKS:
            return decline(op, f"{len(spatial)}-D: no max pool gradient of that rank to delegate to")
        if not _divides(spatial, out):
            return decline(op, f"output {tuple(out)} does not divide input {tuple(spatial)}: not a pool")
        pool = MAX_POOL_BACKWARD_OPS[len(spatial)].build_with(
            [op.input, op.grad_output], op.result.type, **_pool_properties(spatial, out)
        )
        pool.location = op.location
        rewriter.replace(op, [pool])


def _replaces_max(r: RegionBuilder, v: SSAValue, best: SSAValue) -> SSAValue:
    """PyTorch's scan rule (`argmax.replaces_first_max`): `v > best || isnan(v)`,
    so the first maximum and the last NaN win."""
    return r.or_(r.cmpf("ogt", v, best), r.cmpf("uno", v, v))


def _flat(r: RegionBuilder, cells: list[SSAValue], spatial: tuple[int, ...]) -> SSAValue:
    """The row-major flat index of `cells` in a `spatial` grid."""
    flat = cells[0]
    for cell, size in zip(cells[1:], spatial[1:]):
        flat = r.add(r.mul(flat, r.index(size)), cell)
    return flat


def adaptive_first_argmax(b: TensorBuilder, x: SSAValue, out: tuple[int, ...]) -> SSAValue:
    """a[n, c, *o] = flat index of the first maximum of adaptive window o (PyTorch's rule).

    A scan over a fixed `adaptive_kernel` cells per axis, in row-major window order; cells
    past the window's end (`start + k >= end`) are skipped. The window's first cell starts
    the scan (PyTorch starts from it with -inf, so an all -inf window goes to it), and x is
    read, viewed as [N, C, prod(spatial)], at clamped indices; the running maximum is
    re-read from x at the winner (one result: a two-result generic prints in a form
    upstream MLIR rejects).
    """
    shape = shape_of(x)
    spatial = shape[2:]
    rank = len(spatial)
    loops = 2 + 2 * rank
    flat_x = b.collapse_shape(x, [[0], [1], list(range(2, 2 + rank))])
    cells = b.empty(tuple(adaptive_kernel(n, m) for n, m in zip(spatial, out)), element_type_of(x))  # shape only

    def body(r: RegionBuilder, _shape_only: SSAValue, acc: SSAValue) -> SSAValue:
        index = [r.loop_index(d) for d in range(loops)]
        n, c, windows, ks = index[0], index[1], index[2 : 2 + rank], index[2 + rank :]
        zero = r.index(0)
        at, valid, first = [], None, None
        for axis in range(rank):
            start, end = _window_start_end(r, windows[axis], spatial[axis], out[axis])
            i = r.add(start, ks[axis])
            ok = r.cmpi("ult", i, end)
            at_start = r.cmpi("eq", ks[axis], zero)
            at.append(i)
            valid = ok if valid is None else r.and_(valid, ok)
            first = at_start if first is None else r.and_(first, at_start)
        here = r.select(valid, _flat(r, at, spatial), zero)
        best = r.select(first, here, r.index_cast(acc, IndexType()))
        beats = _replaces_max(r, r.extract(flat_x, [n, c, here]), r.extract(flat_x, [n, c, best]))
        wins = r.or_(first, r.and_(valid, beats))
        return r.select(wins, r.index_cast(here, ARGMAX_TYPE), acc)

    # for n, c, *o, *k < adaptive_kernel:
    #   i = start(o) + k per axis (skipped where i >= end(o))
    #   a = flat(i) if k == 0 else (flat(i) if replaces_max(x[i], x[a]) else a)
    return b.generic(
        ins=[cells],
        init=b.empty((shape[0], shape[1], *out), ARGMAX_TYPE, like=x),
        maps=[dims_map(loops, lambda d: d[2 + rank :]), dims_map(loops, lambda d: d[: 2 + rank])],
        iterators="p" * (2 + rank) + "R" * rank,
        body=body,
    )


class AdaptiveMaxPoolBackwardGather(RewritePattern):
    """dx[n, c, *i] = sum_{o containing i} (argmax(o) == flat(i)) * dy[n, c, *o]

    `adaptive_first_argmax`, then `gather_windows` over the cell's windows (a fixed
    `adaptive_windows_per_cell` per axis, masked), summed in increasing window order as
    PyTorch accumulates: the result is PyTorch's bit for bit.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, ADAPTIVE_MAX_OPS):
            return
        b = TensorBuilder(rewriter, op)
        x, dy = op.input, op.grad_output
        spatial, out = shape_of(x)[2:], shape_of(dy)[2:]
        argmax = adaptive_first_argmax(b, x, out)
        extents = [adaptive_windows_per_cell(n, m) for n, m in zip(spatial, out)]

        def value(r: RegionBuilder, n, c, windows, cells):
            winner = r.extract(argmax, [n, c, *windows])
            hit = r.cmpi("eq", winner, r.index_cast(_flat(r, cells, spatial), ARGMAX_TYPE))
            return hit, r.extract(dy, [n, c, *windows])

        dx = gather_windows(b, shape_of(op.result), x, extents, _adaptive_candidate(spatial, out), value)
        rewriter.replace(op, [], [dx])
