"""VJP rules of (log-)softmax, the NLL loss and their gradients.

    y = log_softmax(x):  x_bar = log_softmax_backward(y_bar, y) = y_bar - exp(y) sum(y_bar)
    y = softmax(x):      x_bar = softmax_backward(y_bar, y) = y (y_bar - sum(y_bar y))
    loss = nll_loss(logp, t, w): logp_bar = nll_loss_backward(loss_bar, logp, t, w, total_weight)

The gradients are linear in their grad_output, and their VJPs follow from
dx = B(dy, y) by the product rule (sums along `dim` kept, keepdim, and broadcast back):

    log_softmax_backward: dy_bar = g - sum(g p),   y_bar = -g p sum(dy)      (p = exp(y))
    softmax_backward:     dy_bar = y (g - sum(g y)) = softmax_backward(g, y),
                          y_bar = g (dy - sum(dy y)) - dy sum(g y)
    nll_loss_backward:    grad_bar = sum(g * nll_loss_backward(1, logp, t, w, total)) over
                          the classes (all dims for a reduced loss), logp_bar = 0 (the
                          gradient does not depend on logp)

The target (integer) and the class weights get no cotangent, as in ATen; nor does the
total weight, a count of the targets.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx


def _sum_along(b, op, value):
    """sum of `value` along the op's `dim`, kept as a size-1 dim (broadcasts back)."""
    dim = op.dim
    shape = list(value.type.get_shape())
    shape[dim] = 1
    return b.build(rlx.SumOp, [value], TensorType(value.type.element_type, shape), dims=[dim], keepdim=True)


@vjp_rule(rlx.LogSoftmaxOp)
def log_softmax(b, op, y_bar):
    return (b.like(op, rlx.LogSoftmaxBackwardOp, [y_bar, op.results[0]], op.input),)


@vjp_rule(rlx.SoftmaxOp)
def softmax(b, op, y_bar):
    return (b.like(op, rlx.SoftmaxBackwardOp, [y_bar, op.results[0]], op.input),)


@vjp_rule(rlx.LogSoftmaxBackwardOp)
def log_softmax_backward(b, op, g):
    """dx = dy - p sum(dy), p = exp(y): dy_bar = g - sum(g p), y_bar = -g p sum(dy)."""
    dy, y = op.operands
    gp = b.mul(g, b.unary(rlx.ExpOp, y))
    dy_bar = b.sub(g, _sum_along(b, op, gp))
    y_bar = b.neg(b.mul(gp, _sum_along(b, op, dy)))
    return dy_bar, y_bar


@vjp_rule(rlx.SoftmaxBackwardOp)
def softmax_backward(b, op, g):
    """dx = y (dy - sum(dy y)): dy_bar = softmax_backward(g, y), y_bar = g (dy - sum(dy y)) - dy sum(g y)."""
    dy, y = op.operands
    dy_bar = b.like(op, rlx.SoftmaxBackwardOp, [g, y], dy)
    y_bar = b.sub(b.mul(g, b.sub(dy, _sum_along(b, op, b.mul(dy, y)))), b.mul(dy, _sum_along(b, op, b.mul(g, y))))
    return dy_bar, y_bar


@vjp_rule(rlx.NllLossOp)
def nll_loss(b, op, loss_bar, _total_weight_bar):
    """loss = nll_loss(logp, t, w): logp_bar = nll_loss_backward(loss_bar, logp, t, w, total_weight)."""
    logp, target, weight = op.operands
    logp_bar = b.like(op, rlx.NllLossBackwardOp, [loss_bar, logp, target, weight, op.results[1]], logp)
    return logp_bar, None, None


@vjp_rule(rlx.NllLossBackwardOp)
def nll_loss_backward(b, op, g):
    """dlogp = nll_loss_backward(grad, ...) = grad * B(1), linear in grad: grad_bar = sum(g * B(1))
    over the class dim (and every dim when grad is the reduced 0-d loss's)."""
    grad, logp, target, weight, total_weight = op.operands
    unit = b.like(op, rlx.NllLossBackwardOp, [b.ones(grad.type), logp, target, weight, total_weight], logp)
    per_class = b.mul(g, unit)
    rank = len(logp.type.get_shape())
    dims = list(range(rank)) if grad.type.get_shape() == () or op.reduction != "none" else [min(1, rank - 1)]
    return b.build(rlx.SumOp, [per_class], grad, dims=dims), None, None, None, None
