"""Layer norm and RMS norm over the last k axes, and their gradients (ATen's ops).

mean and rstd have ATen's shape `x.shape[:-k] + [1] * k`. Only the batch (the leading
axis of x, when x has axes outside the normalized ones) may be dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.irdl import operand_def, opt_operand_def, opt_result_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, rlx_op_definition
from rlx_mlir.dialects.norm.shapes import NormOpBase
from rlx_mlir.dialects.properties import FLOAT_TENSOR, float_property, int_property


class LayerNormOpBase(NormOpBase):
    """x [*outer, *normalized]; weight [*normalized]; mean, rstd [*outer, 1, ..., 1]."""

    def check_layer_shapes(self, k: int, statistics: Sequence[str] = ("mean", "rstd")) -> tuple[int, ...]:
        """x has the k normalized axes; the weight (when given) is their shape, and each of
        `statistics` has layer norm's shape [*outer, 1, ..., 1]."""
        x = self.shape_named("input")
        if k < 1:
            raise VerifyException(self.no_normalized_axes(k))
        if len(x) < k:
            raise VerifyException(
                f"expected the input to have rank at least {k} (the normalized rank), got {self.input.type}"
            )
        self.expect_nonempty("input")
        normalized = x[len(x) - k:]
        if self.weight is not None:
            self.expect_shape("weight", normalized, f"the input's {last_dims(k)}")
        for name in statistics:
            self.expect_shape(name, stat_shape(x, k), f"the input's shape with its {last_dims(k)} 1")
        return x

    def batched_values(self) -> set[str]:
        # A dynamic leading dim of x is the batch only where x has axes outside the normalized ones.
        if len(self.shape_named("input")) > self.normalized_axes():
            return {"input", "result", "mean", "rstd", "grad_output", "grad_input"} & {
                name for name, _ in self.named_values()
            }
        return set()

    def normalized_axes(self) -> int:
        raise NotImplementedError

    def no_normalized_axes(self, k: int) -> str:
        return f"expected normalized_rank to be at least 1, got {k}"


def last_dims(k: int) -> str:
    return "last dim" if k == 1 else f"last {k} dims"


def stat_shape(x: Sequence[int], k: int) -> tuple[int, ...]:
    """ATen's shape of layer norm's mean and rstd: x's shape with its last k dims 1."""
    return (*x[: len(x) - k], *(1,) * k)


@rlx_op_definition
class LayerNormOp(LayerNormOpBase):
    """Layer norm [native_layer_norm] over the last k = normalized_rank axes.

    With m = the product of those k sizes, per row (the outer index):
    mean = sum x / m, rstd = 1/sqrt(sum (x - mean)^2 / m + eps),
    y = (x - mean) * rstd * weight + bias.
    """

    name = "rlx.layer_norm"

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    bias = operand_def(FLOAT_TENSOR)

    normalized_rank = int_property(1)
    eps = float_property(1e-5)

    result = result_def(FLOAT_TENSOR)
    mean = result_def(FLOAT_TENSOR)
    rstd = result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$input `,` $weight `,` $bias (`normalized_rank` $normalized_rank^)? (`eps` $eps^)? {SIGNATURE}"
    )

    def normalized_axes(self) -> int:
        return self.normalized_rank

    def verify_shapes(self) -> None:
        k = self.normalized_axes()
        x = self.check_layer_shapes(k)
        self.expect_shape("bias", x[len(x) - k:], f"the input's {last_dims(k)}")
        self.expect_shape("result", x, "the input's shape")


@rlx_op_definition
class LayerNormBackwardOp(LayerNormOpBase):
    """Gradients of layer norm [native_layer_norm_backward]; k is the weight's rank.

    With xhat = (x - mean) * rstd, g = dy * weight and means over the m normalized values
    of each row: grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat));
    grad_weight = sum over rows of dy * xhat, grad_bias = sum over rows of dy.
    """

    name = "rlx.layer_norm_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    mean = operand_def(FLOAT_TENSOR)
    rstd = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)

    grad_input = result_def(FLOAT_TENSOR)
    grad_weight = result_def(FLOAT_TENSOR)
    grad_bias = result_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $input `,` $mean `,` $rstd `,` $weight {SIGNATURE}"

    def normalized_axes(self) -> int:
        return len(self.shape_named("weight"))

    def no_normalized_axes(self, k: int) -> str:
        return f"expected the weight to have rank at least 1 (its rank is the normalized rank), got {self.weight.type}"

    def verify_shapes(self) -> None:
        x = self.check_layer_shapes(self.normalized_axes())
        self.expect_shape("grad_output", x, "the input's shape")
        self.expect_shape("grad_input", x, "the input's shape")
        normalized = self.shape_named("weight")
        self.expect_shape("grad_weight", normalized, "the weight's shape")
        self.expect_shape("grad_bias", normalized, "the weight's shape")


@rlx_op_definition
class RmsNormOp(LayerNormOpBase):
    """RMS norm [_fused_rms_norm, F.rms_norm] over the last k = normalized_rank axes.

    With m = the product of those k sizes, per row: rstd = 1/sqrt(sum x^2 / m + eps),
    y = x * rstd (* weight, when given). `eps` has no default: PyTorch's `eps=None` means
    `torch.finfo(dtype).eps`, which depends on the element type, so the importer states it.
    """

    name = "rlx.rms_norm"

    input = operand_def(FLOAT_TENSOR)
    weight = opt_operand_def(FLOAT_TENSOR)

    normalized_rank = int_property(1)
    eps = float_property()

    result = result_def(FLOAT_TENSOR)
    rstd = result_def(FLOAT_TENSOR)

    assembly_format = f"$input (`weight` $weight^)? (`normalized_rank` $normalized_rank^)? `eps` $eps {SIGNATURE}"

    def normalized_axes(self) -> int:
        return self.normalized_rank

    def verify_shapes(self) -> None:
        x = self.check_layer_shapes(self.normalized_axes(), statistics=("rstd",))
        self.expect_shape("result", x, "the input's shape")


@rlx_op_definition
class RmsNormBackwardOp(LayerNormOpBase):
    """Gradients of RMS norm [_fused_rms_norm_backward] over the last k = normalized_rank axes.

    With xhat = x * rstd, g = dy * weight (dy without one) and the mean over the m
    normalized values of each row: grad_input = rstd * (g - xhat * mean(g * xhat));
    grad_weight = sum over rows of dy * xhat. grad_weight is a result exactly when the
    weight is an operand (ATen's output mask: no weight, no gradient for it). k is a
    property, not the weight's rank, because the weight is optional and rstd's unit axes
    cannot tell k from an x whose own trailing sizes are 1.
    """

    name = "rlx.rms_norm_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    rstd = operand_def(FLOAT_TENSOR)
    weight = opt_operand_def(FLOAT_TENSOR)

    normalized_rank = int_property(1)

    grad_input = result_def(FLOAT_TENSOR)
    grad_weight = opt_result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$grad_output `,` $input `,` $rstd (`weight` $weight^)? (`normalized_rank` $normalized_rank^)? {SIGNATURE}"
    )

    def normalized_axes(self) -> int:
        return self.normalized_rank

    def verify_shapes(self) -> None:
        k = self.normalized_axes()
        x = self.check_layer_shapes(k, statistics=("rstd",))
        self.expect_shape("grad_output", x, "the input's shape")
        self.expect_shape("grad_input", x, "the input's shape")
        if (self.weight is None) != (self.grad_weight is None):
            given = "no weight" if self.weight is None else "a weight"
            raise VerifyException(
                f"expected a grad_weight result exactly when the weight is given (ATen's output mask), "
                f"got {given} and {len(self.results)} results"
            )
        if self.weight is not None:
            self.expect_shape("grad_weight", x[len(x) - k:], "the weight's shape")
