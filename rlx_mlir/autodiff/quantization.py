"""VJP rules of fake quantization and its STE gradients.

fake_quantize is piecewise constant; its VJP is PyTorch's straight-through estimator,
`ste_backward` with kind `clipped` (dy where the unclamped level lies in the grid).
`ste_backward` computes dx = dy * g(x), linear in dy, so dy's cotangent is the same op
on the incoming cotangent; x's is `dx_bar * dy * g'(x)`: zero almost everywhere for the
piecewise-constant kinds (identity, clipped, hard_tanh), as in PyTorch's double
backward of a mask, and for tanh, with t = tanh(x), g = 1 - t^2 and g' = -2 t (1 - t^2).

The per-channel ops read their grid from operands. The gradient in the scale is not zero
(y is linear in it between the jumps), and PyTorch's autograd refuses it, so a rule
that returned no cotangent would give a silently wrong gradient: the rules require the
scale and zero point to be constants (`arith.constant`) and otherwise stop with a
located error.

`fake_quantize_tensor_qparams` reads its grid from operands too, but that grid is an
observer's statistics (`moving_average_min_max`, `choose_qparams`): PyTorch's fused
observer gives it no gradient, and neither do these rules; the observer's ops give their
operands none (their results are statistics, not functions of the loss).
"""

from __future__ import annotations

from xdsl.dialects import arith

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import quantization as quant
from rlx_mlir.dialects import rlx
from rlx_mlir.ir import DiagnosticError, format_location


@vjp_rule(rlx.FakeQuantizeOp)
def fake_quantize(b, op, y_bar):
    """x_bar = ste_backward(y_bar, x) kind "clipped", on the op's grid."""
    return (b.like(op, rlx.SteBackwardOp, [y_bar, op.input], op.input, kind="clipped"),)


@vjp_rule(rlx.SteBackwardOp)
def ste_backward(b, op, g):
    """dy_bar = ste_backward(g, x) (same kind and grid); x_bar = g dy g'(x) (module docstring)."""
    dy, x = op.grad_output, op.input
    dy_bar = b.like(op, rlx.SteBackwardOp, [g, x], dy)
    if op.kind != "tanh":
        return dy_bar, None
    t = b.unary(rlx.TanhOp, x)
    slope = b.sub(b.scalar(1.0, x), b.mul(t, t))
    x_bar = b.mul(b.mul(b.mul(g, dy), b.mul(t, slope)), b.scalar(-2.0, x))
    return dy_bar, x_bar


def _constant_grid(op) -> None:
    """The per-channel grid must be constant: its gradient is not given (module docstring)."""
    for name in ("scale", "zero_point"):
        if not isinstance(getattr(op, name).owner, arith.ConstantOp):
            raise DiagnosticError(
                f"'{op.name}' op is not differentiable with respect to its {name} (as in PyTorch): "
                f"autodiff needs it to be a constant (arith.constant)",
                format_location(op),
            )


@vjp_rule(rlx.FakeQuantizePerChannelOp)
def fake_quantize_per_channel(b, op, y_bar):
    """x_bar = fake_quantize_per_channel_backward(y_bar, x) on the op's grid (the clipped STE)."""
    _constant_grid(op)
    operands = [y_bar, op.input, op.scale, op.zero_point]
    return b.like(op, rlx.FakeQuantizePerChannelBackwardOp, operands, op.input), None, None


@vjp_rule(rlx.FakeQuantizePerChannelBackwardOp)
def fake_quantize_per_channel_backward(b, op, g):
    """dx = dy * mask(x): dy_bar = the same op on g; x_bar = 0 almost everywhere."""
    _constant_grid(op)
    operands = [g, op.input, op.scale, op.zero_point]
    return b.like(op, rlx.FakeQuantizePerChannelBackwardOp, operands, op.grad_output), None, None, None


@vjp_rule(quant.FakeQuantizeTensorQparamsOp)
def fake_quantize_tensor_qparams(b, op, y_bar):
    """x_bar = fake_quantize_tensor_qparams_backward(y_bar, x) on the op's grid; the grid gets none."""
    operands = [y_bar, op.input, op.scale, op.zero_point]
    return b.like(op, quant.FakeQuantizeTensorQparamsBackwardOp, operands, op.input), None, None


@vjp_rule(quant.FakeQuantizeTensorQparamsBackwardOp)
def fake_quantize_tensor_qparams_backward(b, op, g):
    """dx = dy * mask(x): dy_bar = the same op on g; x_bar = 0 almost everywhere; the grid none."""
    operands = [g, op.input, op.scale, op.zero_point]
    return b.like(op, quant.FakeQuantizeTensorQparamsBackwardOp, operands, op.grad_output), None, None, None


@vjp_rule(*quant.OBSERVER_OPS)
def observed_statistics(b, op, *result_bars):
    """Running min and max, scale and zero point: statistics, no operand gets a cotangent."""
    return (None,) * len(op.operands)
