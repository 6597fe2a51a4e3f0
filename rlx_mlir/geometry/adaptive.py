"""Adaptive pools' windows: which input cells an output cell reads, and the reverse.

PyTorch's adaptive pool from `size` cells to `out` has window `o` over
`[floor(o*size/out), ceil((o+1)*size/out))`; its windows vary in size and may overlap.
"""

from __future__ import annotations



def adaptive_window(index: int, size: int, out: int) -> tuple[int, int]:
    """[start, end) of output cell `index` of an adaptive pool from `size` cells to `out`:
    PyTorch's `[floor(index * size / out), ceil((index + 1) * size / out))`."""
    return (index * size) // out, -(-((index + 1) * size) // out)


def adaptive_kernel(size: int, out: int) -> int:
    """The largest adaptive window from `size` cells to `out` (the extent of a loop over
    any window's cells): `ceil(size / out)`, plus one where the windows do not divide evenly."""
    return max(end - start for start, end in (adaptive_window(i, size, out) for i in range(out)))


def adaptive_windows_of_cell(cell: int, size: int, out: int) -> tuple[int, int]:
    """[first, end) of the adaptive windows that contain input cell `cell`: a contiguous range.

    Window o contains the cell when `floor(o*size/out) <= cell < ceil((o+1)*size/out)`,
    that is `o >= floor(cell*out/size)` and `o < ceil((cell+1)*out/size)`.
    """
    return (cell * out) // size, -(-((cell + 1) * out) // size)


def adaptive_windows_per_cell(size: int, out: int) -> int:
    """The most adaptive windows (from `size` cells to `out`) that one input cell lies in:
    the extent of a loop over a cell's windows (more than one where they overlap, or out > size)."""
    return max(end - first for first, end in (adaptive_windows_of_cell(i, size, out) for i in range(size)))
