"""The attention ops, lowered by both passes and run natively, against PyTorch 2.13 (CPU).

Oracle: `F.scaled_dot_product_attention` (default CPU path) in float64 on our inputs
upcast, its logsumexp from `aten._scaled_dot_product_flash_attention_for_cpu`, and the
gradients from autograd through F.scaled_dot_product_attention. PyTorch has no sliding
window: its oracle is the same window as a boolean `attn_mask`. GQA is `enable_gqa=True`.

Error bound (`oracle.assert_within_bound`, k = 16): with P the attention weights (each
row sums to 1, all >= 0) and the scores' magnitude |s| = scale |q| |k|^T, an error of
u |s| in a score moves P relatively by as much, so
- A(out) = P |v| (1 + max_j |s|), per row;
- A(lse) = 1 + max_j |s|;
- the gradients are sums of products of those: A(dv) = P^T |dout| (1 + max|s|),
  A(dq) = scale |dS| |k| with |dS| = P (|dp| + |D|) (1 + max|s|), A(dk) likewise with q.
Rows the mask leaves empty must be exactly 0, as PyTorch gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_within_bound, tensor_type
from rlx_mlir.api import lower_to_linalg

aten = torch.ops.aten
DTYPES = {"f32": np.float32, "f64": np.float64}


@dataclass(frozen=True)
class Case:
    b: int = 2
    h: int = 2
    hkv: int = 2
    l: int = 5
    s: int = 7
    e: int = 4
    ev: int = 4
    causal: bool = False
    window: int = 0
    dtype: str = "f32"
    dynamic: bool = False
    """A dynamic batch (`?`): the case runs with batch sizes b and b + 1."""
    scale: float | None = None
    """None: PyTorch's default, 1/sqrt(E)."""
    mask: str = ""
    """"bool" (an i1 mask, made in the function from a 0/1 float argument, so that the
    IREE kernels take floats too) or "bias" (an additive float mask, whose gradient is checked)."""
    mask_shape: tuple = ()
    """The mask's shape, broadcastable to [B, H, L, S]."""

    def __str__(self) -> str:
        mask = ("_causal" if self.causal else "") + (f"_window{self.window}" if self.window else "")
        scale = f"_scale{self.scale:g}" if self.scale is not None else ""
        if self.mask:
            mask += f"_{self.mask}{'x'.join(map(str, self.mask_shape))}"
        return (f"attention_b{self.b}{'dyn' if self.dynamic else ''}_h{self.h}kv{self.hkv}_l{self.l}_s{self.s}"
                f"_e{self.e}ev{self.ev}{mask}{scale}_{self.dtype}")

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]

    @property
    def scale_value(self) -> float:
        return self.scale if self.scale is not None else 1.0 / self.e ** 0.5

    def ty(self, *shape) -> str:
        return tensor_type(shape, self.np_dtype, self.dynamic)

    def types(self):
        q, k = self.ty(self.b, self.h, self.l, self.e), self.ty(self.b, self.hkv, self.s, self.e)
        v, out = self.ty(self.b, self.hkv, self.s, self.ev), self.ty(self.b, self.h, self.l, self.ev)
        return q, k, v, out, self.ty(self.b, self.h, self.l)

    def attrs(self) -> str:
        return (f" scale {self.scale_value!r}" + (" is_causal true" if self.causal else "")
                + (f" window {self.window}" if self.window else ""))

    def mask_parts(self) -> tuple[str, str, str, list[str]]:
        """(the function's mask parameter, the body that makes the mask operand, the op's
        ` mask %m`, the mask operand's type as a list) for this case's mask kind."""
        if not self.mask:
            return "", "", "", []
        given = tensor_type(self.mask_shape, self.np_dtype)
        if self.mask == "bias":
            return f", %m: {given}", "", " mask %m", [given]
        rank = len(self.mask_shape)
        bools = given.replace(self.dtype, "i1")
        parallel = ", ".join(['"parallel"'] * rank)
        identity = f"affine_map<({', '.join(f'd{i}' for i in range(rank))}) -> ({', '.join(f'd{i}' for i in range(rank))})>"
        body = (
            f"  %e = tensor.empty() : {bools}\n"
            f"  %mb = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [{parallel}]}}"
            f" ins(%m : {given}) outs(%e : {bools}) {{\n"
            f"  ^bb0(%x: {self.dtype}, %_: i1):\n"
            f"    %zero = arith.constant 0.0 : {self.dtype}\n"
            f"    %keep = arith.cmpf one, %x, %zero : {self.dtype}\n"
            f"    linalg.yield %keep : i1\n"
            f"  }} -> {bools}\n"
        )
        return f", %m: {given}", body, " mask %mb", [bools]

    def forward_text(self) -> str:
        q, k, v, out, lse = self.types()
        param, body, operand, mask_type = self.mask_parts()
        operands = ", ".join([q, k, v, *mask_type])
        return (
            f"func.func @fwd_{self.symbol}(%q: {q}, %k: {k}, %v: {v}{param}) -> ({out}, {lse}) {{\n{body}"
            f"  %o, %l = rlx.attention %q, %k, %v{operand}{self.attrs()} : ({operands}) -> ({out}, {lse})\n"
            f"  return %o, %l : {out}, {lse}\n}}\n"
        )

    def backward_text(self) -> str:
        q, k, v, out, lse = self.types()
        param, body, operand, mask_type = self.mask_parts()
        grads = [q, k, v, *(mask_type if self.mask == "bias" else [])]
        names = ", ".join(["%dq", "%dk", "%dv", "%db"][: len(grads)])
        return (
            f"func.func @bwd_{self.symbol}(%do: {out}, %q: {q}, %k: {k}, %v: {v}, %o: {out}, %l: {lse}{param})"
            f" -> ({', '.join(grads)}) {{\n{body}"
            f"  {names} = rlx.attention_backward %do, %q, %k, %v, %o, %l{operand}{self.attrs()}"
            f" : ({', '.join([out, q, k, v, out, lse, *mask_type])}) -> ({', '.join(grads)})\n"
            f"  return {names} : {', '.join(grads)}\n}}\n"
        )

    def batches(self) -> list[int]:
        return [self.b, self.b + 1] if self.dynamic else [self.b]

    def qkv(self, rng, n):
        """q, k, v and (for a masked case) the mask: a bias of standard normals, or 0/1 keep
        flags (a third dropped); either with its first row masked throughout, a row with
        no attended key."""
        shapes = [(n, self.h, self.l, self.e), (n, self.hkv, self.s, self.e), (n, self.hkv, self.s, self.ev)]
        inputs = [rng.standard_normal(shape).astype(self.np_dtype) for shape in shapes]
        if self.mask:
            if self.mask == "bias":
                m = rng.standard_normal(self.mask_shape)
                m[..., 0, :] = -np.inf
            else:
                m = (rng.uniform(size=self.mask_shape) > 1 / 3).astype(np.float64)
                m[..., 0, :] = 0.0
            inputs.append(m.astype(self.np_dtype))
        return inputs

    def torch_mask(self, mask: torch.Tensor | None) -> torch.Tensor | None:
        """PyTorch's attn_mask: the case's mask (bool or bias) and its causal/window keys in one."""
        keep = self.attended()
        if mask is None:
            return keep
        if self.mask == "bias":
            return mask if keep is None else mask.masked_fill(~keep, float("-inf"))
        return (mask != 0) if keep is None else (mask != 0) & keep

    def attended(self) -> torch.Tensor | None:
        """The [L, S] boolean mask of attended keys, or None for every key."""
        if not self.causal and not self.window:
            return None
        i = torch.arange(self.l)[:, None]
        j = torch.arange(self.s)[None, :]
        keep = j <= i
        if self.window:
            keep &= j > i - self.window
        return keep

    def torch_forward(self, q, k, v, mask=None):
        """F.scaled_dot_product_attention, and the weights P and the scores s (for the bounds)."""
        attn_mask = self.torch_mask(mask)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=self.scale_value,
                                             enable_gqa=self.h != self.hkv)
        g = self.h // self.hkv
        kk, vv = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
        s = self.scale_value * q @ kk.transpose(-1, -2)
        s_abs = s.abs()
        if attn_mask is not None and attn_mask.dtype == torch.bool:
            s = s.masked_fill(~attn_mask, float("-inf"))
        elif attn_mask is not None:
            s, s_abs = s + attn_mask, s_abs + attn_mask.abs()
        s_abs = s_abs.masked_fill(torch.isinf(s), 0.0).detach()
        lse = torch.logsumexp(s, dim=-1)
        empty = torch.isinf(lse)
        p = torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)
        lse = torch.where(empty, torch.zeros_like(lse), lse)
        cond = 1 + s_abs.amax(dim=-1, keepdim=True)
        return out, lse, p, cond, kk, vv

    def check_forward(self, function) -> None:
        """`function(q, k, v[, mask]) -> (out, lse)` against PyTorch, on every batch size."""
        rng = np.random.default_rng(0)
        for n in self.batches():
            inputs = self.qkv(rng, n)
            out, lse = function(*inputs)
            want, want_lse, p, cond, _, vv = self.torch_forward(*map(_t, inputs))
            assert_within_bound(out, want, (p @ vv.abs()) * cond, dtype=self.np_dtype, label=f"{self}:out")
            assert_within_bound(lse, want_lse, cond[..., 0], dtype=self.np_dtype, label=f"{self}:lse")

    def gradients(self, inputs, dout):
        """PyTorch's (dq, dk, dv[, dbias]) for cotangent `dout`, its (out, lse), and the
        bounds' A of each gradient."""
        q, k, v = (_t(a).requires_grad_() for a in inputs[:3])
        mask = _t(inputs[3]).requires_grad_(self.mask == "bias") if self.mask else None
        differentiated = (q, k, v, mask) if self.mask == "bias" else (q, k, v)
        out, lse, p, cond, kk, vv = self.torch_forward(q, k, v, mask)
        wants = torch.autograd.grad(out, differentiated, _t(dout))
        do, out, p, cond = _t(dout).abs(), out.detach(), p.detach(), cond.detach()
        ds = p * (do @ vv.detach().abs().transpose(-1, -2) + (do * out.abs()).sum(-1, keepdim=True)) * cond
        group = lambda x: x.unflatten(1, (self.hkv, self.h // self.hkv)).sum(2)  # noqa: E731
        magnitudes = (
            self.scale_value * ds @ kk.detach().abs(),
            group(self.scale_value * ds.transpose(-1, -2) @ q.detach().abs()),
            group((p * cond).transpose(-1, -2) @ do),
            ds.sum_to_size(self.mask_shape) if self.mask == "bias" else None,
        )
        return wants, (out, lse.detach()), magnitudes

    def check_backward(self, function) -> None:
        """`function(dout, q, k, v, out, lse[, mask]) -> (dq, dk, dv[, dbias])` against
        autograd, fed PyTorch's out and lse."""
        rng = np.random.default_rng(1)
        for n in self.batches():
            inputs = self.qkv(rng, n)
            dout = rng.standard_normal((n, self.h, self.l, self.ev)).astype(self.np_dtype)
            wants, saved, magnitudes = self.gradients(inputs, dout)
            got = function(dout, *inputs[:3], *(t.numpy().astype(self.np_dtype) for t in saved), *inputs[3:])
            self.assert_gradients(got, wants, magnitudes)

    def assert_gradients(self, got, wants, magnitudes) -> None:
        for name, got_, want, a in zip(("dq", "dk", "dv", "dbias"), got, wants, magnitudes):
            assert_within_bound(got_, want, a, dtype=self.np_dtype, label=f"{self}:{name}")


def _t(a) -> torch.Tensor:
    return torch.from_numpy(np.asarray(a, np.float64))


BOOL_MASK_CASES = [
    Case(mask="bool", mask_shape=(5, 7)),
    Case(mask="bool", mask_shape=(2, 1, 5, 70), s=70, causal=True),
]
"""Boolean masks: run natively (the backend stores the i1 mask as bytes) and by IREE
(`tests/iree_families.py`)."""

CASES = [
    Case(),
    Case(dtype="f64"),
    Case(causal=True),
    Case(causal=True, dtype="f64", l=9, s=4),
    Case(l=1, s=5, causal=True),
    Case(h=4, hkv=2, ev=3, causal=True),
    Case(dynamic=True, causal=True, scale=0.3),
    Case(l=6, s=70, e=8, ev=8, causal=True),
    Case(l=8, s=3, window=2),
    Case(l=8, s=8, window=3, h=4, hkv=1, dtype="f64"),
    Case(mask="bias", mask_shape=(5, 7)),
    Case(mask="bias", mask_shape=(1, 4, 5, 1), h=4, dynamic=True),
    Case(mask="bias", mask_shape=(1, 5, 70), s=70, window=4, dtype="f64"),
    Case(mask="bias", mask_shape=(2, 4, 5, 7), h=4, hkv=1),
    *BOOL_MASK_CASES,
]


@pytest.fixture(scope="module")
def attention_module():
    import rlx_mlir

    return rlx_mlir.compile("".join(case.forward_text() + case.backward_text() for case in CASES))


def test_case_ids_are_unique():
    assert len({str(c) for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_attention_matches_pytorch(case, attention_module):
    case.check_forward(attention_module[f"fwd_{case.symbol}"])


@pytest.mark.parametrize("case", CASES, ids=str)
def test_attention_backward_matches_pytorch(case, attention_module):
    case.check_backward(attention_module[f"bwd_{case.symbol}"])


@pytest.mark.parametrize("small, large", [
    (Case(causal=True, s=70), Case(b=8, h=8, hkv=2, l=300, s=1000, e=64, ev=32, causal=True)),
    (Case(window=2, s=65), Case(b=3, h=4, hkv=4, l=9, s=500, e=16, ev=16, window=7)),
], ids=["causal", "window"])
def test_lowered_ir_does_not_grow_with_the_data(small, large):
    """One loop over key blocks whatever B, H, L, S and E are (S > 64 pads the tail: the
    same ops as any S that is not a whole number of blocks)."""
    def op_count(case: Case) -> int:
        text = (case.forward_text() + case.backward_text()).replace(case.symbol, "f")
        return sum(1 for _ in lower_to_linalg(text).walk())

    assert op_count(small) == op_count(large)
