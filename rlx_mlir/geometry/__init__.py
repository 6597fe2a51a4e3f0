"""Conv and pool geometry: the one place that answers every shape question.

Verifiers, rewrite patterns, the IRDL generator and the tests all ask this package for
output sizes (floor or ceil mode), per-side paddings, adjoint paddings, solved output
paddings and adaptive windows, so a convention (PyTorch's output size, NC + spatial layout,
padding per side) is stated exactly once. A window has one value per spatial axis: 1-D,
2-D and 3-D ops share every rule.

Everything here is plain integers: no xDSL, no MLIR. A `GeometryError` carries a
sentence that a verifier can put straight into its diagnostic.

- :mod:`.window`: the sliding window and the sizes it gives (forward, transposed, adjoint);
- :mod:`.adaptive`: adaptive pools' windows;
- :mod:`.phases`: stride phases, which taps of which windows reach a cell;
- :mod:`.pool_cells`: pool gradients, which windows reach which cells and where they overhang.
"""

from rlx_mlir.geometry.adaptive import (
    adaptive_kernel,
    adaptive_window,
    adaptive_windows_of_cell,
    adaptive_windows_per_cell,
)
from rlx_mlir.geometry.phases import AxisPhase, StridePhase, phase_taps
from rlx_mlir.geometry.pool_cells import PoolAxis, Rect, frame_strips, peeled_windows, windows_tile_input
from rlx_mlir.geometry.window import (
    AXIS_NAMES,
    GeometryError,
    Pair,
    Sizes,
    Window,
    axis_names,
    conv_output_size,
    conv_transpose_output_size,
    smallest_conv_input,
    split_padding,
)

__all__ = [
    "AXIS_NAMES",
    "AxisPhase",
    "GeometryError",
    "Pair",
    "PoolAxis",
    "Rect",
    "Sizes",
    "StridePhase",
    "Window",
    "adaptive_kernel",
    "adaptive_window",
    "adaptive_windows_of_cell",
    "adaptive_windows_per_cell",
    "axis_names",
    "conv_output_size",
    "conv_transpose_output_size",
    "frame_strips",
    "peeled_windows",
    "phase_taps",
    "smallest_conv_input",
    "split_padding",
    "windows_tile_input",
]
