"""The jvp pass on the norms' gradient ops and on attention, against `torch.func.jvp` in
f64 (1e-9), every result and its tangent compared (`jvp_harness.JvpTable`).

The norms' gradient ops take their saved statistics (mean, rstd, invstd) as independent
operands, and ATen's own derivatives of them treat those as not differentiable; so
PyTorch's side is each op's formula written in PyTorch (`layer_norm_backward`, ... below),
differentiated by `torch.func.jvp`, and the formula is checked against the ATen op itself
(`test_reference_formula_is_aten`). Attention's reference is the softmax written out, safe
for a row with no attended key (lse 0 and zero weights there, as ours), checked against
PyTorch's math backend and its autograd (`test_attention_reference_is_pytorch_math`).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from bool_masks import to_i1
from jvp_harness import JvpTable, random_inputs
from numeric import test_attention_ops as att
from test_jvp_sequence_families import Text, _multi_result, _ty
from test_vjp_attention import BOOL_MASK, HIGHER, torch_attention

aten = torch.ops.aten


def _op_case(name, op, shapes, results, fn):
    """`@f` of one op, returning all its `results`."""
    return _multi_result(name, op, shapes, results, None, fn)


def layer_norm_backward(k):
    def fn(dy, x, mean, rstd, w=None):
        axes, rows = tuple(range(x.dim() - k, x.dim())), tuple(range(x.dim() - k))
        xhat = (x - mean) * rstd
        g = dy if w is None else dy * w
        gx = rstd * (g - g.mean(axes, keepdim=True) - xhat * (g * xhat).mean(axes, keepdim=True))
        return gx, (dy * xhat).sum(rows), dy.sum(rows)

    return fn


def rms_norm_backward(k):
    def fn(dy, x, rstd, w=None):
        axes, rows = tuple(range(x.dim() - k, x.dim())), tuple(range(x.dim() - k))
        xhat = x * rstd
        g = dy if w is None else dy * w
        gx = rstd * (g - xhat * (g * xhat).mean(axes, keepdim=True))
        return gx if w is None else (gx, (dy * xhat).sum(rows))

    return fn


def group_norm_backward(groups):
    """Layer norm's gradient on the view [N, G, C/G * S], per channel sums over N and S."""

    def fn(dy, x, mean, rstd, w=None):
        n, c = x.shape[:2]
        view = lambda v: v.reshape(n, groups, -1)  # noqa: E731
        w_full = None if w is None else w.reshape(1, c, *[1] * (x.dim() - 2)).expand(x.shape)
        gx, _, _ = layer_norm_backward(1)(view(dy), view(x), mean[..., None], rstd[..., None],
                                          None if w is None else view(w_full))
        xhat = (view(x) - mean[..., None]) * rstd[..., None]
        per_channel = lambda v: v.reshape(x.shape).transpose(0, 1).reshape(c, -1).sum(1)  # noqa: E731
        return gx.reshape(x.shape), per_channel(dy * xhat.reshape(x.shape)), per_channel(dy)

    return fn


def _per_channel(v, x):
    return v.reshape(1, -1, *[1] * (x.dim() - 2))


def _channel_sums(dy, x, xhat):
    axes = (0, *range(2, x.dim()))
    return (dy * xhat).sum(axes), dy.sum(axes)


def batch_norm_backward(dy, x, w, mean, invstd):
    axes = (0, *range(2, x.dim()))
    n = x.numel() // x.shape[1]
    xhat = (x - _per_channel(mean, x)) * _per_channel(invstd, x)
    s1, s2 = dy.sum(axes, keepdim=True), (dy * xhat).sum(axes, keepdim=True)
    gx = _per_channel(invstd * w, x) * (dy - s1 / n - xhat * s2 / n)
    return (gx, *_channel_sums(dy, x, xhat))


def batch_norm_inference_backward(eps):
    def fn(dy, x, rm, rv, w=None):
        s = _per_channel((rv + eps).rsqrt(), x)
        xhat = (x - _per_channel(rm, x)) * s
        gx = dy * s if w is None else dy * s * _per_channel(w, x)
        return (gx, *_channel_sums(dy, x, xhat))

    return fn


X, ROW_STAT, W = (2, 3, 4), (2, 1, 1), (3, 4)
X1, ROW_STAT1, W1 = (3, 4), (3, 1), (4,)
NCHW, C, NC = (2, 3, 2, 2), (3,), (4, 3)
GN_X, GN_STAT, GN_C = (2, 4, 3), (2, 2), (4,)

NORM_CASES = [
    _op_case("layer_norm_backward_k2", "rlx.layer_norm_backward %a0, %a1, %a2, %a3, %a4",
             (X, X, ROW_STAT, ROW_STAT, W), (X, W, W), layer_norm_backward(2)),
    _op_case("layer_norm_backward_k1", "rlx.layer_norm_backward %a0, %a1, %a2, %a3, %a4",
             (X1, X1, ROW_STAT1, ROW_STAT1, W1), (X1, W1, W1), layer_norm_backward(1)),
    _op_case("rms_norm_backward_k2_weight", "rlx.rms_norm_backward %a0, %a1, %a2 weight %a3 normalized_rank 2",
             (X, X, ROW_STAT, W), (X, W), rms_norm_backward(2)),
    _op_case("rms_norm_backward_k1", "rlx.rms_norm_backward %a0, %a1, %a2 normalized_rank 1",
             (X, X, (2, 3, 1)), (X,), rms_norm_backward(1)),
    _op_case("group_norm_backward_g2_weight", "rlx.group_norm_backward %a0, %a1, %a2, %a3 weight %a4 groups 2",
             (GN_X, GN_X, GN_STAT, GN_STAT, GN_C), (GN_X, GN_C, GN_C), group_norm_backward(2)),
    _op_case("group_norm_backward_g1_2d", "rlx.group_norm_backward %a0, %a1, %a2, %a3 groups 1",
             (NCHW, NCHW, (2, 1), (2, 1)), (NCHW, C, C), group_norm_backward(1)),
    _op_case("batch_norm_backward_2d", "rlx.batch_norm_backward %a0, %a1, %a2, %a3, %a4 eps 1.0e-05",
             (NCHW, NCHW, C, C, C), (NCHW, C, C), batch_norm_backward),
    _op_case("batch_norm_backward_nc", "rlx.batch_norm_backward %a0, %a1, %a2, %a3, %a4 eps 1.0e-05",
             (NC, NC, C, C, C), (NC, C, C), batch_norm_backward),
    _op_case("batch_norm_inference_backward_weight",
             "rlx.batch_norm_inference_backward %a0, %a1, %a2, %a3 weight %a4 eps 1.0e-03",
             (NCHW, NCHW, C, C, C), (NCHW, C, C), batch_norm_inference_backward(1e-3)),
    _op_case("batch_norm_inference_backward", "rlx.batch_norm_inference_backward %a0, %a1, %a2, %a3 eps 1.0e-03",
             (NCHW, NCHW, C, C), (NCHW, C, C), batch_norm_inference_backward(1e-3)),
]
POSITIVE = {"batch_norm_inference_backward_weight": (3,), "batch_norm_inference_backward": (3,)}
"""The running variance, drawn from [0.5, 2.5)."""

ATEN = {
    "layer_norm_backward_k2": lambda dy, x, m, r, w: aten.native_layer_norm_backward(dy, x, W, m, r, w, w, [True] * 3),
    "layer_norm_backward_k1": lambda dy, x, m, r, w: aten.native_layer_norm_backward(dy, x, W1, m, r, w, w, [True] * 3),
    "rms_norm_backward_k2_weight": lambda dy, x, r, w: _rms_norm_autograd(dy, x, w, 2),
    "rms_norm_backward_k1": lambda dy, x, r: _rms_norm_autograd(dy, x, None, 1)[0],
    "group_norm_backward_g2_weight": lambda dy, x, m, r, w: aten.native_group_norm_backward(dy, x, m, r, w, 2, 4, 3, 2, [True] * 3),
    "group_norm_backward_g1_2d":
        lambda dy, x, m, r: aten.native_group_norm_backward(dy, x, m, r, torch.ones(3, dtype=x.dtype), 2, 3, 4, 1, [True] * 3),
    "batch_norm_backward_2d": lambda dy, x, w, m, s: aten.native_batch_norm_backward(dy, x, w, None, None, m, s, True, 1e-5, [True] * 3),
    "batch_norm_backward_nc": lambda dy, x, w, m, s: aten.native_batch_norm_backward(dy, x, w, None, None, m, s, True, 1e-5, [True] * 3),
    "batch_norm_inference_backward_weight":
        lambda dy, x, rm, rv, w: aten.native_batch_norm_backward(dy, x, w, rm, rv, None, None, False, 1e-3, [True] * 3),
    "batch_norm_inference_backward":
        lambda dy, x, rm, rv: aten.native_batch_norm_backward(dy, x, None, rm, rv, None, None, False, 1e-3, [True] * 3),
}
"""Each case's ATen op, on the same operands (the statistics of any value: ATen reads them as
given); RMS norm's (CPU has no `_fused_rms_norm_backward`) is F.rms_norm's autograd, whose rstd
is x's own, so `test_reference_formula_is_aten` passes x's rstd to that formula."""


def _rms_norm_autograd(dy, x, w, k):
    """F.rms_norm's (x, w) gradients by autograd (the decomposition ATen runs on CPU)."""
    leaves = [x.clone().requires_grad_(True), *([] if w is None else [w.clone().requires_grad_(True)])]
    y = F.rms_norm(leaves[0], x.shape[x.dim() - k:], leaves[1] if w is not None else None, eps=1e-5)
    return torch.autograd.grad(y, leaves, dy)


def _own_rstd(name, inputs):
    """The RMS norm cases' rstd operand replaced by x's own (the autograd reference's)."""
    if not name.startswith("rms_norm"):
        return inputs
    k = 2 if "_k2" in name else 1
    x = inputs[1]
    inputs[2] = ((x * x).mean(tuple(range(x.dim() - k, x.dim())), keepdim=True) + 1e-5).rsqrt()
    return inputs


def _attention_source(case: att.Case, backward: bool) -> str:
    """@f([mask as i8,] q, k, v[, bias]) -> (out, lse), or @f(dout, q, k, v, out, lse, ...) ->
    (dq, dk, dv[, dbias]) for `backward`."""
    q, k, v, out, lse = case.types()
    params, operand, mask_type, body = [], "", [], ""
    if case.mask == "bias":
        bias = case.ty(*case.mask_shape)
        operand, mask_type, trailing = " mask %m", [bias], [f"%m: {bias}"]
    else:
        trailing = []
        if case.mask == "bool":
            body, name = to_i1("m", case.mask_shape)
            operand, mask_type = f" mask %{name}", [_ty(case.mask_shape, "i1")]
            params = [f"%m: {_ty(case.mask_shape, 'i8')}"]
    if backward:
        params += [f"%do: {out}", f"%q: {q}", f"%k: {k}", f"%v: {v}", f"%out: {out}", f"%l: {lse}", *trailing]
        results = [q, k, v, *mask_type[:1]] if case.mask == "bias" else [q, k, v]
        names = ", ".join(["%dq", "%dk", "%dv", "%db"][: len(results)])
        line = (f"  {names} = rlx.attention_backward %do, %q, %k, %v, %out, %l{operand}{case.attrs()}"
                f" : ({', '.join([out, q, k, v, out, lse, *mask_type])}) -> ({', '.join(results)})\n")
    else:
        params += [f"%q: {q}", f"%k: {k}", f"%v: {v}", *trailing]
        results, names = [out, lse], "%o, %l"
        line = (f"  {names} = rlx.attention %q, %k, %v{operand}{case.attrs()}"
                f" : ({', '.join([q, k, v, *mask_type])}) -> ({out}, {lse})\n")
    return (f"func.func @f({', '.join(params)}) -> ({', '.join(results)}) {{\n{body}{line}"
            f"  return {names} : {', '.join(results)}\n}}\n")




def _scores(case: att.Case, q, k, bias):
    """scale q k^T [+ bias], -inf where a key is not attended, and the kv heads repeated."""
    g = case.h // case.hkv
    kk = k.repeat_interleave(g, dim=1)
    s = case.scale_value * q @ kk.transpose(-1, -2)
    keep = case.attended()
    if case.mask == "bool":
        given = torch.from_numpy(BOOL_MASK != 0)
        keep = given if keep is None else keep & given
    if bias is not None:
        s = s + bias
    return s if keep is None else s.masked_fill(~keep, float("-inf"))


def _safe_softmax(s):
    """(P, lse) of the rows of s, P = 0 and lse = 0 in a row of -inf only (ours)."""
    top = s.amax(-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top).detach()
    e = torch.exp(s - top)
    z = e.sum(-1, keepdim=True)
    attended = z > 0
    p = e / torch.where(attended, z, torch.ones_like(z))
    lse = torch.where(attended, top + torch.log(torch.where(attended, z, torch.ones_like(z))), torch.zeros_like(z))
    return p, lse[..., 0]


def attention_reference(case: att.Case):
    def fn(*args):
        q, k, v, *bias = args[1:] if case.mask == "bool" else args
        p, lse = _safe_softmax(_scores(case, q, k, bias[0] if bias else None))
        return p @ v.repeat_interleave(case.h // case.hkv, dim=1), lse

    return fn


def attention_backward_reference(case: att.Case):
    """ATen's flash backward from (dout, q, k, v, out, lse[, bias]), each an independent input."""

    def fn(*args):
        dout, q, k, v, out, lse, *bias = args[1:] if case.mask == "bool" else args
        g = case.h // case.hkv
        p = torch.exp(_scores(case, q, k, bias[0] if bias else None) - lse[..., None])
        kv_heads = lambda t: t.reshape(case.b, case.hkv, g, *t.shape[2:]).sum(2)  # noqa: E731
        dv = kv_heads(p.transpose(-1, -2) @ dout)
        ds = p * (dout @ v.repeat_interleave(g, dim=1).transpose(-1, -2) - (dout * out).sum(-1, keepdim=True))
        dq = case.scale_value * ds @ k.repeat_interleave(g, dim=1)
        dk = kv_heads(case.scale_value * ds.transpose(-1, -2) @ q)
        if not bias:
            return dq, dk, dv
        dbias = ds.sum(tuple(range(ds.dim() - bias[0].dim())))  # the broadcast's leading dims
        ones = tuple(i for i, size in enumerate(bias[0].shape) if size == 1)
        return dq, dk, dv, dbias.sum(ones, keepdim=True) if ones else dbias

    return fn


ATTENTION = [case for case in HIGHER if case.dtype == "f64"]
"""The reverse mode's higher-order cases (`test_vjp_attention.HIGHER`), in f64."""


def _attention_shapes(case: att.Case, backward: bool):
    q, k, v = (case.b, case.h, case.l, case.e), (case.b, case.hkv, case.s, case.e), (case.b, case.hkv, case.s, case.ev)
    out = (case.b, case.h, case.l, case.ev)
    shapes = [out, q, k, v, out, (case.b, case.h, case.l)] if backward else [q, k, v]
    leading = [BOOL_MASK] if case.mask == "bool" else []
    return tuple(leading + shapes + ([case.mask_shape] if case.mask == "bias" else []))


ATTENTION_CASES = [
    Text(f"{'attention_backward' if backward else 'attention'}_{case.symbol}", _attention_source(case, backward),
         _attention_shapes(case, backward), (attention_backward_reference if backward else attention_reference)(case))
    for case in ATTENTION
    for backward in (False, True)
]

TABLE = JvpTable([*NORM_CASES, *ATTENTION_CASES])


@pytest.mark.parametrize("name", [case.name for case in NORM_CASES])
def test_norm_gradient_jvp_matches_pytorch(name):
    TABLE.check(name, POSITIVE.get(name, ()))


@pytest.mark.parametrize("name", [case.name for case in ATTENTION_CASES])
def test_attention_jvp_matches_pytorch(name):
    TABLE.check(name)


@pytest.mark.parametrize("case", NORM_CASES, ids=lambda case: case.name)
def test_reference_formula_is_aten(case):
    inputs = _own_rstd(case.name, [torch.tensor(a) for a in random_inputs(case.shapes, POSITIVE.get(case.name, ()), seed=0)])
    want, got = ATEN[case.name](*inputs), case.fn(*inputs)
    want, got = (v if isinstance(v, tuple) else (v,) for v in (want, got))
    assert len(want) == len(got), case.name
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ATTENTION, ids=str)
def test_attention_reference_is_pytorch_math(case):
    """The forward against the math backend (its safe softmax zeroes an empty row), and the
    backward reference, fed the forward's out and lse, against the math backend's autograd."""
    leading = [torch.from_numpy(BOOL_MASK)] if case.mask == "bool" else []
    q, k, v, *bias = [torch.tensor(a, requires_grad=True) for a in random_inputs(_attention_shapes(case, False)[len(leading):], seed=0)]
    dout = torch.randn(case.b, case.h, case.l, case.ev, dtype=torch.float64)
    want = torch_attention(case)(q, k, v, *bias)
    wants = torch.autograd.grad(want, [q, k, v, *bias], dout)
    out, lse = attention_reference(case)(*leading, q, k, v, *bias)
    torch.testing.assert_close(out, want, rtol=1e-12, atol=1e-12)
    grads = attention_backward_reference(case)(*leading, dout, q, k, v, out, lse, *bias)
    for g, w in zip(grads, wants):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-12)
