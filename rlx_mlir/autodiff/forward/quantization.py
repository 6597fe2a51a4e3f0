"""JVP rules of fake quantization and its STE gradients.

Fake quantization is piecewise constant; its derivative is taken as PyTorch's
straight-through estimator, as the VJP rules take it, and every op of the family is
elementwise in its data operands: each Jacobian is diagonal, so the JVP is the VJP rule's
product (`rules.diagonal`). The per-channel grid (scale, zero point) must be constant, as
the VJP rules require.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import diagonal, jvp_rule
from rlx_mlir.dialects import rlx

jvp_rule(
    rlx.FakeQuantizeOp, rlx.SteBackwardOp, rlx.FakeQuantizePerChannelOp, rlx.FakeQuantizePerChannelBackwardOp
)(diagonal)
