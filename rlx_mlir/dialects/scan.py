"""Scans: recurrences along one axis, each step reading the previous step's result.

- `rlx.linear_scan`: the first-order linear recurrence of state-space models,
  `h[t] = a[t] * h[t-1] + x[t]` along `dim`, with `h[-1] = 0`; `reverse` runs it from the
  end, `h[t] = a[t] * h[t+1] + x[t]` with `h[T] = 0`. a, x and h share one shape.
- `rlx.cumsum` [cumsum]: the running sum along `dim`, i.e. the linear scan with a = 1;
  `reverse` sums from the end (the gradient of a cumsum is the reversed cumsum).

    %h = rlx.linear_scan %a, %x dim 1 reverse true
           : (tensor<?x16x8xf32>, tensor<?x16x8xf32>) -> tensor<?x16x8xf32>

Only the leading (batch) dimension may be dynamic, and it is never the scanned one: the
scanned length T is static, so that the gradient (which shifts values by one step along
`dim`) is written in static layout ops. T may be 1; an empty T is refused.
"""

from __future__ import annotations

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR, bool_property, int_property
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of

SCAN_FORMAT = "`dim` $dim (`reverse` $reverse^)?"


class ScanOp(RlxOp):
    """A scan along `dim` (forward, or from the end when `reverse`): every operand and the
    result have one shape, whose scanned size is static and non-zero."""

    dim = int_property()
    reverse = bool_property(default=False)

    def scanned_length(self) -> int:
        """T, the size of the scanned axis (static, at least 1, once verified)."""
        return shape_of(self.result)[self.dim]

    def verify_shapes(self) -> None:
        shape = shape_of(self.result)
        rank, dim = len(shape), self.dim
        if rank == 0:
            raise VerifyException(f"expected the result to have rank at least 1 (a scan needs an axis), got {self.result.type}")
        if not 0 <= dim < rank:
            raise VerifyException(f"expected 'dim' to be in [0, {rank}) for a rank-{rank} result, got {dim}")
        if is_dynamic(shape[dim]):
            raise VerifyException(
                f"expected the scanned dim {dim} to be static (only a batch dim other than the scanned one "
                f"may be dynamic), got {self.result.type}"
            )
        if shape[dim] == 0:
            raise VerifyException(f"expected the scanned dim {dim} to have at least one step, got {self.result.type}")
        for name, value in self.named_values():
            if tuple(shape_of(value)) != tuple(shape):
                raise VerifyException(
                    f"expected the {name} to have the result's shape {format_shape(shape)}, got {value.type}"
                )


@rlx_op_definition
class LinearScanOp(ScanOp):
    """h[t] = a[t] * h[t-1] + x[t] along `dim`, h[-1] = 0 (`reverse`: h[t] = a[t] * h[t+1] + x[t], h[T] = 0)."""

    name = "rlx.linear_scan"

    coefficients = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$coefficients `,` $input {SCAN_FORMAT} {SIGNATURE}"


@rlx_op_definition
class CumsumOp(ScanOp):
    """y[t] = x[0] + ... + x[t] along `dim` [cumsum] (`reverse`: y[t] = x[t] + ... + x[T-1])."""

    name = "rlx.cumsum"

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {SCAN_FORMAT} {SIGNATURE}"


FORWARD_OPS: tuple = (LinearScanOp, CumsumOp)
BACKWARD_OPS: tuple = ()
