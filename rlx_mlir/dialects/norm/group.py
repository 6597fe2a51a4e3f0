"""Group norm and its gradient (ATen's `native_group_norm`, `native_group_norm_backward`).

x is [N, C, *spatial] with any number of spatial axes (none too); its C channels fall in
`groups` consecutive groups of C / groups channels, and each (sample, group) is normalized
over its C / groups * prod(spatial) values with the biased variance. mean and rstd are
ATen's [N, groups]. The affine weight and bias are per channel, [C], both or neither
(PyTorch's `affine=False`; the importer fills in the one `F.group_norm` may leave out). Only the batch may be dynamic.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, opt_operand_def, result_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, rlx_op_definition
from rlx_mlir.dialects.norm.shapes import NormOpBase
from rlx_mlir.dialects.properties import FLOAT_TENSOR, float_property, int_property


class GroupNormOpBase(NormOpBase):
    """x [N, C, *spatial], groups dividing C; per-channel [C] and per-(sample, group) [N, groups] values."""

    def check_group_shapes(self) -> tuple[int, ...]:
        """x's shape, once x, `groups`, the weight (when given) and mean and rstd agree."""
        x = self.shape_named("input")
        if len(x) < 2:
            raise VerifyException(
                f"expected the input to have rank at least 2 ([N, C, *spatial]), got {self.input.type}"
            )
        self.expect_nonempty("input")
        groups, channels = self.groups, x[1]
        if groups < 1 or channels % groups:
            raise VerifyException(
                f"expected groups to be at least 1 and to divide the input's {channels} channels, got {groups}"
            )
        if self.weight is not None:
            self.expect_shape("weight", (channels,), "one value per channel of the input")
        for name in ("mean", "rstd"):
            self.expect_shape(name, (x[0], groups), "one value per sample and group, [N, groups]")
        return x

    def batched_values(self) -> set[str]:
        return {"input", "result", "mean", "rstd", "grad_output", "grad_input"} & {
            name for name, _ in self.named_values()
        }


@rlx_op_definition
class GroupNormOp(GroupNormOpBase):
    """Group norm [native_group_norm]: with m = C / groups * prod(spatial) values per (n, g),

    mean[n, g] = sum x / m, rstd[n, g] = 1/sqrt(sum (x - mean)^2 / m + eps),
    y[n, c, *s] = (x - mean[n, g(c)]) * rstd[n, g(c)] * weight[c] + bias[c],
    g(c) = c // (C / groups); without the affine operands, y = (x - mean) * rstd.
    """

    name = "rlx.group_norm"

    input = operand_def(FLOAT_TENSOR)
    affine = var_operand_def(FLOAT_TENSOR)
    """The weight and the bias, or neither (one operand list: the custom form's signature
    names every operand once, which two optional operands would make ambiguous)."""

    groups = int_property()
    eps = float_property(1e-5)

    result = result_def(FLOAT_TENSOR)
    mean = result_def(FLOAT_TENSOR)
    rstd = result_def(FLOAT_TENSOR)

    assembly_format = f"$input (`affine` $affine^)? `groups` $groups (`eps` $eps^)? {SIGNATURE}"

    @property
    def weight(self) -> SSAValue | None:
        return self.affine[0] if self.affine else None

    @property
    def bias(self) -> SSAValue | None:
        return self.affine[1] if self.affine else None

    def verify_shapes(self) -> None:
        if len(self.affine) not in (0, 2):
            raise VerifyException(
                f"expected the affine operands to be the weight and the bias, or none, got {len(self.affine)} operands"
            )
        x = self.check_group_shapes()
        if self.bias is not None:
            self.expect_shape("bias", (x[1],), "one value per channel of the input")
        self.expect_shape("result", x, "the input's shape")


@rlx_op_definition
class GroupNormBackwardOp(GroupNormOpBase):
    """Gradients of group norm [native_group_norm_backward].

    With xhat = (x - mean) * rstd, g = dy * weight (dy without a weight) and means over the
    m values of each (n, group): grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat));
    grad_weight[c] = sum over n and the spatial axes of dy * xhat, grad_bias[c] = sum of dy.
    All three results are always there, as `rlx.layer_norm_backward`'s: ATen's output mask
    drops the unrequested ones at import.
    """

    name = "rlx.group_norm_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    mean = operand_def(FLOAT_TENSOR)
    rstd = operand_def(FLOAT_TENSOR)
    weight = opt_operand_def(FLOAT_TENSOR)

    groups = int_property()

    grad_input = result_def(FLOAT_TENSOR)
    grad_weight = result_def(FLOAT_TENSOR)
    grad_bias = result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$grad_output `,` $input `,` $mean `,` $rstd (`weight` $weight^)? `groups` $groups {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        x = self.check_group_shapes()
        self.expect_shape("grad_output", x, "the input's shape")
        self.expect_shape("grad_input", x, "the input's shape")
        for name in ("grad_weight", "grad_bias"):
            self.expect_shape(name, (x[1],), "one value per channel of the input")
