"""Normalization: batch norm (training and eval) and layer norm, with their gradients.

Each op is one ATen op of PyTorch 2.13, with its results in ATen's order:
- `rlx.batch_norm` [_native_batch_norm_legit_functional, training=True]: x [N, C, *spatial]
  (0 to 3 spatial axes) normalized per channel over N and the spatial axes with the
  biased variance; it also returns the saved statistics (mean, 1/sqrt(var + eps)) and the
  updated running statistics, `(1 - momentum) * old + momentum * stat`, the variance
  there unbiased (n/(n-1)).
- `rlx.batch_norm_backward` [native_batch_norm_backward, train=True]: dx, dweight, dbias
  from dy, x, weight and the saved statistics.
- `rlx.batch_norm_inference` [_native_batch_norm_legit_no_training]: eval mode, the
  running statistics in place of the batch's; its one result is y.
- `rlx.layer_norm` [native_layer_norm]: normalized over the last `normalized_rank` axes;
  mean and rstd have ATen's shape `x.shape[:-k] + [1] * k`.
- `rlx.layer_norm_backward` [native_layer_norm_backward]: dx, dweight, dbias; the
  normalized rank is the weight's.
- `rlx.rms_norm` [_fused_rms_norm, F.rms_norm]: y and rstd (layer norm's shape), the
  weight optional; `eps` is required (PyTorch's `eps=None` is `torch.finfo(dtype).eps`,
  which the importer passes).
- `rlx.rms_norm_backward` [_fused_rms_norm_backward]: dx, and dweight exactly when the
  weight is given (ATen's output mask).

Affine-free batch and layer norms (PyTorch's `weight=None`) get ones and zeros from the importer. Only the
batch (the leading axis of x and of what has x's shape) may be dynamic; the channel and
normalized axes are static, and an empty x is rejected, as ATen's batch norm rejects it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.irdl import operand_def, opt_operand_def, opt_result_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR, float_property, int_property
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of

SPATIAL_RANKS = (0, 1, 2, 3)
"""BatchNorm1d on [N, C] (0) and [N, C, L] (1), BatchNorm2d (2), BatchNorm3d (3)."""


class _NormOp(RlxOpBase):
    """Shape checks the norm ops share; every value is named as in the op's definition."""

    def shape_named(self, name: str) -> tuple[int, ...]:
        return shape_of(getattr(self, name))

    def expect_shape(self, name: str, expected: Sequence[int], why: str) -> None:
        value = getattr(self, name)
        got = shape_of(value)
        if tuple(got) != tuple(expected):
            element = value.type.element_type
            raise VerifyException(
                f"expected the {name} to be tensor<{format_shape(expected)}x{element}> ({why}), got {value.type}"
            )

    def expect_nonempty(self, name: str) -> None:
        shape = self.shape_named(name)
        if any(d == 0 for d in shape if not is_dynamic(d)):
            raise VerifyException(
                f"expected the {name} to have at least one element (ATen rejects an empty input), "
                f"got {getattr(self, name).type}"
            )


class _BatchNormOp(_NormOp):
    """x [N, C, *spatial]; per-channel vectors [C]."""

    def input_shape(self, name: str = "input") -> tuple[int, ...]:
        shape = self.shape_named(name)
        if len(shape) - 2 not in SPATIAL_RANKS:
            raise VerifyException(
                f"expected the {name} to have rank 2 to 5 ([N, C, *spatial] with 0 to 3 spatial axes), "
                f"got {getattr(self, name).type}"
            )
        self.expect_nonempty(name)
        return shape

    def expect_channels(self, names: Sequence[str], channels: int) -> None:
        for name in names:
            self.expect_shape(name, (channels,), "one value per channel of the input")


@rlx_op_definition
class BatchNormOp(_BatchNormOp):
    """Training-mode batch norm [_native_batch_norm_legit_functional(training=True)].

    With n = N * prod(spatial) values per channel c:
    mean[c] = sum x / n, var[c] = sum (x - mean)^2 / n (biased), invstd = 1/sqrt(var + eps),
    y = (x - mean) * invstd * weight + bias,
    new_running_mean = (1 - momentum) * running_mean + momentum * mean,
    new_running_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    (n = 1 gives NaN there, as ATen does).
    """

    name = "rlx.batch_norm"

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    bias = operand_def(FLOAT_TENSOR)
    running_mean = operand_def(FLOAT_TENSOR)
    running_var = operand_def(FLOAT_TENSOR)

    momentum = float_property(0.1)
    eps = float_property(1e-5)

    result = result_def(FLOAT_TENSOR)
    save_mean = result_def(FLOAT_TENSOR)
    save_invstd = result_def(FLOAT_TENSOR)
    new_running_mean = result_def(FLOAT_TENSOR)
    new_running_var = result_def(FLOAT_TENSOR)

    assembly_format = (
        "$input `,` $weight `,` $bias `,` $running_mean `,` $running_var "
        f"(`momentum` $momentum^)? (`eps` $eps^)? {SIGNATURE}"
    )

    def batched_values(self) -> set[str]:
        return {"input", "result"}

    def verify_shapes(self) -> None:
        x = self.input_shape()
        self.expect_channels(("weight", "bias", "running_mean", "running_var"), x[1])
        self.expect_shape("result", x, "the input's shape")
        self.expect_channels(("save_mean", "save_invstd", "new_running_mean", "new_running_var"), x[1])


@rlx_op_definition
class BatchNormInferenceOp(_BatchNormOp):
    """Eval-mode batch norm [_native_batch_norm_legit_no_training]: its output only.

    y = (x - running_mean) / sqrt(running_var + eps) * weight + bias, per channel.
    """

    name = "rlx.batch_norm_inference"

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    bias = operand_def(FLOAT_TENSOR)
    running_mean = operand_def(FLOAT_TENSOR)
    running_var = operand_def(FLOAT_TENSOR)

    eps = float_property(1e-5)

    result = result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$input `,` $weight `,` $bias `,` $running_mean `,` $running_var (`eps` $eps^)? {SIGNATURE}"
    )

    def batched_values(self) -> set[str]:
        return {"input", "result"}

    def verify_shapes(self) -> None:
        x = self.input_shape()
        self.expect_channels(("weight", "bias", "running_mean", "running_var"), x[1])
        self.expect_shape("result", x, "the input's shape")


@rlx_op_definition
class BatchNormBackwardOp(_BatchNormOp):
    """Gradients of training-mode batch norm [native_batch_norm_backward(train=True)].

    With xhat = (x - save_mean) * save_invstd and sums over the n values of each channel:
    grad_input = save_invstd * weight / n * (n * dy - sum dy - xhat * sum(dy * xhat)),
    grad_weight = sum(dy * xhat), grad_bias = sum dy. `eps` is ATen's argument; training
    mode does not read it (the saved invstd already holds it).
    """

    name = "rlx.batch_norm_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    save_mean = operand_def(FLOAT_TENSOR)
    save_invstd = operand_def(FLOAT_TENSOR)

    eps = float_property(1e-5)

    grad_input = result_def(FLOAT_TENSOR)
    grad_weight = result_def(FLOAT_TENSOR)
    grad_bias = result_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $input `,` $weight `,` $save_mean `,` $save_invstd (`eps` $eps^)? {SIGNATURE}"

    def batched_values(self) -> set[str]:
        return {"grad_output", "input", "grad_input"}

    def verify_shapes(self) -> None:
        x = self.input_shape()
        self.expect_shape("grad_output", x, "the input's shape")
        self.expect_channels(("weight", "save_mean", "save_invstd"), x[1])
        self.expect_shape("grad_input", x, "the input's shape")
        self.expect_channels(("grad_weight", "grad_bias"), x[1])


class _LayerNormOp(_NormOp):
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
class LayerNormOp(_LayerNormOp):
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
class LayerNormBackwardOp(_LayerNormOp):
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
class RmsNormOp(_LayerNormOp):
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
class RmsNormBackwardOp(_LayerNormOp):
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


FORWARD_OPS: tuple = (BatchNormOp, BatchNormInferenceOp, LayerNormOp, RmsNormOp)
BACKWARD_OPS: tuple = (BatchNormBackwardOp, LayerNormBackwardOp, RmsNormBackwardOp)
