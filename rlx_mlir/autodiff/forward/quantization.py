"""JVP rules of fake quantization and its STE gradients.

Fake quantization is piecewise constant; its derivative is taken as PyTorch's
straight-through estimator, as the VJP rules take it, and every op of the family is
elementwise in its data operands: each Jacobian is diagonal, so the JVP is the VJP rule's
product (`rules.diagonal`). The per-channel grid (scale, zero point) must be constant, as
the VJP rules require. The grid operands of `fake_quantize_tensor_qparams` (an
observer's statistics) carry no tangent into it, and the observer's ops give none.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import diagonal, jvp_rule
from rlx_mlir.dialects import quantization as quant
from rlx_mlir.dialects import rlx

jvp_rule(
    rlx.FakeQuantizeOp, rlx.SteBackwardOp, rlx.FakeQuantizePerChannelOp, rlx.FakeQuantizePerChannelBackwardOp
)(diagonal)


@jvp_rule(quant.FakeQuantizeTensorQparamsOp, quant.FakeQuantizeTensorQparamsBackwardOp)
def on_grid_operands(b, op, *tangents):
    """Diagonal in the data operands (x, dy); the grid's tangents are left out, as the VJP
    rules give the grid no cotangent."""
    data = op.results[0].type
    return diagonal(b, op, *(t if x.type == data else None for x, t in zip(op.operands, tangents)))


@jvp_rule(*quant.OBSERVER_OPS)
def observed_statistics(b, op, *operand_dots):
    """Statistics carry no tangent (the VJP rules give their operands no cotangent)."""
    return (None,) * len(op.results)
