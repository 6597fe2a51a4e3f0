"""VJP rules of the activations and their gradients.

An activation's VJP is its ATen gradient op (ReLU's reads its output, as ATen's
threshold_backward does; sigmoid's reads its output). Each gradient `dx = dy * f'(x)` is
linear in dy, so its VJP with respect to dy is the same gradient op applied to the
cotangent; with respect to x it is `dx_bar * dy * f''(x)`, which is zero almost
everywhere for the piecewise-linear activations (relu, hardtanh, hardsigmoid,
leaky_relu), as in PyTorch's double backward, and written in elementwise RLX ops for the
smooth ones (sigmoid, silu, gelu with approximate "none", hardswish).
"""

from __future__ import annotations

import math

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx
from rlx_mlir.ir import DiagnosticError, format_location


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


@vjp_rule(rlx.SigmoidBackwardOp)
def sigmoid_backward(b, op, g):
    """dx = dy y (1 - y), y the sigmoid's output: dy_bar = sigmoid_backward(g, y), y_bar = g dy (1 - 2y)."""
    dy, y = op.operands
    g_dy = b.mul(g, dy)
    return b.like(op, rlx.SigmoidBackwardOp, [g, y], dy), b.sub(g_dy, b.mul(b.mul(g_dy, y), b.scalar(2.0, y)))


@vjp_rule(rlx.HardswishBackwardOp)
def hardswish_backward(b, op, g):
    """dx = dy (x/3 + 1/2) on (-3, 3], dy above: dy_bar = hardswish_backward(g, x);
    x_bar = g dy / 3 on (-3, 3), zero elsewhere: the interior mask is hardtanh_backward's
    (min -3, max 3), then an exact division by 3 (hardsigmoid_backward's factor is ATen's
    f32-rounded 1/6, which would be off by 3e-8 in f64)."""
    dy, x = op.operands
    inside = b.build(rlx.HardtanhBackwardOp, [b.mul(g, dy), x], x, min_val=-3.0, max_val=3.0)
    third = b.div(inside, b.scalar(3.0, x))
    return b.like(op, rlx.HardswishBackwardOp, [g, x], dy), third


@vjp_rule(rlx.SiluBackwardOp)
def silu_backward(b, op, g):
    """dx = dy s (1 + x (1 - s)), s = sigmoid(x): dy_bar = silu_backward(g, x),
    x_bar = g dy s (1 - s) (2 + x (1 - 2 s))."""
    dy, x = op.operands
    s = b.build(rlx.SigmoidOp, [x], x)
    t = b.build(rlx.SigmoidBackwardOp, [b.mul(g, dy), s], x)  # g dy s (1 - s)
    one_minus_2s = b.sub(b.scalar(1.0, x), b.mul(s, b.scalar(2.0, x)))
    return b.like(op, rlx.SiluBackwardOp, [g, x], dy), b.mul(t, b.add(b.mul(x, one_minus_2s), b.scalar(2.0, x)))


@vjp_rule(rlx.GeluBackwardOp)
def gelu_backward(b, op, g):
    """dx = dy gelu'(x): dy_bar = gelu_backward(g, x), x_bar = g dy gelu''(x).

    Exact GELU: gelu''(x) = phi(x) (2 - x^2), phi(x) = exp(-x^2/2) / sqrt(2 pi).
    approximate "tanh": gelu(x) = x (1 + t) / 2, t = tanh(u), u = k (x + c x^3),
    k = sqrt(2/pi), c = 0.044715, so u' = k (1 + 3 c x^2), u'' = 6 k c x and
    gelu''(x) = (1 - t^2) (u' - x t u'^2 + x u'' / 2).
    """
    if op.approximate == "tanh":
        return _gelu_tanh_backward(b, op, g)
    if op.approximate != "none":
        raise DiagnosticError(
            f"'{op.name}' op has no VJP rule for approximate \"{op.approximate}\" "
            "(only \"none\" and \"tanh\"): autodiff cannot differentiate through it",
            format_location(op),
        )
    dy, x = op.operands
    x2 = b.mul(x, x)
    phi = b.mul(b.unary(rlx.ExpOp, b.mul(x2, b.scalar(-0.5, x))), b.scalar(1 / math.sqrt(2 * math.pi), x))
    x_bar = b.mul(b.mul(b.mul(g, dy), phi), b.sub(b.scalar(2.0, x), x2))
    return b.like(op, rlx.GeluBackwardOp, [g, x], dy), x_bar


def _gelu_tanh_backward(b, op, g):
    """The tanh branch of `gelu_backward`'s rule (its docstring has the formula)."""
    dy, x = op.operands
    k, c = math.sqrt(2 / math.pi), 0.044715
    x2 = b.mul(x, x)
    u = b.mul(b.binary(rlx.AddOp, x, b.mul(b.mul(x2, x), b.scalar(c, x))), b.scalar(k, x))
    t = b.unary(rlx.TanhOp, u)
    du = b.mul(b.binary(rlx.AddOp, b.scalar(1.0, x), b.mul(x2, b.scalar(3 * c, x))), b.scalar(k, x))
    d2u = b.mul(x, b.scalar(6 * k * c, x))
    sech2 = b.sub(b.scalar(1.0, x), b.mul(t, t))
    inner = b.binary(rlx.AddOp, b.sub(du, b.mul(b.mul(x, t), b.mul(du, du))), b.mul(b.mul(x, d2u), b.scalar(0.5, x)))
    x_bar = b.mul(b.mul(g, dy), b.mul(sech2, inner))
    return b.like(op, rlx.GeluBackwardOp, [g, x], dy), x_bar
