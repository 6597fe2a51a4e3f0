"""The max-pool gradient under PyTorch's ties, gathered by stride phase.

    dx[n, c, i*S_H + a, j*S_W + b] = sum_{d, e} dy[n, c, i + d, j + e] * (argmax[n, c, i + d, j + e] == h*W + w)

In stride phase (a, b), the windows that can contain cell (i*S_H + a, j*S_W + b) are
`(i + d, j + e)` for a few constant offsets (`PoolAxis.phase_offsets`), so dy and the
argmax are plain operands: slices of copies framed by the reach of those offsets
(`PoolAxis.halo`; argmax -1 in the frame, no cell's index). Each candidate is a compare
and a select, no tensor.extract and no branch, taken in increasing (oh, ow) order as
PyTorch sums. A window that does not contain the cell cannot have it as its argmax, so a
candidate that is not a real window of the cell adds an exact zero.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, SSAValue

from rlx_mlir.geometry import PoolAxis
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.pool.argmax import ARGMAX_TYPE
from rlx_mlir.transforms.pool.frame import Halo


def _candidate_operands(
    b: TensorBuilder, dy: SSAValue, argmax: SSAValue, halo: Halo, rows: Sequence[int], cols: Sequence[int], size
) -> list[SSAValue]:
    """[dy_de, argmax_de, ...]: the framed dy and argmax at (i + d, j + e), for d in rows, e in cols."""
    (top, _), (left, _) = halo
    ins = []
    for d in rows:
        for e in cols:
            at = (0, 0, top + d, left + e)
            ins += [b.extract_slice(dy, at, size), b.extract_slice(argmax, at, size)]
    return ins


def _routed_sum(r: RegionBuilder, candidates: Sequence[SSAValue], h: SSAValue, w: SSAValue, w_in: int, element: Attribute) -> SSAValue:
    """sum of the candidates' dy where their argmax is the cell's index h*W + w.

    `candidates` alternate dy and argmax values, in increasing window order.
    """
    here = r.index_cast(r.add(r.mul(h, r.index(w_in)), w), ARGMAX_TYPE)
    zero = r.constant(0.0, element)
    acc = zero
    for value, winner in zip(candidates[0::2], candidates[1::2]):
        acc = r.add(acc, r.select(r.cmpi("eq", winner, here), value, zero))
    return acc


def phase_gather_first_max(
    b: TensorBuilder, axes: tuple[PoolAxis, PoolAxis], dy: SSAValue, argmax: SSAValue, halo: Halo, x: SSAValue
) -> SSAValue:
    """dx as S_H*S_W stride phases, each one all-parallel generic writing a strided slice of dx.

    dy and argmax are framed by `halo`. Each phase writes its strided slice of one dx
    tensor (destination-passing: one buffer); its reads are unit stride along j, so the
    backend vectorizes phases along j.
    """
    row_axis, col_axis = axes
    sh, sw = row_axis.stride, col_axis.stride
    n_, c_, h_in, w_in = shape_of(x)
    element = element_type_of(dy)
    rows, cols = row_axis.phase_sizes(), col_axis.phase_sizes()

    dx = b.empty(shape_of(x), element, like=x)
    for a in range(sh):
        for bb in range(sw):
            if rows[a] <= 0 or cols[bb] <= 0:
                continue
            size = (n_, c_, rows[a], cols[bb])
            ins = _candidate_operands(b, dy, argmax, halo, row_axis.phase_offsets(a), col_axis.phase_offsets(bb), size)

            def body(r: RegionBuilder, *args: SSAValue, a=a, bb=bb) -> SSAValue:
                h = r.add(r.mul(r.loop_index(2), r.index(sh)), r.index(a))
                w = r.add(r.mul(r.loop_index(3), r.index(sw)), r.index(bb))
                return _routed_sum(r, args[:-1], h, w, w_in, element)

            slot = b.extract_slice(dx, (0, 0, a, bb), size, (1, 1, sh, sw))
            # for n, c, i, j:
            #   h, w = i*S_H + a, j*S_W + b
            #   dx[n, c, h, w] = sum_{d, e} (dy_de if argmax_de == h*W + w else 0)
            phase = b.generic(
                ins=ins,
                init=slot,
                maps=[lambda n, c, i, j: (n, c, i, j)] * (len(ins) + 1),
                iterators="pppp",
                body=body,
            )
            dx = b.insert_slice(phase, dx, (0, 0, a, bb), (1, 1, sh, sw))
    return dx


def interleaved_gather_first_max(
    b: TensorBuilder, axes: tuple[PoolAxis, PoolAxis], dy: SSAValue, argmax: SSAValue, halo: Halo, x: SSAValue
) -> SSAValue:
    """dx viewed as [N, C, H/S_H, S_H, W/S_W, S_W]: every stride phase in one all-parallel generic.

    For input sizes that the stride divides. The candidates of every phase are the union
    over phases of the offsets (`PoolAxis.offsets_of_all_phases`), read at (i + d, j + e)
    from the `halo`-framed dy and argmax and broadcast along a, b. The loops are
    (n, c, i, a, b, j): the backend vectorizes along j, where every read is unit stride,
    and writes each (b, j) vector pair interleaved into the contiguous dx row.
    """
    row_axis, col_axis = axes
    sh, sw = row_axis.stride, col_axis.stride
    n_, c_, h_in, w_in = shape_of(x)
    element = element_type_of(dy)
    size = (n_, c_, h_in // sh, w_in // sw)
    ins = _candidate_operands(
        b, dy, argmax, halo, row_axis.offsets_of_all_phases(), col_axis.offsets_of_all_phases(), size
    )

    def body(r: RegionBuilder, *args: SSAValue) -> SSAValue:
        i, a, bb, j = (r.loop_index(dim) for dim in (2, 3, 4, 5))
        h = r.add(r.mul(i, r.index(sh)), a)
        w = r.add(r.mul(j, r.index(sw)), bb)
        return _routed_sum(r, args[:-1], h, w, w_in, element)

    tiles = (n_, c_, h_in // sh, sh, w_in // sw, sw)
    # for n, c, i, a, b, j:
    #   h, w = i*S_H + a, j*S_W + b
    #   dx[n, c, i, a, j, b] = sum_{d, e} (dy_de[n, c, i, j] if argmax_de[n, c, i, j] == h*W + w else 0)
    dx = b.generic(
        ins=ins,
        init=b.empty(tiles, element, like=x),
        maps=[lambda n, c, i, a, bb, j: (n, c, i, j)] * len(ins) + [lambda n, c, i, a, bb, j: (n, c, i, a, j, bb)],
        iterators="pppppp",
        body=body,
    )
    return b.collapse_shape(dx, [[0], [1], [2, 3], [4, 5]])
