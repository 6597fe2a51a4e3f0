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
- `rlx.fake_quantize_tensor_qparams` [_fake_quantize_per_tensor_affine_cachemask_tensor_qparams]:
  `rlx.fake_quantize` on a grid whose scale (tensor<1xf32>) and zero point (tensor<1xi32>)
  are operands computed in the step (an observer's), not properties: ATen's per-tensor
  kernel, the same arithmetic. `rlx.fake_quantize_tensor_qparams_backward` is its clipped
  STE (dy where quant_min <= q <= quant_max).
- `rlx.moving_average_min_max` [the observer of _fused_moving_avg_obs_fq_helper]: the
  running min and max of x updated by a moving average, in f32 as ATen's loop:

      m' = isinf(m) ? min(x) : m + c * (min(x) - m)     (and alike for the max)

  over all of x (`axis` -1, running values tensor<f32>), or per index of x's `axis` 0
  (tensor<Cxf32>, `fused_moving_avg_obs_fake_quant`'s per-channel case); the first call
  (m = +inf, M = -inf, the observer's initial values) takes the batch's. When the i64
  operand `observer_on` [1] is 0 the running values pass unchanged.
- `rlx.choose_qparams` [fbgemm::ChooseQuantizationParams, which ATen's fused observer
  calls]: (scale, zero_point), tensor<Nxf32> and tensor<Nxi32>, one per running min and
  max (N = 1 for 0-d ones), for the grid [quant_min, quant_max], `symmetric` being ATen's
  preserve_sparsity (per_channel_symmetric weights).
Their scale and zero point are not differentiable (PyTorch's autograd refuses a scale that
requires grad; the learnable variant is another op): autodiff rejects them unless they
are constants, with a located error, rather than give a zero gradient.

The observer's and choose_qparams' results are statistics: autodiff gives them no
cotangent and their operands none. `rlx.fake_quantize_tensor_qparams`, whose grid comes
from them, gives its scale and zero point none either (PyTorch's fused observer is not
differentiable in them).

Every value keeps x's shape and type; only a leading (batch) dim may be dynamic.
"""

from __future__ import annotations

import math
import struct

from xdsl.dialects.builtin import IntegerType, f32
from xdsl.irdl import operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.activation import ElementwiseOp
from rlx_mlir.dialects.base import SIGNATURE, RlxOp, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import (
    ANY_TENSOR,
    FLOAT_TENSOR,
    bool_property,
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


def _expect_grid_operand(op: RlxOp, name: str, channels: int, why: str) -> None:
    """scale must be tensor<channels x f32>, zero_point tensor<channels x i32> (ATen's types)."""
    element, what = {"scale": (f32, "f32"), "zero_point": (IntegerType(32), "i32")}[name]
    value = getattr(op, name)
    if shape_of(value) != (channels,) or value.type.element_type != element:
        raise VerifyException(f"expected the {name} to be tensor<{channels}x{what}> ({why}, ATen's type), got {value.type}")


def _expect_range(low: int, high: int) -> None:
    if not low <= high:
        raise VerifyException(f"expected quant_min <= quant_max, got quant_min {low} and quant_max {high}")


class _GridOperandsOp(RlxOp):
    """x (or dy and x) of one shape, and the grid as operands: scale [C] f32 and
    zero_point [C] i32, C and its meaning given by `grid_size`."""

    quant_min = int_property()
    quant_max = int_property()

    def grid_size(self) -> tuple[int, str]:
        """(C, what one grid covers) for the verifier's message."""
        raise NotImplementedError

    def verify_shapes(self) -> None:
        x = shape_of(self.input)
        for name, value in self.named_values():
            if name not in ("scale", "zero_point") and shape_of(value) != x:
                raise VerifyException(f"expected the {name} to have the input's shape {self.input.type}, got {value.type}")
        channels, covered = self.grid_size()
        for name in ("scale", "zero_point"):
            _expect_grid_operand(self, name, channels, covered)
        _expect_range(self.quant_min, self.quant_max)


class _PerChannelOp(_GridOperandsOp):
    """C = x's `axis` size: one grid per index of that axis."""

    axis = int_property()

    def grid_size(self) -> tuple[int, str]:
        x = shape_of(self.input)
        if not 0 <= self.axis < len(x):
            raise VerifyException(f"expected axis to be a dim of the input {self.input.type}, got {self.axis}")
        return x[self.axis], f"one per index of the input's axis {self.axis}"

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


class _TensorQparamsOp(_GridOperandsOp):
    """C = 1: one grid for the whole tensor."""

    def grid_size(self) -> tuple[int, str]:
        return 1, "one grid for the whole tensor"

    def batched_values(self) -> set[str]:
        return {"input", "grad_output", "result"}


TENSOR_GRID = "`quant_min` $quant_min `quant_max` $quant_max"


@rlx_op_definition
class FakeQuantizeTensorQparamsOp(_TensorQparamsOp):
    """`rlx.fake_quantize` on the grid of the operands scale[0], zero_point[0] (module docstring)."""

    name = "rlx.fake_quantize_tensor_qparams"

    input = operand_def(FLOAT_TENSOR)
    scale = operand_def(ANY_TENSOR)
    zero_point = operand_def(ANY_TENSOR)

    assembly_format = f"$input `,` $scale `,` $zero_point {TENSOR_GRID} {SIGNATURE}"


@rlx_op_definition
class FakeQuantizeTensorQparamsBackwardOp(_TensorQparamsOp):
    """`dx = quant_min <= q <= quant_max ? dy : 0`, q x's level on the operands' grid."""

    name = "rlx.fake_quantize_tensor_qparams_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    scale = operand_def(ANY_TENSOR)
    zero_point = operand_def(ANY_TENSOR)

    assembly_format = f"$grad_output `,` $input `,` $scale `,` $zero_point {TENSOR_GRID} {SIGNATURE}"


def statistics_shape(op: RlxOp) -> tuple[int, ...]:
    """The running values' shape: () over all of x (axis -1), (C,) per index of axis 0."""
    return () if op.axis == -1 else (shape_of(op.input)[0],)


@rlx_op_definition
class MovingAverageMinMaxOp(RlxOpBase):
    """(min', max'): x's running min and max after one moving-average step (module docstring)."""

    name = "rlx.moving_average_min_max"

    input = operand_def(ANY_TENSOR)
    running_min = operand_def(ANY_TENSOR)
    running_max = operand_def(ANY_TENSOR)
    observer_on = operand_def(ANY_TENSOR)
    new_min = result_def(ANY_TENSOR)
    new_max = result_def(ANY_TENSOR)

    averaging_constant = float_property()
    axis = int_property(-1)

    assembly_format = (
        "$input `,` $running_min `,` $running_max `,` $observer_on `averaging_constant` $averaging_constant "
        f"(`axis` $axis^)? {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        if self.axis not in (-1, 0):
            raise VerifyException(f"expected axis -1 (per tensor) or 0 (per channel, as ATen's fused observer), got {self.axis}")
        if self.input.type.element_type != f32:
            raise VerifyException(f"expected an f32 input (ATen's fused observer reads floats), got {self.input.type}")
        expected = statistics_shape(self)
        for name in ("running_min", "running_max", "new_min", "new_max"):
            value = getattr(self, name)
            if shape_of(value) != expected or value.type.element_type != f32:
                raise VerifyException(f"expected the {name} to be {_tensor_text(expected, 'f32')}, got {value.type}")
        if shape_of(self.observer_on) != (1,) or self.observer_on.type.element_type != IntegerType(64):
            raise VerifyException(f"expected the observer_on flag to be tensor<1xi64>, got {self.observer_on.type}")

    def batched_values(self) -> set[str]:
        return {"input"} if self.axis == -1 else set()


@rlx_op_definition
class ChooseQparamsOp(RlxOpBase):
    """(scale, zero_point) of each running (min, max), as fbgemm chooses them (module docstring)."""

    name = "rlx.choose_qparams"

    running_min = operand_def(ANY_TENSOR)
    running_max = operand_def(ANY_TENSOR)
    scale = result_def(ANY_TENSOR)
    zero_point = result_def(ANY_TENSOR)

    quant_min = int_property()
    quant_max = int_property()
    symmetric = bool_property(False)

    assembly_format = f"$running_min `,` $running_max {TENSOR_GRID} (`symmetric` $symmetric^)? {SIGNATURE}"

    def verify_shapes(self) -> None:
        shape = shape_of(self.running_min)
        if len(shape) > 1 or self.running_min.type.element_type != f32 or self.running_max.type != self.running_min.type:
            raise VerifyException(
                f"expected the running min and max to be one tensor<f32> or tensor<Cxf32> type, "
                f"got {self.running_min.type} and {self.running_max.type}"
            )
        channels = shape[0] if shape else 1
        for name in ("scale", "zero_point"):
            _expect_grid_operand(self, name, channels, "one grid per running min and max")
        if not self.quant_min < self.quant_max:
            raise VerifyException(f"expected quant_min < quant_max, got {self.quant_min} and {self.quant_max}")

    def batched_values(self) -> set[str]:
        return set()


def _tensor_text(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


OBSERVER_OPS: tuple = (MovingAverageMinMaxOp, ChooseQparamsOp)
"""The fused observer's statistics: no cotangent flows through them (module docstring)."""

FORWARD_OPS: tuple = (FakeQuantizeOp, FakeQuantizePerChannelOp, FakeQuantizeTensorQparamsOp, *OBSERVER_OPS)
BACKWARD_OPS: tuple = (SteBackwardOp, FakeQuantizePerChannelBackwardOp, FakeQuantizeTensorQparamsBackwardOp)
