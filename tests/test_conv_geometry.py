"""The stride-phase geometry of a conv's input gradient against a brute-force enumeration of taps.

The oracle is the definition of the forward conv along one axis: output `o` reads input
row `o*s + k*d - p` through tap `k`, so input row `i` receives `dy[o] * w[k]` for every
pair (o, k) with `o*s + k*d - p == i` and `0 <= o < out`. `AxisPhase.split` must give,
row by row, exactly those pairs, as the stride-1 correlation its docstring states.
"""

from __future__ import annotations

import itertools

import pytest

from rlx_mlir.geometry import AxisPhase, conv_output_size, phase_taps, smallest_conv_input


def _axes() -> list[tuple[int, int, int, int, int, int]]:
    """(size, out, kernel, stride, padding, dilation): kernel <= 4, stride <= 4, dilation <= 3,
    padding <= dilated reach + 1, and every input size that gives `out` outputs."""
    axes = []
    for kernel, stride, dilation in itertools.product(range(1, 5), range(1, 5), range(1, 4)):
        for padding in range(dilation * (kernel - 1) + 2):
            for out in range(1, 5):
                smallest = smallest_conv_input(out, kernel, stride, padding, dilation)
                for size in range(max(1, smallest), smallest + stride):
                    if conv_output_size(size, kernel, stride, padding, dilation) == out:
                        axes.append((size, out, kernel, stride, padding, dilation))
    return axes


AXES = _axes()


def _id(axis) -> str:
    return "in{}-out{}-k{}-s{}-p{}-d{}".format(*axis)


def _brute_force(axis) -> dict[int, set[tuple[int, int]]]:
    """Row i -> the (dy row o, tap k) pairs that reach it."""
    size, out, kernel, stride, padding, dilation = axis
    reached: dict[int, set[tuple[int, int]]] = {i: set() for i in range(size)}
    for o, k in itertools.product(range(out), range(kernel)):
        i = o * stride + k * dilation - padding
        if 0 <= i < size:
            reached[i].add((o, k))
    return reached


def _by_phases(axis) -> dict[int, set[tuple[int, int]]]:
    """Row i -> the (dy row, tap) pairs of `dx[s*q + start] = sum_t dyw[q + t*d'] * w[taps[T-1-t]]`,
    dyw being dy shifted by `low` (rows outside dy read zeros)."""
    size, out, kernel, stride, padding, dilation = axis
    reached: dict[int, set[tuple[int, int]]] = {i: set() for i in range(size)}
    for phase in AxisPhase.split(size, kernel, stride, padding, dilation):
        taps = len(phase.taps)
        for q in range(phase.count):
            for t in range(taps):
                window_row = q + t * phase.dilation
                assert 0 <= window_row < phase.window
                o = window_row - phase.low
                if 0 <= o < out:
                    reached[stride * q + phase.start].add((o, phase.taps[taps - 1 - t]))
    return reached


@pytest.mark.parametrize("axis", AXES, ids=_id)
def test_phases_give_every_row_exactly_its_taps(axis):
    assert _by_phases(axis) == _brute_force(axis)


@pytest.mark.parametrize("axis", AXES, ids=_id)
def test_phases_partition_the_rows_they_cover(axis):
    size, out, kernel, stride, padding, dilation = axis
    phases = AxisPhase.split(size, kernel, stride, padding, dilation)
    rows = [stride * q + phase.start for phase in phases for q in range(phase.count)]
    assert len(rows) == len(set(rows)) and all(0 <= row < size for row in rows)
    reached = _brute_force(axis)
    left_out = set(range(size)) - set(rows)
    assert all(not reached[row] for row in left_out), "a row no phase lists must get no gradient"
    for phase in phases:
        assert phase.low + out + phase.high(out) == phase.window


@pytest.mark.parametrize("stride", [1, 2, 3, 4])
@pytest.mark.parametrize("dilation", [1, 2, 3])
def test_phase_taps_are_the_windows_of_each_cell(stride, dilation):
    """Cell i*S + a is tap k of window i + d exactly for the (k, d) of `phase_taps`, for every i."""
    for kernel, padding in itertools.product(range(1, 6), range(0, 6)):
        for phase in range(stride):
            taps = phase_taps(phase, kernel, stride, padding, dilation)
            assert [k for k, _ in taps] == sorted(k for k, _ in taps)
            for i in range(-3, 4):
                cell = i * stride + phase
                want = {(k, o - i) for o in range(-20, 20) for k in range(kernel) if o * stride - padding + k * dilation == cell}
                assert set(taps) == want
