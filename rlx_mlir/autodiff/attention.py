"""VJP rules of the attention ops, to any order.

`rlx.attention`'s VJP of its output is ATen's own gradient op, `rlx.attention_backward`,
which reads the forward's output and logsumexp (the flash backward recomputes the
weights from them): the first order stays flash-style, no [L, S] tensor is materialised.

The other derivatives are the same math written as a composition of RLX ops
(`Composition`), per (batch, head) with the kv heads repeated G times (grouped-query
attention) and the rows flattened into the batch of `rlx.matmul`:

    t   = scale q k^T [+ bias], -inf where a key is not attended   [B, H, L, S]
    P   = exp(t - lse)                                              (0 where not attended)
    dv  = P^T dout,  dP = dout v^T,  D = rowsum(dout * out),  dS = P (dP - D)
    dq  = scale dS k,  dk = scale dS^T q,  dbias = dS (summed over its broadcast dims)

(dk and dv summed over each kv head's G query heads). The composition is then
differentiated by the existing rules of its ops (`pull_back`), so every op a rule emits
has a rule itself and the next order is differentiable again:
- the rule of `rlx.attention_backward` (the second order) pulls its results' cotangents
  back through the composition of dq, dk, dv (and dbias) to all its float operands: dout,
  q, k, v, out, lse and a bias;
- a cotangent of the forward's logsumexp is pulled back through t alone:
  lse = log sum_j exp(t_j), so t_bar = P lse_bar (rowwise), which reaches q, k and a bias.
Both materialise the [B, H, L, S] weights: the price of the higher orders, not of training.

A row with no attended key (a mask that drops every key, a window past the keys' end) has
lse = 0 from the forward, so P = exp(-inf) = 0 there and nothing flows through it at any
order: every derivative of such a row is 0, as PyTorch's math backend gives (its safe
softmax makes the row's weights 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from rlx_mlir.autodiff.matmul import transposed
from rlx_mlir.autodiff.rules import RULES, is_float_tensor, is_zero, vjp_rule
from rlx_mlir.dialects import rlx
from rlx_mlir.ir import DiagnosticError, format_location


class Composition:
    """Builds the attention math of `op` (`rlx.attention` or `rlx.attention_backward`) from
    RLX ops with `b`, and records the ops it built, for `pull_back` to differentiate.

    q, dout and out become [B H, L, *]; k and v, their heads repeated G times, [B H, S, *].
    """

    def __init__(self, b, op):
        self.b, self.op = b, op
        self.first = b.block.last_op
        n, self.h, self.l, self.e = op.query.type.get_shape()
        self.n, self.hkv, self.s, self.ev = op.value.type.get_shape()
        self.element = op.query.type.element_type
        if self.n < 0:
            raise DiagnosticError(
                f"'{op.name}' op: autodiff composes the attention math of static shapes only, got a dynamic batch "
                f"({op.query.type})",
                format_location(op),
            )

    def built(self) -> list[Operation]:
        """The ops built since this composition began, in program order."""
        ops, op = [], self.b.block.first_op if self.first is None else self.first.next_op
        while op is not None:
            ops.append(op)
            op = op.next_op
        return ops

    def type_(self, *shape) -> TensorType:
        return TensorType(self.element, list(shape))

    def rows(self, value: SSAValue) -> SSAValue:
        """[B, H, L, d] -> [B H, L, d]."""
        *_, length, d = value.type.get_shape()
        return self.b.build(rlx.ReshapeOp, [value], self.type_(self.n * self.h, length, d))

    def heads(self, value: SSAValue) -> SSAValue:
        """A kv tensor [B, Hkv, S, d], its heads repeated G times, as [B H, S, d]."""
        d, g = value.type.get_shape()[3], self.h // self.hkv
        if g > 1:
            value = self.b.build(rlx.ReshapeOp, [value], self.type_(self.n, self.hkv, 1, self.s, d))
            value = self.b.build(rlx.ExpandOp, [value], self.type_(self.n, self.hkv, g, self.s, d))
        return self.b.build(rlx.ReshapeOp, [value], self.type_(self.n * self.h, self.s, d))

    def kv_heads(self, value: SSAValue, like: SSAValue) -> SSAValue:
        """[B H, S, d] summed over each kv head's G query heads, as `like` [B, Hkv, S, d]."""
        d, g = like.type.get_shape()[3], self.h // self.hkv
        if g == 1:
            return self.b.build(rlx.ReshapeOp, [value], like)
        grouped = self.b.build(rlx.ReshapeOp, [value], self.type_(self.n, self.hkv, g, self.s, d))
        return self.b.build(rlx.SumOp, [grouped], like, dims=[2])

    def scores(self) -> SSAValue:
        """t = scale q k^T [+ bias], -inf where the mask, causality or the window drops a key: [B, H, L, S]."""
        b, op = self.b, self.op
        full = self.type_(self.n, self.h, self.l, self.s)
        s = b.build(rlx.MatmulOp, [self.rows(op.query), transposed(b, self.heads(op.key))],
                    self.type_(self.n * self.h, self.l, self.s))
        t = b.build(rlx.ReshapeOp, [b.mul(s, b.scalar(op.scale, s))], full)
        if op.is_bias():
            t = b.build(rlx.AddOp, [t, op.mask], full)
        if op.causal():
            t = b.build(rlx.AddOp, [t, self.causal_bias()], full)
        if op.mask is not None and not op.is_bias():
            t = b.build(rlx.WhereOp, [op.mask, t, b.scalar(-math.inf, t)], full)
        return t

    def causal_bias(self) -> SSAValue:
        """[L, S]: -inf where causality (j > i) or the window (j <= i - window) drops key j
        from row i, 0 elsewhere; float, so that no boolean tensor is materialised."""
        b, op = self.b, self.op
        dropped = b.build(rlx.FullOp, [[]], self.type_(self.l, self.s), value=-math.inf)
        bias = b.build(rlx.TriuOp, [dropped], dropped, diagonal=1)
        if op.window:
            bias = b.build(rlx.AddOp, [bias, b.build(rlx.TrilOp, [dropped], dropped, diagonal=-op.window)], bias)
        return bias

    def weights(self, t: SSAValue, lse: SSAValue) -> SSAValue:
        """P = exp(t - lse), rowwise: [B, H, L, S]."""
        b = self.b
        column = b.build(rlx.ReshapeOp, [lse], self.type_(self.n, self.h, self.l, 1))
        return b.unary(rlx.ExpOp, b.build(rlx.SubOp, [t, column], t))

    def backward(self) -> list[SSAValue]:
        """dq, dk, dv (and dbias) of `rlx.attention_backward` `op` (module docstring)."""
        b, op = self.b, self.op
        nh = self.n * self.h
        p = self.weights(self.scores(), op.logsumexp)
        p3 = b.build(rlx.ReshapeOp, [p], self.type_(nh, self.l, self.s))
        dout = self.rows(op.grad_output)
        dv = b.build(rlx.MatmulOp, [transposed(b, p3), dout], self.type_(nh, self.s, self.ev))
        dp = b.build(rlx.MatmulOp, [dout, transposed(b, self.heads(op.value))], p3)
        d = b.build(rlx.SumOp, [b.mul(dout, self.rows(op.output))], self.type_(nh, self.l, 1), dims=[2], keepdim=True)
        ds = b.mul(p3, b.sub(dp, d))
        ds_scaled = b.mul(ds, b.scalar(op.scale, ds))
        q, k = self.rows(op.query), self.heads(op.key)
        dq = b.build(rlx.MatmulOp, [ds_scaled, k], q)
        dk = b.build(rlx.MatmulOp, [transposed(b, ds_scaled), q], k)
        grads = [
            b.build(rlx.ReshapeOp, [dq], op.query),
            self.kv_heads(dk, op.key),
            self.kv_heads(dv, op.value),
        ]
        if op.is_bias():
            grads.append(b.sum_to(b.build(rlx.ReshapeOp, [ds], p), op.mask))
        return grads


def _plus(b, x: SSAValue | None, y: SSAValue | None) -> SSAValue | None:
    """x + y, where None is no cotangent."""
    return y if x is None else x if y is None else b.add(x, y)


def pull_back(b, ops: Sequence[Operation], seeds: dict[SSAValue, SSAValue], wanted: Sequence[SSAValue | None]):
    """The cotangents of `wanted` (values `ops` read) given those of some of `ops`' results
    (`seeds`): the reverse sweep of `autodiff.reverse` over `ops` alone, with each op's rule.

    Only values that depend on `wanted` carry cotangents (the masks, the splat constants
    and the scale stay out); an unreached wanted value gets None.
    """
    active = {value for value in wanted if value is not None and is_float_tensor(value.type)}
    for op in ops:
        if any(operand in active for operand in op.operands):
            active.update(r for r in op.results if is_float_tensor(r.type))
    bars = {value: bar for value, bar in seeds.items() if not is_zero(bar)}
    for op in reversed(ops):
        if not any(r in bars for r in op.results):
            continue
        grads = RULES[type(op)](b, op, *(bars.get(r) or b.zeros(r.type) for r in op.results))
        for operand, grad in zip(op.operands, grads):
            if grad is not None and operand in active:
                bars[operand] = b.add(bars[operand], grad) if operand in bars else grad
    return [None if value is None else bars.get(value) for value in wanted]


@vjp_rule(rlx.AttentionOp)
def attention(b, op, out_bar, lse_bar):
    """(out, lse) = attention(q, k, v[, mask]): (q, k, v[, bias])_bar = attention_backward(out_bar,
    q, k, v, out, lse[, mask]), plus lse_bar pulled back through the scores (module
    docstring); a boolean mask gets no cotangent."""
    q, k, v = op.query, op.key, op.value
    bias = op.mask if op.is_bias() else None
    grads = [None, None, None, None]
    if not is_zero(out_bar):
        grads = list(b.build_many(
            rlx.AttentionBackwardOp, [out_bar, q, k, v, op.output, op.logsumexp, op.mask],
            [q.type, k.type, v.type, None if bias is None else bias.type],
            scale=op.scale, is_causal=op.is_causal, window=op.window,
        ))
        grads += [None] * (4 - len(grads))
    if not is_zero(lse_bar):
        c = Composition(b, op)
        t = c.scores()
        rows = b.build(rlx.ReshapeOp, [lse_bar], c.type_(c.n, c.h, c.l, 1))
        extra = pull_back(b, c.built(), {t: b.mul(c.weights(t, op.logsumexp), rows)}, [q, k, None, bias])
        grads = [_plus(b, g, e) for g, e in zip(grads, extra)]
    return tuple(grads) if op.mask is not None else tuple(grads[:3])


@vjp_rule(rlx.AttentionBackwardOp)
def attention_backward(b, op, *result_bars):
    """(dq, dk, dv[, dbias]) = attention_backward(dout, q, k, v, out, lse[, mask]): the
    results' cotangents pulled back through the backward's math as RLX ops (module
    docstring); a boolean mask gets no cotangent."""
    c = Composition(b, op)
    results = c.backward()
    bias = op.mask if op.is_bias() else None
    wanted = [op.grad_output, op.query, op.key, op.value, op.output, op.logsumexp, bias]
    grads = pull_back(b, c.built(), dict(zip(results, result_bars)), wanted)
    return tuple(grads) if op.mask is not None else tuple(grads[:6])
