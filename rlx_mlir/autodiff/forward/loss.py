"""JVP rules of (log-)softmax, the NLL loss and their gradients (p = exp(y), sums along `dim`, kept):

    y = log_softmax(x):              y_dot = x_dot - sum(p x_dot)
    y = softmax(x):                  y_dot = y (x_dot - sum(y x_dot)) = softmax_backward(x_dot, y)
    dx = log_softmax_backward(dy, y) = dy - p sum(dy):
                                     dx_dot = log_softmax_backward(dy_dot, y) - p y_dot sum(dy)
    dx = softmax_backward(dy, y) = y (dy - sum(dy y)):
                                     dx_dot = softmax_backward(dy_dot, y) + y_dot (dy - sum(dy y)) - y sum(dy y_dot)
    loss = nll_loss(logp, t, w): linear in logp (the total weight, a count, has no tangent)
    dlogp = nll_loss_backward(grad, logp, ...): linear in grad, constant in logp
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, product_rule, replaced, total
from rlx_mlir.autodiff.loss import _sum_along
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.LogSoftmaxOp)
def log_softmax(b, op, x_dot):
    p = b.unary(rlx.ExpOp, op.results[0])
    return (b.sub(x_dot, _sum_along(b, op, b.mul(p, x_dot))),)


@jvp_rule(rlx.SoftmaxOp)
def softmax(b, op, x_dot):
    return (b.like(op, rlx.SoftmaxBackwardOp, [x_dot, op.results[0]], x_dot),)


@jvp_rule(rlx.LogSoftmaxBackwardOp)
def log_softmax_backward(b, op, dy_dot, y_dot):
    dy, y = op.operands
    through_y = y_dot and b.neg(b.mul(b.mul(b.unary(rlx.ExpOp, y), y_dot), _sum_along(b, op, dy)))
    return (total(b, [dy_dot and replaced(b, op, 0, dy_dot), through_y], op.results[0]),)


@jvp_rule(rlx.SoftmaxBackwardOp)
def softmax_backward(b, op, dy_dot, y_dot):
    dy, y = op.operands
    through_y = y_dot and b.sub(
        b.mul(y_dot, b.sub(dy, _sum_along(b, op, b.mul(dy, y)))), b.mul(y, _sum_along(b, op, b.mul(dy, y_dot)))
    )
    return (total(b, [dy_dot and replaced(b, op, 0, dy_dot), through_y], op.results[0]),)


@jvp_rule(rlx.NllLossOp)
def nll_loss(b, op, logp_dot, _target_dot, _weight_dot):
    """Linear in logp; the class weights are not differentiated, as in ATen (and the VJP rule)."""
    if logp_dot is None:
        return None, None
    loss, total_weight = op.results
    _, target, weight = op.operands
    properties = {name: op.property_value(name) for name in op.properties}
    loss_dot, _ = b.build_many(rlx.NllLossOp, [logp_dot, target, weight], [loss.type, total_weight.type], **properties)
    return loss_dot, None


@jvp_rule(rlx.NllLossBackwardOp)
def nll_loss_backward(b, op, grad_dot, *_constant_dots):
    return (product_rule(b, op, grad_dot, *_constant_dots, linear=[0]),)
