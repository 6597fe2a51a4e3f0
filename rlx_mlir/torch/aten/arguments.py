"""ATen's argument conventions, brought to the one form RLX's properties take.

Negative dims made non-negative, one-value window lists repeated per axis, `None` made its
PyTorch default, missing affine weights made constants.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.torch.emitter import Emitter


def per_axis(values, rank: int) -> list[int]:
    """ATen's window lists may hold one value for every axis."""
    values = [values] if isinstance(values, int) else list(values)
    return values * rank if len(values) == 1 else values


def dim_index(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def dims_of(dims, rank: int) -> list[int]:
    """ATen's reduction dims, sorted, non-negative; None or [] means every dim."""
    if dims is None or (not isinstance(dims, int) and len(dims) == 0):
        return list(range(rank))
    dims = [dims] if isinstance(dims, int) else dims
    return sorted({dim_index(d, rank) for d in dims})


REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
"""ATen's `reduction` integers (at::Reduction)."""


def affine_or(e: Emitter, value, fill: float, like: SSAValue, shape: Sequence[int]):
    """An affine weight or bias, or the constant PyTorch means when there is none."""
    return value if value is not None else e.constant(fill, TensorType(e.element(like), list(shape)))
