"""The loss ops of the PyTorch import: (log-)softmax, the negative log-likelihood, their gradients.

Each op is one ATen op, with its operands in ATen's order and its semantics exactly:

    rlx.log_softmax           _log_softmax(x, dim)                      y = x - max - log(sum exp(x - max))
    rlx.softmax               _softmax(x, dim)                          y = exp(x - max) / sum exp(x - max)
    rlx.log_softmax_backward  _log_softmax_backward_data(dy, y, dim)    dx = dy - exp(y) * sum_dim(dy)
    rlx.softmax_backward      _softmax_backward_data(dy, y, dim)        dx = y * (dy - sum_dim(dy * y))
    rlx.nll_loss              nll_loss_forward / nll_loss2d_forward     (loss, total_weight)
    rlx.nll_loss_backward     nll_loss_backward / nll_loss2d_backward   dlogp

`F.cross_entropy` is `nll_loss(log_softmax(x, 1), target)`, which is how PyTorch's
autograd decomposes it too. The backward ops take the forward's OUTPUT `y` (as ATen
does), not its input. `dim` is non-negative (the importer normalizes PyTorch's negative
dims): a reduction axis of the operand.

The NLL loss reads its class axis at dim 1 of `[N, C, *d]` log-probabilities (with a
`[N, *d]` target; `*d` may be empty), or at dim 0 of unbatched `[C]` ones (with a 0-d
target). Class weights are an operand (the importer passes ones when PyTorch has none).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, i64
from xdsl.irdl import operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import (
    FLOAT_TENSOR,
    I64_TENSOR,
    expect_choice,
    int_property,
    string_property,
)
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of, tensor_type

REDUCTIONS = ("mean", "sum", "none")
"""PyTorch's `reduction` values (ATen's Reduction::Mean, Sum, None)."""


def _listed(shape) -> str:
    """`[4, 3]`, `[?, 3]`, `[]` (0-d): a shape in a diagnostic about a shape rule."""
    return "[" + ", ".join("?" if is_dynamic(d) else str(d) for d in shape) + "]"


def _expect_dim(dim: int, shape: tuple[int, ...], what: str) -> None:
    if not 0 <= dim < len(shape):
        raise VerifyException(
            f"expected 'dim' to be an axis of the {what} (0 <= dim < {len(shape)}), got {dim}"
        )


def _expect_ranked(value, name: str) -> tuple[int, ...]:
    shape = shape_of(value)
    if not shape:
        raise VerifyException(f"expected the {name} to have rank >= 1 (an axis to reduce), got {value.type}")
    return shape


def _expect_same_shape(a: tuple[int, ...], a_name: str, b: tuple[int, ...], b_name: str) -> None:
    if tuple(a) != tuple(b):
        raise VerifyException(
            f"expected the {b_name} to have the shape of the {a_name} ({format_shape(a)}), got {format_shape(b)}"
        )


class _SoftmaxForward(RlxOp):
    """`y = f(x)` along axis `dim` of `x` (rank >= 1); y has x's shape."""

    input = operand_def(FLOAT_TENSOR)
    dim = int_property()

    assembly_format = f"$input `dim` $dim {SIGNATURE}"

    def verify_shapes(self) -> None:
        x = _expect_ranked(self.input, "input")
        _expect_dim(self.dim, x, "input")
        self.expect_result_shape(x)


@rlx_op_definition
class LogSoftmaxOp(_SoftmaxForward):
    """`y = x - m - log(sum_dim exp(x - m))`, `m = max_dim x` [_log_softmax].

    Subtracting the row maximum keeps every `exp` <= 1, so large logits (1e4) do not
    overflow. As PyTorch: a NaN in a row makes the row NaN, -inf entries give -inf (the
    others stay finite), a row of only -inf (or with a +inf) is NaN.
    """

    name = "rlx.log_softmax"


@rlx_op_definition
class SoftmaxOp(_SoftmaxForward):
    """`y = exp(x - m) / sum_dim exp(x - m)`, `m = max_dim x` [_softmax]; -inf entries give 0,
    a row of only -inf (or with a +inf or NaN) is NaN, as in PyTorch."""

    name = "rlx.softmax"


class _SoftmaxBackward(RlxOp):
    """`dx = f(dy, y)` along `dim`, y the forward's output; dy, y and dx share one shape."""

    grad_output = operand_def(FLOAT_TENSOR)
    output = operand_def(FLOAT_TENSOR)
    dim = int_property()

    assembly_format = f"$grad_output `,` $output `dim` $dim {SIGNATURE}"

    def verify_shapes(self) -> None:
        dy = _expect_ranked(self.grad_output, "grad_output")
        y = shape_of(self.output)
        _expect_same_shape(dy, "grad_output", y, "output")
        _expect_dim(self.dim, dy, "grad_output")
        self.expect_result_shape(dy)


@rlx_op_definition
class LogSoftmaxBackwardOp(_SoftmaxBackward):
    """`dx = dy - exp(y) * sum_dim(dy)`, y = log_softmax(x) [_log_softmax_backward_data]."""

    name = "rlx.log_softmax_backward"


@rlx_op_definition
class SoftmaxBackwardOp(_SoftmaxBackward):
    """`dx = y * (dy - sum_dim(dy * y))`, y = softmax(x) [_softmax_backward_data]."""

    name = "rlx.softmax_backward"


class _NllLossShapes(RlxOpBase):
    """The shape rules the NLL loss and its gradient share.

    input `[N, C, *d]` (rank >= 2) with target `[N, *d]`, or unbatched `[C]` with a 0-d
    target; weight `[C]`. The per-element loss has the target's shape; it is the loss
    itself for reduction "none" on a batched input, and is summed (then, for "mean",
    divided by the total weight) otherwise: an unbatched loss is 0-d for every reduction.
    """

    def verify(self, verify_nested_ops: bool = True) -> None:
        # Before xDSL's constraint check, whose message ("Expected attribute i64 but got
        # i32") names neither the operand nor what it holds.
        target = self.target.type
        if isinstance(target, TensorType) and target.element_type != i64:
            raise VerifyException(f"expected the target to be a tensor of i64 class indices, got {target}")
        super().verify(verify_nested_ops)


    def check_input_target_weight(self) -> tuple[int, ...]:
        """The input's shape, with the target and weight checked against it."""
        logp = shape_of(self.input)
        if not logp:
            raise VerifyException(
                f"expected the input to have rank >= 1 ([N, C, *d] or unbatched [C]), got {self.input.type}"
            )
        classes = logp[1] if len(logp) >= 2 else logp[0]
        expected_target = (logp[0], *logp[2:]) if len(logp) >= 2 else ()
        target = shape_of(self.target)
        if tuple(target) != expected_target:
            raise VerifyException(
                f"expected the target to have shape {_listed(expected_target)} (the input "
                f"{_listed(logp)} without its class axis), got {_listed(target)}"
            )
        weight = shape_of(self.weight)
        if tuple(weight) != (classes,):
            raise VerifyException(
                f"expected the weight to have shape [{classes}] (one per class), got {_listed(weight)}"
            )
        return logp

    def loss_shape(self, logp: tuple[int, ...]) -> tuple[int, ...]:
        """The loss's shape: the target's for "none" on a batched input, else 0-d."""
        expect_choice("reduction", self.reduction, REDUCTIONS)
        return (logp[0], *logp[2:]) if self.reduction == "none" and len(logp) >= 2 else ()

    def batched_values(self) -> set[str]:
        # An unbatched input's only axis is its classes, which the weight fixes.
        names = {"input", "target", "grad_output", "result", "loss"}
        return names if tensor_type(self.input).get_num_dims() >= 2 else set()


def _expect_scalar(value, name: str) -> None:
    if shape_of(value):
        raise VerifyException(f"expected the {name} to be 0-d, got {value.type}")


@rlx_op_definition
class NllLossOp(_NllLossShapes):
    """`(loss, total_weight)` of log-probabilities `input` and class indices `target` [nll_loss_forward, nll_loss2d_forward].

        l[n, *d] = ignored ? 0 : -input[n, t, *d] * weight[t],   t = target[n, *d]
        w[n, *d] = ignored ? 0 : weight[t],                      ignored = (t == ignore_index)
        "none": loss = l (batched) ; "sum": loss = sum l ; "mean": loss = sum l / sum w

    `total_weight` is `sum w` for "sum" and "mean", and for an unbatched input whatever the
    reduction; it is 0 for "none" on a batched input (ATen's values). A "mean" over only
    ignored targets is 0/0 = NaN, a "sum" 0, as in PyTorch. `ignore_index` may be any value,
    a class in [0, C) too.

    A target outside [0, C) that is not `ignore_index` is an error in PyTorch ("Target t is
    out of bounds"), which compiled code cannot raise. Its element never reads out of bounds
    (the gather reads class 0 instead and discards it): its loss is NaN, so the reduced loss
    is NaN too and the error is visible, and its weight counts 0.
    """

    name = "rlx.nll_loss"

    input = operand_def(FLOAT_TENSOR)
    target = operand_def(I64_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    reduction = string_property("mean")
    ignore_index = int_property(-100)

    loss = result_def(FLOAT_TENSOR)
    total_weight = result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$input `,` $target `,` $weight (`reduction` $reduction^)? (`ignore_index` $ignore_index^)? {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        logp = self.check_input_target_weight()
        expected = self.loss_shape(logp)
        got = shape_of(self.loss)
        if tuple(got) != expected:
            raise VerifyException(
                f"expected the loss to have shape {_listed(expected)} (reduction "
                f"\"{self.reduction}\" of input {_listed(logp)}), got {_listed(got)}"
            )
        _expect_scalar(self.total_weight, "total_weight")


@rlx_op_definition
class NllLossBackwardOp(_NllLossShapes):
    """`dinput` of `rlx.nll_loss` [nll_loss_backward, nll_loss2d_backward].

        dinput[n, c, *d] = (c == t and t != ignore_index) ? weight[c] * -g : 0,   t = target[n, *d]
        g = grad_output[n, *d] ("none", batched), grad_output / total_weight ("mean"), grad_output ("sum")

    grad_output has the loss's shape, total_weight is the forward's second result (0-d).
    A target outside [0, C) matches no class: its gradient is 0 (nothing is read out of bounds).
    """

    name = "rlx.nll_loss_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    input = operand_def(FLOAT_TENSOR)
    target = operand_def(I64_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    total_weight = operand_def(FLOAT_TENSOR)
    reduction = string_property("mean")
    ignore_index = int_property(-100)

    result = result_def(FLOAT_TENSOR)

    assembly_format = (
        "$grad_output `,` $input `,` $target `,` $weight `,` $total_weight"
        f" (`reduction` $reduction^)? (`ignore_index` $ignore_index^)? {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        logp = self.check_input_target_weight()
        expected = self.loss_shape(logp)
        got = shape_of(self.grad_output)
        if tuple(got) != expected:
            raise VerifyException(
                f"expected the grad_output to have shape {_listed(expected)} (the loss of "
                f"reduction \"{self.reduction}\" of input {_listed(logp)}), got {_listed(got)}"
            )
        _expect_scalar(self.total_weight, "total_weight")
        self.expect_result_shape(logp)


FORWARD_OPS = (LogSoftmaxOp, SoftmaxOp, NllLossOp)
BACKWARD_OPS = (LogSoftmaxBackwardOp, SoftmaxBackwardOp, NllLossBackwardOp)
