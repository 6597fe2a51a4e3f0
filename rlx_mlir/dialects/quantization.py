"""Fake quantization and its straight-through-estimator (STE) gradients.

- `rlx.fake_quantize` [fake_quantize_per_tensor_affine(_cachemask)]: x rounded to the
  integer grid of `scale` and `zero_point`, clamped to [quant_min, quant_max], and mapped
  back. PyTorch 2.13's CPU kernel, exactly (measured bit for bit in f32 and f64):

      s   = float32(scale),  inv = float32(1 / s)              (f32 arithmetic)
      q   = zero_point + nearbyint(x * inv)                      (x's type; ties to even)
      y   = float32(clamp(q, quant_min, quant_max) - zero_point) * s   (f32 arithmetic)

  so the scale is an f32 value whatever x's type, and an f64 x gets an f32-rounded y
  (widened). The clamp is C's fmax/fmin: a NaN x gives quant_min's level, +-inf the
  bound's.
- `rlx.ste_backward` [RLX's SteKind]: dx = dy * g(x), `kind` one of
    `identity`:  g = 1                      (the plain straight-through estimator)
    `clipped`:   g = quant_min <= q <= quant_max ? 1 : 0, q as above (unclamped): PyTorch's
                 fake_quantize backward (`fake_quantize_per_tensor_affine_cachemask_backward`,
                 dy times the cached mask); the quantization properties are read by it only
    `tanh`:      g = 1 - tanh(x)^2
    `hard_tanh`: g = -1 <= x <= 1 ? 1 : 0
  and fake_quantize's VJP is `ste_backward` with kind `clipped`.

Every value keeps x's shape and type; only a leading (batch) dim may be dynamic.
"""

from __future__ import annotations

import math
import struct

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.activation import ElementwiseOp
from rlx_mlir.dialects.base import SIGNATURE, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR, expect_choice, float_property, int_property, string_property

STE_KINDS = ("identity", "clipped", "tanh", "hard_tanh")
"""How an STE gradient passes dy (module docstring)."""

GRID = "`scale` $scale (`zero_point` $zero_point^)? `quant_min` $quant_min `quant_max` $quant_max"
"""The custom form of a per-tensor quantization grid (zero_point 0 left out)."""


def float32(value: float) -> float:
    """`value` as C++'s `float` holds it: ATen passes the scale as a float."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


class _QuantizationGrid:
    """The per-tensor grid's properties, checked as ATen checks them."""

    def verify_properties(self) -> None:
        scale = float32(self.scale)
        if not (math.isfinite(scale) and scale > 0 and math.isfinite(1 / float32(1 / scale))):
            raise VerifyException(f"expected 'scale' to be positive and finite as an f32 value, got {self.scale}")
        low, high, zero = self.quant_min, self.quant_max, self.zero_point
        if not low <= high:
            raise VerifyException(f"expected quant_min <= quant_max, got quant_min {low} and quant_max {high}")
        if not low <= zero <= high:
            raise VerifyException(f"expected zero_point to be between quant_min {low} and quant_max {high}, got {zero}")


@rlx_op_definition
class FakeQuantizeOp(_QuantizationGrid, ElementwiseOp):
    """`y = (clamp(zero_point + nearbyint(x * inv), quant_min, quant_max) - zero_point) * scale`
    in ATen's precisions (module docstring)."""

    name = "rlx.fake_quantize"

    input = operand_def(FLOAT_TENSOR)

    scale = float_property()
    zero_point = int_property(0)
    quant_min = int_property()
    quant_max = int_property()

    assembly_format = f"$input {GRID} {SIGNATURE}"


@rlx_op_definition
class SteBackwardOp(_QuantizationGrid, ElementwiseOp):
    """`dx = dy * g(x)` for the STE `kind` (module docstring); the grid is read by `clipped` only."""

    name = "rlx.ste_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)

    kind = string_property("clipped")
    scale = float_property(1.0)
    zero_point = int_property(0)
    quant_min = int_property(0)
    quant_max = int_property(255)

    assembly_format = (
        "$grad_output `,` $input (`kind` $kind^)? (`scale` $scale^)? (`zero_point` $zero_point^)? "
        f"(`quant_min` $quant_min^)? (`quant_max` $quant_max^)? {SIGNATURE}"
    )

    def verify_properties(self) -> None:
        expect_choice("kind", self.kind, STE_KINDS)
        super().verify_properties()


FORWARD_OPS: tuple = (FakeQuantizeOp,)
BACKWARD_OPS: tuple = (SteBackwardOp,)
