"""Activations and their gradients: elementwise, any rank (0-d included), PyTorch's semantics.

Every op maps each element on its own, so the result has the operands' shape and element
type, and the only dimension that may be dynamic is the leading one (the batch), which the
lowering carries with `tensor.dim`. The forward ops take `x`; each backward op takes the
incoming gradient `dy` and the tensor ATen's backward reads (the input `x`, or for
`sigmoid_backward` the output `y`), in ATen's operand order:

    %y  = rlx.hardtanh %x min_val 0.0 max_val 6.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %dx = rlx.threshold_backward %dy, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>

Scalar properties are f64, as ATen's `Scalar`s are; the kernels convert them to the
element type (`Scalar::to<scalar_t>`), and so does the lowering. The boundary and NaN
conventions are those of ATen's CPU kernels (`aten/src/ATen/native/cpu/Activation.cpp`);
each op's docstring states its own.
"""

from __future__ import annotations

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR, expect_choice, float_property, string_property
from rlx_mlir.dialects.tensors import tensor_type

GELU_APPROXIMATIONS = ("none", "tanh")
"""ATen's `approximate` values: the exact erf form, or the tanh approximation."""

HARDTANH_RANGE = "(`min_val` $min_val^)? (`max_val` $max_val^)?"
"""The custom form of hardtanh's clamp range, each bound left out at its default (-1, 1)."""


class ElementwiseOp(RlxOp):
    """An op whose result element i depends on element i of each operand only.

    Operands and result have one shape (a dynamic leading dimension must be dynamic in
    all of them, so that one `tensor.dim` sizes the result).
    """

    def verify_shapes(self) -> None:
        result = tensor_type(self.result).get_shape()
        for name, value in self.named_values()[:-1]:
            if tuple(tensor_type(value).get_shape()) != tuple(result):
                raise VerifyException(
                    f"expected the {name} to have the shape of the result {self.result.type}, got {value.type}"
                )
        self.verify_properties()

    def verify_properties(self) -> None:
        """Check the property values (ops with properties do)."""


class UnaryActivationOp(ElementwiseOp):
    """`y = f(x)`."""

    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input {SIGNATURE}"


class ActivationBackwardOp(ElementwiseOp):
    """`dx = dy * f'(x)`, elementwise; `grad_output` is dy, `input` is ATen's `self` (x)."""

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $input {SIGNATURE}"


class _HardtanhRange:
    """hardtanh's clamp range [min_val, max_val], checked once for the op and its gradient."""

    def verify_properties(self) -> None:
        low, high = self.min_val, self.max_val
        if not low <= high:  # also false when either is NaN
            raise VerifyException(f"expected min_val <= max_val, got min_val {low} and max_val {high}")


class _GeluApproximation:
    def verify_properties(self) -> None:
        expect_choice("approximate", self.approximate, GELU_APPROXIMATIONS)


# -- forward -----------------------------------------------------------------------------


@rlx_op_definition
class ReluOp(UnaryActivationOp):
    """`y = x < 0 ? 0 : x` [relu = clamp_min(x, 0)]: NaN stays NaN, -0.0 stays -0.0."""

    name = "rlx.relu"


@rlx_op_definition
class HardtanhOp(_HardtanhRange, UnaryActivationOp):
    """`y = clamp(x, min_val, max_val)` [hardtanh; relu6 is hardtanh 0..6]: NaN stays NaN."""

    name = "rlx.hardtanh"

    min_val = float_property(-1.0)
    max_val = float_property(1.0)

    assembly_format = f"$input {HARDTANH_RANGE} {SIGNATURE}"


@rlx_op_definition
class HardswishOp(UnaryActivationOp):
    """`y = x * min(max(x + 3, 0), 6) / 6` [hardswish]; hardswish(-inf) = -inf * 0 = NaN, as in ATen."""

    name = "rlx.hardswish"


@rlx_op_definition
class HardsigmoidOp(UnaryActivationOp):
    """`y = min(max(x + 3, 0), 6) / 6` [hardsigmoid]."""

    name = "rlx.hardsigmoid"


@rlx_op_definition
class SigmoidOp(UnaryActivationOp):
    """`y = 1 / (1 + exp(-x))` [sigmoid]."""

    name = "rlx.sigmoid"


@rlx_op_definition
class SiluOp(UnaryActivationOp):
    """`y = x * sigmoid(x)` [silu]; silu(-inf) = NaN, as in ATen (-inf / inf)."""

    name = "rlx.silu"


@rlx_op_definition
class GeluOp(_GeluApproximation, UnaryActivationOp):
    """[gelu] `approximate "none"`: `y = x/2 * (1 + erf(x / sqrt(2)))`;
    `"tanh"`: `y = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`. gelu(-inf) = NaN."""

    name = "rlx.gelu"

    approximate = string_property("none")

    assembly_format = f"$input (`approximate` $approximate^)? {SIGNATURE}"


@rlx_op_definition
class LeakyReluOp(UnaryActivationOp):
    """`y = x > 0 ? x : x * negative_slope` [leaky_relu]."""

    name = "rlx.leaky_relu"

    negative_slope = float_property(0.01)

    assembly_format = f"$input (`negative_slope` $negative_slope^)? {SIGNATURE}"


# -- backward ----------------------------------------------------------------------------


@rlx_op_definition
class ThresholdBackwardOp(ActivationBackwardOp):
    """`dx = x <= threshold ? 0 : dy` [threshold_backward]; for relu, x may be its output.
    A NaN x passes dy."""

    name = "rlx.threshold_backward"

    threshold = float_property(0.0)

    assembly_format = f"$grad_output `,` $input (`threshold` $threshold^)? {SIGNATURE}"


@rlx_op_definition
class HardtanhBackwardOp(_HardtanhRange, ActivationBackwardOp):
    """`dx = min_val < x < max_val ? dy : 0` [hardtanh_backward]: 0 at either bound and at NaN."""

    name = "rlx.hardtanh_backward"

    min_val = float_property(-1.0)
    max_val = float_property(1.0)

    assembly_format = f"$grad_output `,` $input {HARDTANH_RANGE} {SIGNATURE}"


@rlx_op_definition
class HardswishBackwardOp(ActivationBackwardOp):
    """`dx = x <= -3 ? 0 : x >= 3 ? dy : dy * (x / 3 + 0.5)` [hardswish_backward]; NaN for a NaN x."""

    name = "rlx.hardswish_backward"


@rlx_op_definition
class HardsigmoidBackwardOp(ActivationBackwardOp):
    """`dx = -3 < x < 3 ? dy * (1/6 as f32) : 0` [hardsigmoid_backward]; 0 for a NaN x."""

    name = "rlx.hardsigmoid_backward"


@rlx_op_definition
class SigmoidBackwardOp(ElementwiseOp):
    """`dx = dy * (1 - y) * y` [sigmoid_backward], `y` being the sigmoid's OUTPUT."""

    name = "rlx.sigmoid_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    output = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $output {SIGNATURE}"


@rlx_op_definition
class SiluBackwardOp(ActivationBackwardOp):
    """`dx = dy * s * (1 + x * (1 - s))`, `s = sigmoid(x)` [silu_backward]; NaN at x = +-inf, as in ATen."""

    name = "rlx.silu_backward"


@rlx_op_definition
class GeluBackwardOp(_GeluApproximation, ActivationBackwardOp):
    """`dx = dy * gelu'(x)` [gelu_backward] for either `approximate`; NaN at x = +-inf, as in ATen."""

    name = "rlx.gelu_backward"

    approximate = string_property("none")

    assembly_format = f"$grad_output `,` $input (`approximate` $approximate^)? {SIGNATURE}"


@rlx_op_definition
class LeakyReluBackwardOp(ActivationBackwardOp):
    """`dx = x > 0 ? dy : dy * negative_slope` [leaky_relu_backward, self_is_result=false]."""

    name = "rlx.leaky_relu_backward"

    negative_slope = float_property(0.01)

    assembly_format = f"$grad_output `,` $input (`negative_slope` $negative_slope^)? {SIGNATURE}"


FORWARD_OPS = (ReluOp, HardtanhOp, HardswishOp, HardsigmoidOp, SigmoidOp, SiluOp, GeluOp, LeakyReluOp)
BACKWARD_OPS = (
    ThresholdBackwardOp,
    HardtanhBackwardOp,
    HardswishBackwardOp,
    HardsigmoidBackwardOp,
    SigmoidBackwardOp,
    SiluBackwardOp,
    GeluBackwardOp,
    LeakyReluBackwardOp,
)
