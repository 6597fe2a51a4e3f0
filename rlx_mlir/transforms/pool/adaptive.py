"""Adaptive average and max pools (`rlx.adaptive_{avg,max}_pool{2,3}d`), PyTorch's windows.

Output cell o along an axis of n input cells and m output cells reads
`[start(o), end(o)) = [floor(o*n/m), ceil((o+1)*n/m))` (`geometry.adaptive_window`).

- When every axis divides (n % m == 0) the windows are `n/m` cells apart and `n/m` long:
  the adaptive pool *is* the pool with kernel = stride = n/m and no padding, so the op is
  rewritten into `rlx.{avg,max}_pool{r}d`, which this pass then lowers with its fast path
  (a named op or the scheduled window sum).
- Otherwise one reduction over a window loop j of extent `adaptive_kernel(n, m)` (the
  longest window) per axis, in gather form over (n, c, *o, *j): cell `start(o) + j` is
  read with `tensor.extract` where `j < end(o) - start(o)` and masked elsewhere (max:
  kept out of the max; avg: not summed, and the sum divided by the window's own
  `prod(end - start)`). start and end are computed in the body with `arith` on
  `linalg.index`: as an indexing map, `o*n floordiv m` would be a semi-affine map, which
  IREE refuses to tile and upstream tiles correctly only when a tile divides the steps
  (the project keeps every map affine; see `conv.backward_weight`). The IR does not grow
  with n or m, and the extract index is clamped to the input, so a masked lane never reads
  out of bounds.

Max uses `arith.maximumf`, which propagates NaN as PyTorch's `val > max || isnan(val)`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.geometry import adaptive_kernel
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, shape_of, tensor_type
from rlx_mlir.transforms.conversion import decline

EVEN_POOL = {
    rlx.AdaptiveAvgPool2dOp: rlx.AvgPool2dOp,
    rlx.AdaptiveAvgPool3dOp: rlx.AvgPool3dOp,
    rlx.AdaptiveMaxPool2dOp: rlx.MaxPool2dOp,
    rlx.AdaptiveMaxPool3dOp: rlx.MaxPool3dOp,
}


def _sizes(op) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(input spatial, output spatial) of an adaptive pool."""
    return tuple(shape_of(op.input)[2:]), tuple(tensor_type(op.result).get_shape()[2:])


class AdaptivePoolEvenSplit(RewritePattern):
    """adaptive_pool(x) = pool(x, kernel = stride = n/m, padding 0) when every m divides n.

    The windows `[o*n/m, (o+1)*n/m)` are then exactly the pool's, and (no padding) the avg
    pool's divisor is the window's size, as the adaptive pool's.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: rlx.AdaptiveAvgPool2dOp | rlx.AdaptiveAvgPool3dOp | rlx.AdaptiveMaxPool2dOp | rlx.AdaptiveMaxPool3dOp,
        rewriter: PatternRewriter,
    ):
        spatial, out = _sizes(op)
        if any(n % m for n, m in zip(spatial, out)):
            return decline(op, f"output {tuple(out)} does not divide input {tuple(spatial)}: the windows differ in size")
        kernel = tuple(n // m for n, m in zip(spatial, out))
        pool = EVEN_POOL[type(op)].build_with(
            [op.input], op.result.type, kernel_size=kernel, stride=kernel, padding=(0,) * len(kernel)
        )
        pool.location = op.location
        rewriter.replace(op, [pool])


class _AxisWindows:
    """The body's view of one axis: start(o), end(o) and the masked cell start(o) + j."""

    def __init__(self, r: RegionBuilder, o: SSAValue, size: int, out: int):
        self.r, self.size, self.out = r, size, out
        self.divides = size % out == 0
        scaled = r.mul(o, r.index(size))  # o*n >= 0, so unsigned division floors
        self.start = r.div(scaled, r.index(out))
        self.end = r.div(r.add(scaled, r.index(size + out - 1)), r.index(out))  # ceil((o+1)*n/m)

    def cell(self, j: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        """(the clamped index to read, whether it lies in the window; None: always)."""
        r = self.r
        cell = r.add(self.start, j)
        if self.divides:  # every window is exactly the loop's extent
            return cell, None
        return r.minui(cell, r.index(self.size - 1)), r.cmpi("ult", cell, self.end)


def _window_reduction(b: TensorBuilder, op, init_value: float, combine) -> SSAValue:
    """acc[n, c, *o] = combine(acc, x[n, c, *(start(o) + j)], inside) over the window loops j."""
    spatial, out = _sizes(op)
    rank = len(spatial)
    result = tensor_type(op.result)
    element = result.element_type
    loops = 2 + 2 * rank
    extents = tuple(adaptive_kernel(n, m) for n, m in zip(spatial, out))

    def body(r: RegionBuilder, _window: SSAValue, acc: SSAValue) -> SSAValue:
        cells, inside = [], None
        for i in range(rank):
            axis = _AxisWindows(r, r.loop_index(2 + i), spatial[i], out[i])
            cell, valid = axis.cell(r.loop_index(2 + rank + i))
            cells.append(cell)
            if valid is not None:
                inside = valid if inside is None else r.and_(inside, valid)
        value = r.extract(op.input, [r.loop_index(0), r.loop_index(1), *cells])
        return combine(r, acc, value, inside)

    return b.generic(
        ins=[b.empty(extents, element)],
        init=b.full(result.get_shape(), element, init_value, like=op.input),
        maps=[dims_map(loops, lambda d: d[2 + rank:]), dims_map(loops, lambda d: d[:2 + rank])],
        iterators="p" * (2 + rank) + "R" * rank,
        body=body,
    )


class AdaptiveMaxPoolToLinalg(RewritePattern):
    """y[n, c, *o] = max_{*j : start(o) + j < end(o)} x[n, c, *(start(o) + j)], from -inf."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AdaptiveMaxPool2dOp | rlx.AdaptiveMaxPool3dOp, rewriter: PatternRewriter):
        def combine(r: RegionBuilder, acc, value, inside):
            larger = r.value(arith.MaximumfOp(acc, value))
            return larger if inside is None else r.select(inside, larger, acc)

        y = _window_reduction(TensorBuilder(rewriter, op), op, float("-inf"), combine)
        rewriter.replace(op, [], [y])


class AdaptiveAvgPoolToLinalg(RewritePattern):
    """y[n, c, *o] = (sum_{*j : start(o) + j < end(o)} x[n, c, *(start(o) + j)]) / prod(end(o) - start(o))

    The sum as in the max; the division, an input-less generic, rewrites it in place with
    each window's own cell count.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.AdaptiveAvgPool2dOp | rlx.AdaptiveAvgPool3dOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        spatial, out = _sizes(op)
        rank = len(spatial)
        element = tensor_type(op.result).element_type

        def combine(r: RegionBuilder, acc, value, inside):
            return r.add(acc, value if inside is None else r.select(inside, value, r.constant(0.0, element)))

        sums = _window_reduction(b, op, 0.0, combine)

        def divide(r: RegionBuilder, total: SSAValue) -> SSAValue:
            count = None
            constant = 1
            for i in range(rank):
                if spatial[i] % out[i] == 0:
                    constant *= spatial[i] // out[i]
                    continue
                axis = _AxisWindows(r, r.loop_index(2 + i), spatial[i], out[i])
                cells = r.sub(axis.end, axis.start)
                count = cells if count is None else r.mul(count, cells)
            if count is None or constant != 1:
                count = r.index(constant) if count is None else r.mul(count, r.index(constant))
            return r.div(total, r.index_to_float(count, element))

        y = b.generic(ins=[], init=sums, maps=[dims_map(2 + rank, lambda d: d)], iterators="p" * (2 + rank), body=divide)
        rewriter.replace(op, [], [y])
