"""The VJP of `rlx.attention` (the flash backward, `rlx.attention_backward`), against
PyTorch autograd through F.scaled_dot_product_attention.

The autodiff pass builds the VJP function; its backward reads the output and logsumexp of
our own forward (a training step's pair), not PyTorch's. The bounds are the numeric test's
(`tests/numeric/test_attention_ops.py`): a sum-of-products model in which each weight P
carries a relative error of u (1 + max |s|); a bias gets its gradient too.

The higher orders (`rlx.attention_backward`'s rule, and the cotangent of the logsumexp)
differentiate the attention math written as RLX ops; their oracle is PyTorch's math
backend (`SDPBackend.MATH`) differentiated by autograd, `vjp_harness.check` applied at
orders 1 to 3, the logsumexp PyTorch's `logsumexp` of the same masked scores. Their
bound is HIGHER_ULPS eps of each gradient's largest magnitude: the weights' relative
error u (1 + max |s|) (|s| < 4 here) carried through a few sums of at most S E products;
the measured worst is about 5 eps (orders 1 and 2, f32 and f64).
A row with no attended key (the window past the keys' end, a boolean mask's empty row)
gives 0 at every order, as PyTorch's math backend does.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from bool_masks import compile_fused, tensor, to_i1
from numeric import test_attention_ops as att
from vjp_harness import check, differentiated, ours

HIGHER_ULPS = 64

CASES = [
    att.Case(h=4, hkv=2, l=5, s=7, ev=3, causal=True),
    att.Case(l=8, s=3, window=2, dtype="f64"),
    att.Case(l=3, s=70, e=8, ev=8),
    att.Case(mask="bias", mask_shape=(2, 1, 5, 7), h=4, hkv=2, causal=True),
]


def source(case: att.Case, with_lse: bool = False) -> str:
    """@f([mask,] q, k, v[, bias]) -> out, the forward with its logsumexp unused; or, `with_lse`,
    out + lse (lse broadcast over the head dim). A boolean mask comes first, as i8."""
    q, k, v, out, lse = case.types()
    operand, mask_type, params, body = "", [], [f"%q: {q}", f"%k: {k}", f"%v: {v}"], ""
    if case.mask == "bias":
        bias = case.ty(*case.mask_shape)
        operand, mask_type, params = " mask %m", [bias], [*params, f"%m: {bias}"]
    elif case.mask == "bool":
        body, name = to_i1("m", case.mask_shape)
        operand, mask_type = f" mask %{name}", [tensor(case.mask_shape, "i1")]
        params = [f"%m: {tensor(case.mask_shape, 'i8')}", *params]
    result = "%o"
    if with_lse:
        column = case.ty(case.b, case.h, case.l, 1)
        body_lse = (f"  %lc = rlx.reshape %l : ({lse}) -> {column}\n"
                    f"  %y = rlx.add %o, %lc : ({out}, {column}) -> {out}\n")
        result = "%y"
    return (
        f"func.func @f({', '.join(params)}) -> {out} {{\n{body}"
        f"  %o, %l = rlx.attention %q, %k, %v{operand}{case.attrs()} : ({', '.join([q, k, v, *mask_type])}) -> ({out}, {lse})\n"
        + (body_lse if with_lse else "")
        + f"  return {result} : {out}\n}}\n"
    )


@pytest.mark.parametrize("case", CASES, ids=str)
def test_attention_vjp_matches_pytorch(case):
    rng = np.random.default_rng(2)
    inputs = case.qkv(rng, case.b)
    dout = rng.standard_normal((case.b, case.h, case.l, case.ev)).astype(case.np_dtype)
    got = ours(source(case), 1)(*inputs, dout)
    wants, _, magnitudes = case.gradients(inputs, dout)
    case.assert_gradients(got, wants, magnitudes)


HIGHER = [
    att.Case(b=1, h=2, l=4, s=4, e=3, ev=3, dtype="f64"),
    att.Case(b=2, h=4, hkv=2, l=5, s=6, e=4, ev=3, causal=True, dtype="f64"),
    att.Case(b=1, h=2, l=6, s=4, e=3, ev=2, window=2, dtype="f64"),
    att.Case(b=1, h=2, l=4, s=5, e=3, ev=3, mask="bias", mask_shape=(4, 5), causal=True, dtype="f64"),
    att.Case(b=1, h=2, l=4, s=5, e=3, ev=3, mask="bool", mask_shape=(4, 5), dtype="f64"),
    att.Case(b=1, h=4, hkv=2, l=3, s=5, e=4, ev=2, mask="bias", mask_shape=(1, 4, 3, 5), dtype="f32"),
]
"""No mask; GQA with causality and L != S, E != Ev; a window whose last rows attend no key;
a bias with causality; a boolean mask with an empty row; f32 with a bias and GQA."""

BOOL_MASK = np.array([[0, 0, 0, 0, 0], [1, 0, 1, 1, 0], [1, 1, 0, 0, 1], [0, 1, 1, 1, 1]], np.int8)
"""The boolean mask of the HIGHER cases: row 0 attends no key."""


def torch_attention(case: att.Case, with_lse: bool = False):
    """PyTorch's math backend on (q, k, v[, bias]): out, or out + lse[..., None]."""
    keep = torch.from_numpy(BOOL_MASK.astype(bool)) if case.mask == "bool" else None

    def fn(q, k, v, *bias):
        mask = case.torch_mask(keep if keep is not None else (bias[0] if bias else None))
        with sdpa_kernel(SDPBackend.MATH):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=case.scale_value,
                                                 enable_gqa=case.h != case.hkv)
        if not with_lse:
            return out
        g = case.h // case.hkv
        s = case.scale_value * q @ k.repeat_interleave(g, dim=1).transpose(-1, -2)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
        return out + torch.logsumexp(s, dim=-1, keepdim=True)

    return fn


def shapes(case: att.Case):
    qkv = [(case.b, case.h, case.l, case.e), (case.b, case.hkv, case.s, case.e), (case.b, case.hkv, case.s, case.ev)]
    return qkv + ([case.mask_shape] if case.mask == "bias" else [])


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("case", HIGHER, ids=str)
def test_attention_higher_orders_match_pytorch_math(case, order):
    leading = (BOOL_MASK,) if case.mask == "bool" else ()
    check(source(case), torch_attention(case), shapes(case), case.np_dtype, order, ulps=HIGHER_ULPS,
          label=str(case), leading=leading, compiled=fused)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("case", [HIGHER[1], HIGHER[3]], ids=str)
def test_logsumexp_cotangent_matches_pytorch(case, order):
    """out + lse: the logsumexp's cotangent reaches q, k (and the bias) through the weights."""
    check(source(case, with_lse=True), torch_attention(case, with_lse=True), shapes(case), case.np_dtype, order,
          ulps=HIGHER_ULPS, label=f"{case}+lse", compiled=fused)


def test_third_order_matches_pytorch_math():
    """The second order's rules emit RLX ops only, so the third order differentiates them too."""
    case = HIGHER[1]
    check(source(case), torch_attention(case), shapes(case), case.np_dtype, 3, ulps=HIGHER_ULPS,
          label=str(case), compiled=fused)


def fused(text: str, order: int):
    module, name = differentiated(text, order)
    return compile_fused(module)[name]
