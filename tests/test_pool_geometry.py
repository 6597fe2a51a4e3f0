"""The pool-gradient geometry of `rlx_mlir.geometry` against a brute-force enumeration of windows.

The oracle is the definition: window `o` of an axis covers the input cells
`o*S - P .. o*S - P + K - 1`. Each test lists, cell by cell, the windows that contain
it (over a range of `o` wide enough to hold every one) and compares.
"""

from __future__ import annotations

import itertools

import pytest

from rlx_mlir.geometry import (
    PoolAxis,
    Window,
    conv_output_size,
    frame_strips,
    peeled_windows,
    windows_tile_input,
)


def _axes() -> list[PoolAxis]:
    """Every axis with size <= 11, kernel <= 5, stride <= 4, padding <= K/2 and >= 1 window."""
    axes = []
    for size, kernel, stride in itertools.product(range(1, 12), range(1, 6), range(1, 5)):
        for padding in range(kernel // 2 + 1):
            count = conv_output_size(size, kernel, stride, padding, 1)
            if count >= 1:
                axes.append(PoolAxis(size, count, kernel, stride, padding))
    return axes


AXES = _axes()


def _covers(axis: PoolAxis, o: int, cell: int) -> bool:
    return o * axis.stride - axis.padding <= cell <= o * axis.stride - axis.padding + axis.kernel - 1


def _windows_of(axis: PoolAxis, cell: int) -> list[int]:
    """Every window index o, in or out of `[0, count)`, whose span holds `cell`."""
    reach = axis.size + axis.kernel + axis.padding
    return [o for o in range(-reach, reach) if _covers(axis, o, cell)]


def _inside(axis: PoolAxis, o: int) -> bool:
    """Whether window o reads no padding."""
    return all(0 <= o * axis.stride - axis.padding + k < axis.size for k in range(axis.kernel))


def _id(axis: PoolAxis) -> str:
    return f"in{axis.size}-out{axis.count}-k{axis.kernel}-s{axis.stride}-p{axis.padding}"


STRIDES = sorted({axis.stride for axis in AXES})


def _axes_of_stride(stride: int) -> list[PoolAxis]:
    return [axis for axis in AXES if axis.stride == stride]


@pytest.mark.parametrize("stride", STRIDES, ids=lambda s: f"s{s}")
def test_phase_sizes_count_the_cells_of_each_phase(stride):
    for axis in _axes_of_stride(stride):
        want = [sum(1 for h in range(axis.size) if h % axis.stride == phase) for phase in range(axis.stride)]
        assert axis.phase_sizes() == want, _id(axis)


@pytest.mark.parametrize("stride", STRIDES, ids=lambda s: f"s{s}")
def test_phase_offsets_are_the_windows_of_every_cell_of_the_phase(stride):
    for axis in _axes_of_stride(stride):
        for h in range(axis.size):
            i, phase = divmod(h, axis.stride)
            assert [i + d for d in axis.phase_offsets(phase)] == _windows_of(axis, h), f"{_id(axis)} cell {h}"


@pytest.mark.parametrize("stride", STRIDES, ids=lambda s: f"s{s}")
def test_offsets_of_all_phases_are_the_union_over_the_phases(stride):
    for axis in _axes_of_stride(stride):
        want = sorted({o - h // axis.stride for h in range(axis.size) for o in _windows_of(axis, h)})
        # Phases without a cell (size < stride) still have offsets; the union is a superset.
        assert set(want) <= set(axis.offsets_of_all_phases()), _id(axis)
        if axis.size >= axis.stride:
            assert axis.offsets_of_all_phases() == want, _id(axis)


@pytest.mark.parametrize("stride", STRIDES, ids=lambda s: f"s{s}")
def test_halo_is_the_reach_of_the_windows_outside_the_output(stride):
    for axis in _axes_of_stride(stride):
        reached = [o for h in range(axis.size) for o in _windows_of(axis, h)]
        low, high = axis.halo()
        assert low == max(0, -min(reached)), _id(axis)
        assert high == max(0, max(reached) - (axis.count - 1)), _id(axis)


@pytest.mark.parametrize("stride", STRIDES, ids=lambda s: f"s{s}")
def test_interior_is_the_windows_without_padding(stride):
    for axis in _axes_of_stride(stride):
        first, end = axis.interior()
        assert 0 <= first <= end <= axis.count, _id(axis)
        assert list(range(first, end)) == [o for o in range(axis.count) if _inside(axis, o)], _id(axis)


def _cells(rect) -> set[tuple[int, int]]:
    (row, col), (rows, cols) = rect
    return {(row + i, col + j) for i in range(rows) for j in range(cols)}


@pytest.mark.parametrize("stride", STRIDES, ids=lambda s: f"rows-s{s}")
def test_peeled_windows_split_the_output_into_interior_and_overhanging_strips(stride):
    for rows, cols in itertools.product(_axes_of_stride(stride)[::5], AXES[::41]):
        case = f"rows {_id(rows)}, cols {_id(cols)}"
        strips, interior = peeled_windows(rows, cols)
        pieces = [*strips, *([interior] if interior else [])]
        covered = [cell for piece in pieces for cell in _cells(piece)]
        # Disjoint and complete, no empty piece.
        assert sorted(covered) == sorted(itertools.product(range(rows.count), range(cols.count))), case
        assert all(extent[0] > 0 and extent[1] > 0 for _, extent in pieces), case
        want = {(i, j) for i in range(rows.count) for j in range(cols.count) if _inside(rows, i) and _inside(cols, j)}
        assert (_cells(interior) if interior else set()) == want, case


@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (6, 5)], ids=str)
@pytest.mark.parametrize("halo", [((0, 0), (0, 0)), ((1, 0), (0, 2)), ((1, 1), (1, 1)), ((0, 2), (3, 0))], ids=str)
def test_frame_strips_are_the_frame_exactly_once(shape, halo):
    (top, bottom), (left, right) = halo
    h, w = shape[0] + top + bottom, shape[1] + left + right
    strips = frame_strips((h, w), halo)
    covered = [cell for strip in strips for cell in _cells(strip)]
    frame = [
        (i, j) for i in range(h) for j in range(w)
        if not (top <= i < h - bottom and left <= j < w - right)
    ]
    assert sorted(covered) == sorted(frame)
    assert all(extent[0] > 0 and extent[1] > 0 for _, extent in strips)


@pytest.mark.parametrize(
    "window, spatial",
    [
        (Window.of((2, 2), (2, 2), (0, 0)), (8, 9)),
        (Window.of((3, 2), (3, 2), (0, 0)), (7, 7)),
        (Window.of((3, 3), (2, 2), (1, 1)), (9, 9)),
        (Window.of((2, 2), (2, 2), (1, 1)), (4, 4)),
        (Window.of((2, 2), (3, 3), (0, 0)), (8, 8)),
        (Window.of((2, 2), (1, 1), (0, 0)), (4, 4)),
    ],
    ids=str,
)
def test_windows_tile_input_when_each_cell_is_in_the_window_h_div_k(window, spatial):
    """Tiling: cell h < count*K lies in window h // K alone, every later cell in none."""
    axes = PoolAxis.of(window, spatial, window.output_size(spatial))

    def tiles(axis: PoolAxis) -> bool:
        return all(
            [o for o in _windows_of(axis, h) if 0 <= o < axis.count]
            == ([h // axis.kernel] if h < axis.count * axis.kernel else [])
            for h in range(axis.size)
        )

    assert windows_tile_input(window) == all(tiles(axis) for axis in axes)
