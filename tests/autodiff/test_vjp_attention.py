"""The VJP of `rlx.attention` (the flash backward, `rlx.attention_backward`), against
PyTorch autograd through F.scaled_dot_product_attention.

The autodiff pass builds the VJP function; its backward reads the output and logsumexp of
our own forward (a training step's pair), not PyTorch's. The bounds are the numeric test's
(`tests/numeric/test_attention_ops.py`): a sum-of-products model in which each weight P
carries a relative error of u (1 + max |s|); a bias gets its gradient too. The second order is refused, with a located
diagnostic, until `rlx.attention_backward` has a rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from numeric import test_attention_ops as att
from rlx_mlir.ir import DiagnosticError
from vjp_harness import differentiated, ours

CASES = [
    att.Case(h=4, hkv=2, l=5, s=7, ev=3, causal=True),
    att.Case(l=8, s=3, window=2, dtype="f64"),
    att.Case(l=3, s=70, e=8, ev=8),
    att.Case(mask="bias", mask_shape=(2, 1, 5, 7), h=4, hkv=2, causal=True),
]


def source(case: att.Case) -> str:
    """@f(q, k, v[, bias]) -> out: the forward with its logsumexp unused."""
    q, k, v, out, lse = case.types()
    param, _, operand, mask_type = case.mask_parts()
    return (
        f"func.func @f(%q: {q}, %k: {k}, %v: {v}{param}) -> {out} {{\n"
        f"  %o, %l = rlx.attention %q, %k, %v{operand}{case.attrs()} : ({', '.join([q, k, v, *mask_type])}) -> ({out}, {lse})\n"
        f"  return %o : {out}\n}}\n"
    )


@pytest.mark.parametrize("case", CASES, ids=str)
def test_attention_vjp_matches_pytorch(case):
    rng = np.random.default_rng(2)
    inputs = case.qkv(rng, case.b)
    dout = rng.standard_normal((case.b, case.h, case.l, case.ev)).astype(case.np_dtype)
    got = ours(source(case), 1)(*inputs, dout)
    wants, _, magnitudes = case.gradients(inputs, dout)
    case.assert_gradients(got, wants, magnitudes)


def test_second_order_is_refused_at_the_op():
    with pytest.raises(DiagnosticError, match="'rlx.attention_backward' op has no VJP rule yet"):
        differentiated(source(CASES[0]), 2)
