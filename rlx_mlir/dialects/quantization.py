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
- `rlx.fake_quantize_per_channel` [fake_quantize_per_channel_affine(_cachemask)]: one grid
  per index c of x's `axis`, from the operands scale [C] (f32, as ATen requires) and
  zero_point [C] (i32, ATen's Int32). ATen's per-channel CPU kernel differs from the
  per-tensor one, and the op follows it: the level is cast to int64 before the clamp
  (q is a float; a NaN, +-inf or |q| >= 2^63 becomes INT64_MIN on x86, so quant_min's
  level: +inf gives quant_min here, quant_max per tensor), and the product
  `(level - zero_point) * scale` is formed in double, then rounded to x's type (an f64
  x gets the exact product, not an f32-rounded one).
- `rlx.fake_quantize_per_channel_backward` [fake_quantize_per_channel_affine_cachemask_backward]:
  dx = dy where quant_min <= q <= quant_max for x's channel's grid, else 0 (the clipped STE).
Their scale and zero point are not differentiable (PyTorch's autograd refuses a scale that
requires grad; the learnable variant is another op): autodiff rejects them unless they
are constants, with a located error, rather than give a zero gradient.

Every value keeps x's shape and type; only a leading (batch) dim may be dynamic.
"""

from __future__ import annotations

import math
import struct

from xdsl.dialects.builtin import IntegerType, f32
from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.activation import ElementwiseOp
from rlx_mlir.dialects.base import SIGNATURE, RlxOp, rlx_op_definition
from rlx_mlir.dialects.properties import (
    ANY_TENSOR,
    FLOAT_TENSOR,
    expect_choice,
    float_property,
    int_property,
    string_property,
)
from rlx_mlir.dialects.tensors import shape_of

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


class _PerChannelOp(RlxOp):
    """x (or dy and x) of one shape; scale [C] f32 and zero_point [C] i32, C = x's `axis` size."""

    axis = int_property()
    quant_min = int_property()
    quant_max = int_property()

    def verify_shapes(self) -> None:
        x = shape_of(self.input)
        for name, value in self.named_values():
            if name not in ("scale", "zero_point") and shape_of(value) != x:
                raise VerifyException(f"expected the {name} to have the input's shape {self.input.type}, got {value.type}")
        if not 0 <= self.axis < len(x):
            raise VerifyException(f"expected axis to be a dim of the input {self.input.type}, got {self.axis}")
        channels = x[self.axis]
        for name, element, what in (("scale", f32, "f32"), ("zero_point", IntegerType(32), "i32")):
            value = getattr(self, name)
            if shape_of(value) != (channels,) or value.type.element_type != element:
                raise VerifyException(
                    f"expected the {name} to be tensor<{channels}x{what}> (one per index of the input's axis "
                    f"{self.axis}, ATen's type), got {value.type}"
                )
        low, high = self.quant_min, self.quant_max
        if not low <= high:
            raise VerifyException(f"expected quant_min <= quant_max, got quant_min {low} and quant_max {high}")

    def batched_values(self) -> set[str]:
        return {"input", "grad_output", "result"} if self.axis != 0 else set()


CHANNEL_GRID = "`axis` $axis `quant_min` $quant_min `quant_max` $quant_max"


@rlx_op_definition
class FakeQuantizePerChannelOp(_PerChannelOp):
    """Per-channel fake quantization, ATen's per-channel kernel (module docstring)."""

    name = "rlx.fake_quantize_per_channel"

    input = operand_def(FLOAT_TENSOR)
    scale = operand_def(ANY_TENSOR)
    zero_point = operand_def(ANY_TENSOR)

    assembly_format = f"$input `,` $scale `,` $zero_point {CHANNEL_GRID} {SIGNATURE}"


@rlx_op_definition
class FakeQuantizePerChannelBackwardOp(_PerChannelOp):
    """`dx = quant_min <= q <= quant_max ? dy : 0`, q x's level on its channel's grid."""

    name = "rlx.fake_quantize_per_channel_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    scale = operand_def(ANY_TENSOR)
    zero_point = operand_def(ANY_TENSOR)

    assembly_format = f"$grad_output `,` $input `,` $scale `,` $zero_point {CHANNEL_GRID} {SIGNATURE}"


FORWARD_OPS: tuple = (FakeQuantizeOp, FakeQuantizePerChannelOp)
BACKWARD_OPS: tuple = (SteBackwardOp, FakeQuantizePerChannelBackwardOp)
