"""JVP rules of the activations and their gradients.

Each activation is elementwise, and each gradient `dx = dy * f'(x)` too: every Jacobian
is diagonal, so the JVP in each operand is the VJP rule's product (`rules.diagonal`):

    y = f(x):               y_dot = f'(x) x_dot
    dx = dy f'(x):          dx_dot = f'(x) dy_dot + dy f''(x) x_dot

the second term zero almost everywhere for the piecewise-linear activations, as the VJP
rules (`autodiff/activation.py`) state.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import diagonal, jvp_rule
from rlx_mlir.dialects import rlx

jvp_rule(
    rlx.ReluOp,
    rlx.HardtanhOp,
    rlx.HardswishOp,
    rlx.HardsigmoidOp,
    rlx.SigmoidOp,
    rlx.SiluOp,
    rlx.GeluOp,
    rlx.LeakyReluOp,
    rlx.ThresholdBackwardOp,
    rlx.HardtanhBackwardOp,
    rlx.HardswishBackwardOp,
    rlx.HardsigmoidBackwardOp,
    rlx.SigmoidBackwardOp,
    rlx.SiluBackwardOp,
    rlx.GeluBackwardOp,
    rlx.LeakyReluBackwardOp,
)(diagonal)
