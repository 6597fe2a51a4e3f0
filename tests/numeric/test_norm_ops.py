"""The norm ops, lowered by both passes and run natively, against PyTorch 2.13 (CPU).

Oracle: the ATen ops themselves (`torch.ops.aten._native_batch_norm_legit_functional`,
`native_batch_norm_backward`, `_native_batch_norm_legit_no_training`, `native_layer_norm`,
`native_layer_norm_backward`) in float64 on our inputs upcast, and for the gradients also
`F.batch_norm` / `F.layer_norm` with autograd, against one RLX function that runs the
forward op and feeds its saved statistics to the backward op (a training step's pair).

Error bound (`oracle.assert_within_bound`, |got - want| <= k (eps + eps64) A, k = 16):
a normalization is not a sum of products with non-negative coefficients, so A is its
first-order condition, worked out from the formula. Per channel (batch norm) or row
(layer norm), with S = mean(|x|), sigma = sqrt(var + eps) and cond = S / sigma:
- the mean carries an error of a few u*S (a sum of |x|, divided by n), which shifts
  every deviation x - mean by that much, i.e. xhat by u*cond; the variance, a sum of
  squared deviations (non-negative terms), has a relative error of a few u, plus u*cond
  from the deviations' errors, so invstd's relative error is ~u*(1 + cond). Hence
  A(y) = |w| * (cond * (1 + |xhat|) + |xhat|) + |b|, A(mean) = S,
  A(invstd) = invstd * (1 + cond); the running stats add `momentum *` those to
  `(1 - momentum) * |old|` (the variance's A is `var_unbiased * (1 + cond)`).
  cond is what E[x^2] - E[x]^2 would not survive: the offset case (mean 1000, std 1) has
  cond ~ 1000, where that formula loses every digit of the f32 variance (an error of
  ~1e6 u) and ours stays within 16 (1 + cond) u.
- eval mode: A(y) = |w| * invstd * (|x| + |running_mean|) (1 + small) + |b|.
- the gradients are sums of products: A(dbias) = sum |dy|, A(dweight) = invstd * sum |dy|
  |x - mean|, A(dx) = |w| invstd (|dy| + mean|dy| + |xhat| mean(|dy| |xhat|)) (layer
  norm: with g = dy * w in place of dy); for the training-step pair, whose backward reads
  our own saved statistics, each of those is multiplied by (1 + cond).
Measured worst |got - want| / ((eps + eps64) A) over this module: 1.6 in f32 (the
running mean of the offset batch norm) and 0.63 in f64 (dweight of a layer norm
backward), so k = 16 leaves 10x.
Non-finite values (n = 1: the unbiased running variance 0/0; a NaN in x) must sit where
PyTorch has them.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_within_bound, tensor_type
from rlx_mlir.backend.toolchain import find_tool

aten = torch.ops.aten
DTYPES = {"f32": np.float32, "f64": np.float64}


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.asarray(a, np.float64))


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    shape: tuple[int, ...]
    dtype: str = "f32"
    dynamic: bool = False
    """A dynamic batch (`?`): the case runs with batch sizes shape[0] and shape[0] + 2."""
    offset: float = 0.0
    """Added to x: a large mean against a unit spread (the stable-variance case)."""
    nan: bool = False
    """One NaN in x: its channel (row) is NaN throughout, as in PyTorch."""

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]

    @property
    def element(self) -> str:
        return self.dtype

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    def ty(self, shape, batched: bool = True) -> str:
        return tensor_type(shape, self.np_dtype, self.dynamic and batched)

    def batches(self) -> list[int]:
        return [self.shape[0], self.shape[0] + 2] if self.dynamic else [self.shape[0]]

    def x(self, rng, n: int) -> np.ndarray:
        x = rng.standard_normal((n, *self.shape[1:])) + self.offset
        if self.nan:
            x.flat[x.size // 2] = np.nan
        return x.astype(self.np_dtype)

    def tail(self) -> str:
        return f"{'dyn' if self.dynamic else ''}{f'_off{self.offset:g}' if self.offset else ''}{'_nan' if self.nan else ''}_{self.dtype}"

    def function(self, params: list[tuple[str, str]], body: str, results: list[tuple[str, str]]) -> str:
        args = ", ".join(f"%{name}: {ty}" for name, ty in params)
        types = ", ".join(ty for _, ty in results)
        values = ", ".join(f"%{name}" for name, _ in results)
        return f"func.func @{self.symbol}({args}) -> ({types}) {{\n{body}  return {values} : {types}\n}}\n"


def _float(value: float) -> str:
    """An MLIR float literal (it needs a point: `1.0e-05`, not Python's `1e-05`), exact."""
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")


def _op(name: str, operands: list[str], types: list[str], results: list[str], result_types: list[str], attrs: str = "") -> str:
    return (
        f"  {', '.join('%' + r for r in results)} = {name} {', '.join('%' + o for o in operands)}{attrs}"
        f" : ({', '.join(types)}) -> ({', '.join(result_types)})\n"
    )


def _channel_stats(x: torch.Tensor):
    """mean, S = mean |x|, biased var, unbiased var per channel of [N, C, *s], each [C]."""
    dims = [0, *range(2, x.dim())]
    mean = x.mean(dim=dims)
    return mean, x.abs().mean(dim=dims), x.var(dim=dims, unbiased=False), dims


def _channel(v: torch.Tensor, rank: int) -> torch.Tensor:
    return v.reshape(1, -1, *(1,) * (rank - 2))


def _y_magnitude(w, b, xhat, cond):
    return w.abs() * (cond * (1 + xhat.abs()) + xhat.abs()) + b.abs()


@dataclass(frozen=True)
class BatchNorm(Case):
    momentum: float = 0.1
    eps: float = 1e-5

    def __str__(self) -> str:
        return f"batch_norm_{'x'.join(map(str, self.shape))}_m{self.momentum:g}_e{self.eps:g}{self.tail()}"

    def attrs(self) -> str:
        return f" momentum {_float(self.momentum)} eps {_float(self.eps)}"

    def text(self) -> str:
        c = self.shape[1]
        xt, ct = self.ty(self.shape), self.ty((c,), batched=False)
        return self.function(
            [("x", xt), ("w", ct), ("b", ct), ("rm", ct), ("rv", ct)],
            _op("rlx.batch_norm", ["x", "w", "b", "rm", "rv"], [xt, *[ct] * 4],
                ["y", "mean", "invstd", "nrm", "nrv"], [xt, *[ct] * 4], self.attrs()),
            [("y", xt), ("mean", ct), ("invstd", ct), ("nrm", ct), ("nrv", ct)],
        )

    def inputs(self, rng, n):
        c = self.shape[1]
        return [self.x(rng, n), *(rng.standard_normal(c).astype(self.np_dtype) for _ in range(3)),
                rng.uniform(0.5, 2.0, c).astype(self.np_dtype)]

    def check(self, got, inputs):
        x, w, b, rm, rv = map(_t, inputs)
        want = aten._native_batch_norm_legit_functional(x, w, b, rm, rv, True, self.momentum, self.eps)
        mean, s, var, dims = _channel_stats(x)
        rank = x.dim()
        invstd = 1 / torch.sqrt(var + self.eps)
        cond = s * invstd
        xhat = (x - _channel(mean, rank)) * _channel(invstd, rank)
        count = x.numel() // x.shape[1]
        unbiased = var * count / (count - 1) if count > 1 else torch.full_like(var, float("nan"))
        m = self.momentum
        magnitudes = [
            _y_magnitude(_channel(w, rank), _channel(b, rank), xhat, _channel(cond, rank)),
            s,
            invstd * (1 + cond),
            m * s + (1 - m) * rm.abs(),
            m * unbiased.abs() * (1 + cond) + (1 - m) * rv.abs(),
        ]
        for name, g, want_, a in zip(("y", "save_mean", "save_invstd", "running_mean", "running_var"), got, want, magnitudes):
            assert_within_bound(g, want_, torch.nan_to_num(a, nan=0.0), dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class BatchNormInference(Case):
    eps: float = 1e-5

    def __str__(self) -> str:
        return f"batch_norm_inference_{'x'.join(map(str, self.shape))}_e{self.eps:g}{self.tail()}"

    def text(self) -> str:
        c = self.shape[1]
        xt, ct = self.ty(self.shape), self.ty((c,), batched=False)
        return self.function(
            [("x", xt), ("w", ct), ("b", ct), ("rm", ct), ("rv", ct)],
            _op("rlx.batch_norm_inference", ["x", "w", "b", "rm", "rv"], [xt, *[ct] * 4], ["y"], [xt], f" eps {_float(self.eps)}"),
            [("y", xt)],
        )

    inputs = BatchNorm.inputs

    def check(self, got, inputs):
        x, w, b, rm, rv = map(_t, inputs)
        want = aten._native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, self.eps)[0]
        rank = x.dim()
        invstd = _channel(1 / torch.sqrt(rv + self.eps), rank)
        a = _channel(w, rank).abs() * invstd * (x.abs() + _channel(rm, rank).abs()) + _channel(b, rank).abs()
        assert_within_bound(got[0], want, a, dtype=self.np_dtype, label=f"{self}:y")


def _batch_norm_grad_magnitudes(dy, x, w, mean, invstd, cond=None):
    """A(dx), A(dweight), A(dbias) of native_batch_norm_backward(train=True).

    With `cond` [C] (the statistics are our own forward's), invstd carries a relative error
    of u (1 + cond) and xhat an absolute one of u (cond + |xhat| (1 + cond)): each |xhat| and
    invstd of the sums of products is widened by that much.
    """
    rank = x.dim()
    dims = [0, *range(2, rank)]
    xhat = ((x - _channel(mean, rank)) * _channel(invstd, rank)).abs()
    factor = torch.ones_like(mean) if cond is None else 1 + cond
    if cond is not None:
        xhat = xhat * _channel(factor, rank) + _channel(cond, rank)
    mean_dy = dy.abs().mean(dim=dims)
    mean_dyx = (dy.abs() * xhat).mean(dim=dims)
    scale = _channel(w.abs() * invstd * factor, rank)
    a_dx = scale * (dy.abs() + _channel(mean_dy, rank) + xhat * _channel(mean_dyx, rank))
    a_dw = (dy.abs() * xhat).sum(dim=dims)
    a_db = dy.abs().sum(dim=dims)
    return a_dx, a_dw, a_db


@dataclass(frozen=True)
class BatchNormBackward(Case):
    """native_batch_norm_backward on ATen's own saved statistics (computed in f64, rounded)."""

    def __str__(self) -> str:
        return f"batch_norm_backward_{'x'.join(map(str, self.shape))}{self.tail()}"

    def text(self) -> str:
        c = self.shape[1]
        xt, ct = self.ty(self.shape), self.ty((c,), batched=False)
        return self.function(
            [("dy", xt), ("x", xt), ("w", ct), ("mean", ct), ("invstd", ct)],
            _op("rlx.batch_norm_backward", ["dy", "x", "w", "mean", "invstd"], [xt, xt, *[ct] * 3],
                ["dx", "dw", "db"], [xt, ct, ct]),
            [("dx", xt), ("dw", ct), ("db", ct)],
        )

    def inputs(self, rng, n):
        x = self.x(rng, n)
        dy = rng.standard_normal(x.shape).astype(self.np_dtype)
        w = rng.standard_normal(self.shape[1]).astype(self.np_dtype)
        ones = torch.ones(self.shape[1], dtype=torch.float64)
        _, mean, invstd, _, _ = aten._native_batch_norm_legit_functional(_t(x), ones, 0 * ones, 0 * ones, ones, True, 0.1, 1e-5)
        return [dy, x, w, mean.numpy().astype(self.np_dtype), invstd.numpy().astype(self.np_dtype)]

    def check(self, got, inputs):
        dy, x, w, mean, invstd = map(_t, inputs)
        want = aten.native_batch_norm_backward(dy, x, w, None, None, mean, invstd, True, 1e-5, [True, True, True])
        magnitudes = _batch_norm_grad_magnitudes(dy, x, w, mean, invstd)
        for name, g, want_, a in zip(("dx", "dweight", "dbias"), got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class BatchNormTrainingStep(Case):
    """rlx.batch_norm then rlx.batch_norm_backward on its saved statistics, against
    F.batch_norm(training=True) and autograd in float64."""

    momentum: float = 0.1
    eps: float = 1e-5

    def __str__(self) -> str:
        return f"batch_norm_step_{'x'.join(map(str, self.shape))}{self.tail()}"

    def text(self) -> str:
        c = self.shape[1]
        xt, ct = self.ty(self.shape), self.ty((c,), batched=False)
        attrs = f" momentum {_float(self.momentum)} eps {_float(self.eps)}"
        body = _op("rlx.batch_norm", ["x", "w", "b", "rm", "rv"], [xt, *[ct] * 4],
                   ["y", "mean", "invstd", "nrm", "nrv"], [xt, *[ct] * 4], attrs)
        body += _op("rlx.batch_norm_backward", ["dy", "x", "w", "mean", "invstd"], [xt, xt, *[ct] * 3],
                    ["dx", "dw", "db"], [xt, ct, ct], f" eps {_float(self.eps)}")
        return self.function(
            [("x", xt), ("w", ct), ("b", ct), ("rm", ct), ("rv", ct), ("dy", xt)], body,
            [("y", xt), ("nrm", ct), ("nrv", ct), ("dx", xt), ("dw", ct), ("db", ct)],
        )

    def inputs(self, rng, n):
        dy = rng.standard_normal((n, *self.shape[1:])).astype(self.np_dtype)
        return [*BatchNorm.inputs(self, rng, n), dy]

    def check(self, got, inputs):
        x, w, b, rm, rv, dy = map(_t, inputs)
        x.requires_grad_(), w.requires_grad_(), b.requires_grad_()
        rm_, rv_ = rm.clone(), rv.clone()
        y = F.batch_norm(x, rm_, rv_, w, b, training=True, momentum=self.momentum, eps=self.eps)
        dx, dw, db = torch.autograd.grad(y, (x, w, b), dy)
        x, w, b = x.detach(), w.detach(), b.detach()
        mean, s, var, _ = _channel_stats(x)
        invstd = 1 / torch.sqrt(var + self.eps)
        cond = s * invstd
        rank = x.dim()
        xhat = (x - _channel(mean, rank)) * _channel(invstd, rank)
        count = x.numel() // x.shape[1]
        m = self.momentum
        a_y = _y_magnitude(_channel(w, rank), _channel(b, rank), xhat, _channel(cond, rank))
        a_rm = m * s + (1 - m) * rm.abs()
        a_rv = m * (var * count / (count - 1)) * (1 + cond) + (1 - m) * rv.abs()
        a_dx, a_dw, a_db = _batch_norm_grad_magnitudes(dy, x, w, mean, invstd, cond)
        for name, g, want_, a in zip(
            ("y", "running_mean", "running_var", "dx", "dweight", "dbias"),
            got, (y.detach(), rm_, rv_, dx, dw, db), (a_y, a_rm, a_rv, a_dx, a_dw, a_db),
        ):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


def _row_stats(x: torch.Tensor, k: int, eps: float):
    dims = list(range(x.dim() - k, x.dim()))
    mean = x.mean(dim=dims, keepdim=True)
    s = x.abs().mean(dim=dims, keepdim=True)
    rstd = 1 / torch.sqrt(x.var(dim=dims, unbiased=False, keepdim=True) + eps)
    return mean, s, rstd, dims


def _stat_shape(shape, k):
    return (*shape[: len(shape) - k], *(1,) * k)


@dataclass(frozen=True)
class LayerNorm(Case):
    k: int = 1
    eps: float = 1e-5

    def __str__(self) -> str:
        return f"layer_norm_{'x'.join(map(str, self.shape))}_k{self.k}_e{self.eps:g}{self.tail()}"

    def text(self) -> str:
        xt, wt = self.ty(self.shape), self.ty(self.shape[len(self.shape) - self.k:], batched=False)
        st = self.ty(_stat_shape(self.shape, self.k))
        return self.function(
            [("x", xt), ("w", wt), ("b", wt)],
            _op("rlx.layer_norm", ["x", "w", "b"], [xt, wt, wt], ["y", "mean", "rstd"], [xt, st, st],
                f" normalized_rank {self.k} eps {_float(self.eps)}"),
            [("y", xt), ("mean", st), ("rstd", st)],
        )

    def inputs(self, rng, n):
        normalized = self.shape[len(self.shape) - self.k:]
        return [self.x(rng, n), *(rng.standard_normal(normalized).astype(self.np_dtype) for _ in range(2))]

    def check(self, got, inputs):
        x, w, b = map(_t, inputs)
        normalized = list(x.shape[x.dim() - self.k:])
        want = aten.native_layer_norm(x, normalized, w, b, self.eps)
        mean, s, rstd, _ = _row_stats(x, self.k, self.eps)
        cond = s * rstd
        xhat = (x - mean) * rstd
        magnitudes = [_y_magnitude(w, b, xhat, cond), s, rstd * (1 + cond)]
        for name, g, want_, a in zip(("y", "mean", "rstd"), got, want, magnitudes):
            assert_within_bound(g, want_, torch.nan_to_num(a, nan=0.0), dtype=self.np_dtype, label=f"{self}:{name}")


def _layer_norm_grad_magnitudes(dy, x, w, mean, rstd, k, cond=None):
    """A(dx), A(dweight), A(dbias) of native_layer_norm_backward; `cond` as for batch norm."""
    dims = list(range(x.dim() - k, x.dim()))
    rows = list(range(x.dim() - k))
    xhat = ((x - mean) * rstd).abs()
    factor = 1.0 if cond is None else 1 + cond
    if cond is not None:
        xhat = xhat * factor + cond
    g = dy.abs() * w.abs()
    a_dx = rstd * factor * (g + g.mean(dim=dims, keepdim=True) + xhat * (g * xhat).mean(dim=dims, keepdim=True))
    a_dw = (dy.abs() * xhat).sum(dim=rows) if rows else dy.abs() * xhat
    a_db = dy.abs().sum(dim=rows) if rows else dy.abs()
    return a_dx, a_dw, a_db


@dataclass(frozen=True)
class LayerNormBackward(Case):
    """native_layer_norm_backward on ATen's own mean and rstd (f64, rounded to the dtype)."""

    k: int = 1

    def __str__(self) -> str:
        return f"layer_norm_backward_{'x'.join(map(str, self.shape))}_k{self.k}{self.tail()}"

    def text(self) -> str:
        xt, wt = self.ty(self.shape), self.ty(self.shape[len(self.shape) - self.k:], batched=False)
        st = self.ty(_stat_shape(self.shape, self.k))
        return self.function(
            [("dy", xt), ("x", xt), ("mean", st), ("rstd", st), ("w", wt)],
            _op("rlx.layer_norm_backward", ["dy", "x", "mean", "rstd", "w"], [xt, xt, st, st, wt],
                ["dx", "dw", "db"], [xt, wt, wt]),
            [("dx", xt), ("dw", wt), ("db", wt)],
        )

    def inputs(self, rng, n):
        x = self.x(rng, n)
        normalized = list(self.shape[len(self.shape) - self.k:])
        _, mean, rstd = aten.native_layer_norm(_t(x), normalized, None, None, 1e-5)
        dy = rng.standard_normal(x.shape).astype(self.np_dtype)
        w = rng.standard_normal(normalized).astype(self.np_dtype)
        return [dy, x, mean.numpy().astype(self.np_dtype), rstd.numpy().astype(self.np_dtype), w]

    def check(self, got, inputs):
        dy, x, mean, rstd, w = map(_t, inputs)
        normalized = list(w.shape)
        want = aten.native_layer_norm_backward(dy, x, normalized, mean, rstd, w, torch.zeros_like(w), [True, True, True])
        magnitudes = _layer_norm_grad_magnitudes(dy, x, w, mean, rstd, self.k)
        for name, g, want_, a in zip(("dx", "dweight", "dbias"), got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class LayerNormTrainingStep(Case):
    """rlx.layer_norm then rlx.layer_norm_backward on its mean and rstd, against
    F.layer_norm and autograd in float64."""

    k: int = 1
    eps: float = 1e-5

    def __str__(self) -> str:
        return f"layer_norm_step_{'x'.join(map(str, self.shape))}_k{self.k}{self.tail()}"

    def text(self) -> str:
        xt, wt = self.ty(self.shape), self.ty(self.shape[len(self.shape) - self.k:], batched=False)
        st = self.ty(_stat_shape(self.shape, self.k))
        body = _op("rlx.layer_norm", ["x", "w", "b"], [xt, wt, wt], ["y", "mean", "rstd"], [xt, st, st],
                   f" normalized_rank {self.k} eps {_float(self.eps)}")
        body += _op("rlx.layer_norm_backward", ["dy", "x", "mean", "rstd", "w"], [xt, xt, st, st, wt],
                    ["dx", "dw", "db"], [xt, wt, wt])
        return self.function(
            [("x", xt), ("w", wt), ("b", wt), ("dy", xt)], body, [("y", xt), ("dx", xt), ("dw", wt), ("db", wt)]
        )

    def inputs(self, rng, n):
        return [*LayerNorm.inputs(self, rng, n), rng.standard_normal((n, *self.shape[1:])).astype(self.np_dtype)]

    def check(self, got, inputs):
        x, w, b, dy = map(_t, inputs)
        x.requires_grad_(), w.requires_grad_(), b.requires_grad_()
        y = F.layer_norm(x, list(w.shape), w, b, self.eps)
        dx, dw, db = torch.autograd.grad(y, (x, w, b), dy)
        x, w, b = x.detach(), w.detach(), b.detach()
        mean, s, rstd, _ = _row_stats(x, self.k, self.eps)
        cond = s * rstd
        a_y = _y_magnitude(w, b, (x - mean) * rstd, cond)
        a_dx, a_dw, a_db = _layer_norm_grad_magnitudes(dy, x, w, mean, rstd, self.k, cond)
        for name, g, want_, a in zip(("y", "dx", "dweight", "dbias"), got, (y.detach(), dx, dw, db), (a_y, a_dx, a_dw, a_db)):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


def _rms_text(case, x: str, w: str | None, xt: str, wt: str) -> tuple[list[str], list[str]]:
    """The operands and types of `rlx.rms_norm`'s custom form, its weight optional."""
    return ([x, *([w] if w else [])], [xt, *([wt] if w else [])])


@dataclass(frozen=True)
class RmsNorm(Case):
    """rlx.rms_norm against F.rms_norm (y) and 1/sqrt(mean(x^2) + eps) (rstd) in float64.

    A sum of squares has non-negative terms: rstd's relative error is a few u, so
    A(rstd) = rstd and A(y) = |x| rstd |w|."""

    k: int = 1
    eps: float | None = None
    """None: PyTorch's default, finfo(dtype).eps, which the importer passes."""
    weight: bool = True

    def __str__(self) -> str:
        return f"rms_norm_{'x'.join(map(str, self.shape))}_k{self.k}_e{self.eps}{'_w' if self.weight else ''}{self.tail()}"

    @property
    def epsilon(self) -> float:
        return float(np.finfo(self.np_dtype).eps) if self.eps is None else self.eps

    def types(self):
        xt, wt = self.ty(self.shape), self.ty(self.shape[len(self.shape) - self.k:], batched=False)
        return xt, wt, self.ty(_stat_shape(self.shape, self.k))

    def forward_op(self, xt, wt, st) -> str:
        weight = " weight %w" if self.weight else ""
        types = f"{xt}, {wt}" if self.weight else xt
        return (f"  %y, %rstd = rlx.rms_norm %x{weight} normalized_rank {self.k} eps {_float(self.epsilon)}"
                f" : ({types}) -> ({xt}, {st})\n")

    def params(self, xt, wt):
        return [("x", xt), *([("w", wt)] if self.weight else [])]

    def text(self) -> str:
        xt, wt, st = self.types()
        return self.function(self.params(xt, wt), self.forward_op(xt, wt, st), [("y", xt), ("rstd", st)])

    def inputs(self, rng, n):
        normalized = self.shape[len(self.shape) - self.k:]
        return [self.x(rng, n), *([rng.standard_normal(normalized).astype(self.np_dtype)] if self.weight else [])]

    def split(self, inputs):
        x, *rest = map(_t, inputs)
        return x, (rest[0] if self.weight else None), rest[1:] if self.weight else rest

    def rstd(self, x):
        dims = list(range(x.dim() - self.k, x.dim()))
        return 1 / torch.sqrt((x * x).mean(dim=dims, keepdim=True) + self.epsilon)

    def check(self, got, inputs):
        x, w, _ = self.split(inputs)
        normalized = list(x.shape[x.dim() - self.k:])
        y = F.rms_norm(x, normalized, w, self.epsilon)
        rstd = self.rstd(x)
        a_y = (x * rstd).abs() * (1 if w is None else w.abs())
        for name, g, want_, a in zip(("y", "rstd"), got, (y, rstd), (a_y, rstd)):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


def _rms_norm_grad_magnitudes(dy, x, w, rstd, k):
    """A(dx), A(dweight) of the RMS norm gradient (sums of products of |g| and |xhat|)."""
    dims = list(range(x.dim() - k, x.dim()))
    rows = list(range(x.dim() - k))
    xhat = (x * rstd).abs()
    g = dy.abs() * (1 if w is None else w.abs())
    a_dx = rstd * (g + xhat * (g * xhat).mean(dim=dims, keepdim=True))
    a_dw = (dy.abs() * xhat).sum(dim=rows) if rows else dy.abs() * xhat
    return a_dx, a_dw


@dataclass(frozen=True)
class RmsNormBackward(RmsNorm):
    """rlx.rms_norm_backward on rstd computed in float64 (rounded to the dtype), against
    autograd through F.rms_norm in float64."""

    def __str__(self) -> str:
        return "rms_norm_backward_" + RmsNorm.__str__(self)[len("rms_norm_"):]

    def backward_op(self, xt, wt, st) -> str:
        weight = " weight %w" if self.weight else ""
        types = f"{xt}, {xt}, {st}" + (f", {wt}" if self.weight else "")
        results = "%dx, %dw" if self.weight else "%dx"
        result_types = f"{xt}, {wt}" if self.weight else xt
        return (f"  {results} = rlx.rms_norm_backward %dy, %x, %rstd{weight} normalized_rank {self.k}"
                f" : ({types}) -> ({result_types})\n")

    def outputs(self, xt, wt):
        return [("dx", xt), *([("dw", wt)] if self.weight else [])]

    def text(self) -> str:
        xt, wt, st = self.types()
        params = [("dy", xt), ("x", xt), ("rstd", st), *([("w", wt)] if self.weight else [])]
        return self.function(params, self.backward_op(xt, wt, st), self.outputs(xt, wt))

    def inputs(self, rng, n):
        x, *w = RmsNorm.inputs(self, rng, n)
        rstd = self.rstd(_t(x)).numpy().astype(self.np_dtype)
        return [rng.standard_normal(x.shape).astype(self.np_dtype), x, rstd, *w]

    def check(self, got, inputs):
        dy, x, rstd, *w = map(_t, inputs)
        self.check_gradients(got, dy, x, w[0] if w else None, rstd)

    def check_gradients(self, got, dy, x, w, rstd, y_got=None):
        x = x.clone().requires_grad_()
        w = None if w is None else w.clone().requires_grad_()
        y = F.rms_norm(x, list(x.shape[x.dim() - self.k:]), w, self.epsilon)
        want = torch.autograd.grad(y, [x, *([w] if w is not None else [])], dy)
        a_dx, a_dw = _rms_norm_grad_magnitudes(dy, x.detach(), None if w is None else w.detach(), rstd, self.k)
        names, magnitudes = ("dx", "dweight"), (a_dx, a_dw)
        if y_got is not None:
            names, want = ("y", *names), (y.detach(), *want)
            magnitudes = ((x * rstd).abs().detach() * (1 if w is None else w.abs().detach()), *magnitudes)
        for name, g, want_, a in zip(names, got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class RmsNormTrainingStep(RmsNormBackward):
    """rlx.rms_norm then rlx.rms_norm_backward on its rstd, against F.rms_norm and autograd
    in float64."""

    def __str__(self) -> str:
        return "rms_norm_step_" + RmsNorm.__str__(self)[len("rms_norm_"):]

    def text(self) -> str:
        xt, wt, st = self.types()
        body = self.forward_op(xt, wt, st) + self.backward_op(xt, wt, st)
        return self.function([*self.params(xt, wt), ("dy", xt)], body, [("y", xt), *self.outputs(xt, wt)])

    def inputs(self, rng, n):
        return [*RmsNorm.inputs(self, rng, n), rng.standard_normal((n, *self.shape[1:])).astype(self.np_dtype)]

    def check(self, got, inputs):
        x, *w, dy = map(_t, inputs)
        self.check_gradients(got, dy, x, w[0] if w else None, self.rstd(x), y_got=got[0])


def _both(case_type, **fields):
    return [case_type(dtype=d, **fields) for d in DTYPES]


CASES = [
    # Batch norm, training: BatchNorm1d on [N, C] and [N, C, L], 2-d, 3-d; batch 1 with
    # spatial > 1; n = 1 (running var NaN, as ATen); a dynamic batch; properties; a large
    # mean (the stable variance); a NaN.
    *_both(BatchNorm, shape=(4, 3)),
    BatchNorm(shape=(2, 3, 5)),
    *_both(BatchNorm, shape=(2, 4, 3, 5), momentum=0.3, eps=1e-3),
    BatchNorm(shape=(2, 2, 3, 2, 3), dtype="f64"),
    BatchNorm(shape=(1, 3, 4, 4)),
    *_both(BatchNorm, shape=(1, 3)),
    *_both(BatchNorm, shape=(3, 2, 4), dynamic=True),
    *_both(BatchNorm, shape=(4, 3, 6), offset=1000.0),
    BatchNorm(shape=(3, 2, 4), nan=True),
    BatchNorm(shape=(5, 2), momentum=1.0, eps=0.5),
    BatchNorm(shape=(5, 2), momentum=0.0, dtype="f64"),
    # Eval mode.
    BatchNormInference(shape=(4, 3)),
    BatchNormInference(shape=(2, 3, 2, 3, 2), eps=1e-2, dtype="f64"),
    BatchNormInference(shape=(2, 3, 5), dynamic=True),
    # Backward on ATen's statistics, and forward + backward against autograd.
    *_both(BatchNormBackward, shape=(2, 3, 4, 5)),
    BatchNormBackward(shape=(3, 2, 4), dynamic=True),
    *_both(BatchNormTrainingStep, shape=(5, 3)),
    BatchNormTrainingStep(shape=(2, 3, 7), dtype="f64"),
    BatchNormTrainingStep(shape=(1, 2, 3, 4)),
    BatchNormTrainingStep(shape=(2, 2, 2, 3, 3), momentum=0.5, eps=1e-3),
    *_both(BatchNormTrainingStep, shape=(4, 3, 5), offset=1000.0),
    # A dynamic batch through both passes: the forward pattern's first op is the batch
    # count's index constant, which decompose-backward has already hoisted.
    BatchNormTrainingStep(shape=(2, 3, 4, 4), dynamic=True),
    # Layer norm over 1, 2 and 3 dims; an x that is all normalized (no rows); a dynamic
    # batch; a large mean; a NaN.
    *_both(LayerNorm, shape=(4, 6)),
    *_both(LayerNorm, shape=(2, 3, 4), k=2),
    LayerNorm(shape=(3, 4), k=2),
    LayerNorm(shape=(2, 2, 3, 4), k=3, eps=1e-3, dtype="f64"),
    LayerNorm(shape=(3, 5, 8), dynamic=True),
    LayerNorm(shape=(3, 16), offset=1000.0),
    LayerNorm(shape=(3, 5), nan=True),
    *_both(LayerNormBackward, shape=(2, 3, 4), k=2),
    LayerNormBackward(shape=(4, 6)),
    LayerNormBackward(shape=(3, 4), k=2, dtype="f64"),
    LayerNormBackward(shape=(3, 2, 5), dynamic=True),
    # Large enough for the thread schedule to split dx along its rows (its statistics
    # read as [rows], a projected permutation); over [rows, C] and [B, T, C].
    LayerNormBackward(shape=(300, 96), dtype="f64"),
    LayerNormBackward(shape=(2, 64, 96)),
    *_both(LayerNormTrainingStep, shape=(5, 7)),
    LayerNormTrainingStep(shape=(2, 3, 4, 5), k=2),
    *_both(LayerNormTrainingStep, shape=(4, 6), k=2),
    LayerNormTrainingStep(shape=(3, 16), offset=1000.0),
    LayerNormTrainingStep(shape=(2, 3, 8), dynamic=True, dtype="f64"),
    # RMS norm over 1 and 2 dims, with and without a weight, PyTorch's default eps and a
    # given one; a dynamic batch.
    *_both(RmsNorm, shape=(4, 6)),
    *_both(RmsNorm, shape=(2, 3, 4), k=2, weight=False),
    RmsNorm(shape=(3, 5, 8), dynamic=True, eps=1e-5),
    *_both(RmsNormBackward, shape=(2, 3, 4), k=2),
    RmsNormBackward(shape=(4, 6), weight=False),
    RmsNormBackward(shape=(3, 2, 5), dynamic=True),
    *_both(RmsNormTrainingStep, shape=(5, 7), eps=1e-6),
    RmsNormTrainingStep(shape=(2, 3, 4, 5), k=2, weight=False, dtype="f64"),
    RmsNormTrainingStep(shape=(2, 3, 8), dynamic=True, dtype="f64"),
]


@pytest.fixture(scope="module")
def norm_module(compile_rlx):
    """Every case as one function of one module, compiled once."""
    return compile_rlx("".join(case.text() for case in CASES))


def test_case_ids_are_unique():
    assert len({str(c) for c in CASES}) == len(CASES)


def run_case(case: Case, module) -> None:
    """`case`'s function of the compiled `module` on each of its batch sizes, checked."""
    for seed, n in enumerate(case.batches()):
        rng = np.random.default_rng(seed)
        inputs = case.inputs(rng, n)
        got = module[case.symbol](*inputs)
        got = got if isinstance(got, tuple) else (got,)
        case.check(got, inputs)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_norm_op_matches_pytorch(case, norm_module):
    run_case(case, norm_module)


def test_stable_variance_is_needed_in_f32():
    """The offset cases do test the two-reduction variance: E[x^2] - mean^2 in f32, on the
    same data, misses PyTorch's invstd by far more than the bound those cases assert."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(4 * 6 * 3) + 1000.0).astype(np.float32)
    naive_var = np.float32(np.mean(x * x, dtype=np.float32) - np.mean(x, dtype=np.float32) ** 2)
    exact_var = np.var(x.astype(np.float64))
    s = np.abs(x.astype(np.float64)).mean()
    cond = s / np.sqrt(exact_var)
    assert abs(naive_var - exact_var) / exact_var > 16 * (1 + cond) * np.finfo(np.float32).eps


# --------------------------------------------------------------------------------------
# The lowered IR: upstream dialects only, accepted by mlir-opt, constant in the data size
# --------------------------------------------------------------------------------------

ONE_OF_EACH = [
    BatchNorm(shape=(2, 3, 4, 4)),
    BatchNorm(shape=(3, 2, 4), dynamic=True, dtype="f64"),
    BatchNormInference(shape=(2, 3, 5), dynamic=True),
    BatchNormBackward(shape=(3, 2, 4), dynamic=True),
    LayerNorm(shape=(2, 3, 4), k=2),
    LayerNorm(shape=(3, 4), k=2),
    LayerNormBackward(shape=(3, 2, 5), dynamic=True),
    LayerNormBackward(shape=(3, 4), k=2),
    RmsNorm(shape=(2, 3, 4), k=2),
    RmsNorm(shape=(3, 5), dynamic=True, weight=False),
    RmsNormBackward(shape=(3, 2, 5), dynamic=True),
    RmsNormBackward(shape=(3, 4), k=2, weight=False),
]


def _lowered(text: str):
    from rlx_mlir.api import lower_to_linalg

    return lower_to_linalg(text)


def assert_lowered_upstream_only_and_valid(cases, path) -> None:
    """The cases' functions lowered: upstream dialects only, and mlir-opt accepts them."""
    module = _lowered("".join(case.text() for case in cases))
    dialects = {op.name.split(".")[0] for op in module.walk()}
    assert dialects <= {"builtin", "func", "linalg", "tensor", "arith", "math"}, dialects
    path.write_text(str(module))
    check = subprocess.run([str(find_tool("mlir-opt").path), str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_lowered_norm_ops_are_upstream_only_and_pass_mlir_opt(tmp_path):
    assert_lowered_upstream_only_and_valid(ONE_OF_EACH, tmp_path / "norm.mlir")


def lowered_op_count(case) -> int:
    return sum(1 for _ in _lowered(case.text().replace(case.symbol, "f")).walk())


@pytest.mark.parametrize("small, large", [
    (BatchNormTrainingStep(shape=(2, 3, 4, 4)), BatchNormTrainingStep(shape=(64, 3, 32, 32))),
    (LayerNormTrainingStep(shape=(2, 3, 4), k=2), LayerNormTrainingStep(shape=(128, 30, 40), k=2)),
], ids=["batch_norm", "layer_norm"])
def test_lowered_ir_does_not_grow_with_the_data(small, large):
    assert lowered_op_count(small) == lowered_op_count(large)
