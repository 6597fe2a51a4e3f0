"""VJP rules of the activations and their gradients.

An activation's VJP is its ATen gradient op (ReLU's reads its output, as ATen's
threshold_backward does; sigmoid's reads its output). Each gradient `dx = dy * f'(x)` is
linear in dy, so its VJP with respect to dy is the same gradient op applied to the
cotangent; with respect to x it is `dx_bar * dy * f''(x)`, which is zero almost
everywhere for the piecewise-linear activations (relu, hardtanh, hardsigmoid,
leaky_relu), as in PyTorch's double backward.
"""

from __future__ import annotations

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


@vjp_rule(rlx.ReluOp)
def relu(b, op, y_bar):
    """y = relu(x): x_bar = threshold_backward(y_bar, y, 0) (y > 0 exactly where x > 0)."""
    return (b.build(rlx.ThresholdBackwardOp, [y_bar, op.results[0]], op.input, threshold=0.0),)


def _gradient_op_of_input(backward_op):
    """The rule of `y = f(x)` whose VJP is `f_backward(y_bar, x)`, with f's properties."""

    def rule(b, op, y_bar):
        return (b.like(op, backward_op, [y_bar, op.input], op.input),)

    rule.__doc__ = f"y = f(x): x_bar = {backward_op.name}(y_bar, x)."
    return rule


for _forward, _backward in (
    (rlx.HardtanhOp, rlx.HardtanhBackwardOp),
    (rlx.HardswishOp, rlx.HardswishBackwardOp),
    (rlx.HardsigmoidOp, rlx.HardsigmoidBackwardOp),
    (rlx.SiluOp, rlx.SiluBackwardOp),
    (rlx.GeluOp, rlx.GeluBackwardOp),
    (rlx.LeakyReluOp, rlx.LeakyReluBackwardOp),
):
    vjp_rule(_forward)(_gradient_op_of_input(_backward))


@vjp_rule(rlx.SigmoidOp)
def sigmoid(b, op, y_bar):
    """y = sigmoid(x): x_bar = sigmoid_backward(y_bar, y) = y_bar * y * (1 - y)."""
    return (b.build(rlx.SigmoidBackwardOp, [y_bar, op.results[0]], op.input),)


@vjp_rule(rlx.ThresholdBackwardOp, rlx.HardtanhBackwardOp, rlx.HardsigmoidBackwardOp, rlx.LeakyReluBackwardOp)
def piecewise_linear_backward(b, op, dx_bar):
    """dx = dy * f'(x), f' piecewise constant: dy_bar = the same op on (dx_bar, x); x_bar = 0 a.e."""
    return b.like(op, type(op), [dx_bar, op.input], op.grad_output), None
