"""Batch norm: training mode, eval mode, and their gradients (ATen's ops, results in ATen's order).

x is [N, C, *spatial] with 0 to 3 spatial axes; every per-channel value is [C]. Only the
batch (the leading axis of x and of what has x's shape) may be dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.irdl import operand_def, opt_operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, rlx_op_definition
from rlx_mlir.dialects.norm.shapes import NormOpBase
from rlx_mlir.dialects.properties import FLOAT_TENSOR, float_property

SPATIAL_RANKS = (0, 1, 2, 3)
"""BatchNorm1d on [N, C] (0) and [N, C, L] (1), BatchNorm2d (2), BatchNorm3d (3)."""


class BatchNormOpBase(NormOpBase):
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
class BatchNormOp(BatchNormOpBase):
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
class BatchNormInferenceOp(BatchNormOpBase):
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
class BatchNormBackwardOp(BatchNormOpBase):
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


@rlx_op_definition
class BatchNormInferenceBackwardOp(BatchNormOpBase):
    """Gradients of eval-mode batch norm [native_batch_norm_backward(train=False)]: frozen
    statistics, as when a pretrained net is fine-tuned with its batch norms in eval mode.

    With invstd = 1/sqrt(running_var + eps) per channel and sums over N and the spatial
    axes: grad_input = dy * weight * invstd, grad_weight = sum(dy * (x - running_mean) *
    invstd), grad_bias = sum dy. The statistics are constants here, so grad_input has none
    of training mode's mean terms. No weight means ones (PyTorch's `affine=False`). All
    three results are always there, as `rlx.batch_norm_backward`'s: ATen's output mask
    drops the unrequested ones at import.
    """

    name = "rlx.batch_norm_inference_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    running_mean = operand_def(FLOAT_TENSOR)
    running_var = operand_def(FLOAT_TENSOR)
    weight = opt_operand_def(FLOAT_TENSOR)

    eps = float_property(1e-5)

    grad_input = result_def(FLOAT_TENSOR)
    grad_weight = result_def(FLOAT_TENSOR)
    grad_bias = result_def(FLOAT_TENSOR)

    assembly_format = (
        "$grad_output `,` $input `,` $running_mean `,` $running_var (`weight` $weight^)? "
        f"(`eps` $eps^)? {SIGNATURE}"
    )

    def batched_values(self) -> set[str]:
        return {"grad_output", "input", "grad_input"}

    def verify_shapes(self) -> None:
        x = self.input_shape()
        self.expect_shape("grad_output", x, "the input's shape")
        given = ("running_mean", "running_var") + (("weight",) if self.weight is not None else ())
        self.expect_channels(given, x[1])
        self.expect_shape("grad_input", x, "the input's shape")
        self.expect_channels(("grad_weight", "grad_bias"), x[1])
