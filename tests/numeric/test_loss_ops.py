"""The loss ops, compiled through `rlx_mlir.compile` and run natively, against PyTorch 2.13.

Oracles: the ATen ops themselves (`_log_softmax`, `_softmax`, `_log_softmax_backward_data`,
`_softmax_backward_data`, `nll_loss_forward`, `nll_loss2d_forward`, `nll_loss_backward`,
`nll_loss2d_backward`; inputs of rank 3 or > 4 as `F.nll_loss` hands them to ATen, reshaped
to `[N, C, prod(d), 1]`), and the functional API with autograd (`F.log_softmax`,
`F.softmax`, `F.nll_loss`, `F.cross_entropy`), in float64 on the same inputs upcast.
Every case is one function of ONE module, compiled once for this module; a case's id
names its configuration.

Error bound. Every comparison is `oracle.assert_within_bound`: `|got - want| <= 16 (eps +
eps64) A` per element, NaN and +-inf at the same places as PyTorch, and A the sum of the
magnitudes each rounding error is proportional to (first-order model; u = eps/2 per
operation, `exp`/`log` within ~1 ulp of their result):
- log_softmax, y = (x - m) - log s: A = |x - m| + |log s| + sum_j p_j |x_j - m| + 1. The
  subtraction rounds relative to |x - m|, the log relative to |log s|, and log s carries
  s's relative error as an absolute one: each term exp(x_j - m) inherits |x_j - m| u from
  its argument, weighted by p_j = exp(x_j - m) / s, plus the exps' and the sum's own.
- softmax, y = exp(x - m) / s: A = y (|x - m| + sum_j p_j |x_j - m| + 1), the same
  relative errors on y.
- log_softmax_backward: A = |dy| + exp(y) sum|dy|; softmax_backward: A = y (|dy| + sum|dy y|)
  (y is an exact input there: sums of products, as `tests/oracle.py`).
- nll_loss: "none" A = |logp_t w_t|; "sum" A = sum |logp_t w_t|; "mean" A = (sum |logp_t w_t|
  + |loss| sum |w_t|) / |total_weight| (the quotient of two sums); total_weight A = sum |w_t|.
- nll_loss_backward: A = |w g / total_weight| (one division, one product).
- the composed cross-entropy and softmax gradients add the forward's error to the
  backward's: the y they are computed from has error A_y u, so exp(y) (or y) carries the
  relative error A_y u (A_y as above, relative for softmax).
Measured with `RLX_MLIR_ERROR_LOG` over this module (every case, f32 and f64): the worst
ratio |got - want| / ((eps + eps64) A) is 0.90 in f32 (an nll_loss "sum" over [2, 3, 2, 3])
and 0.39 in f64 (softmax); per family in f32: log_softmax 0.59, softmax 0.78, their
gradients 0.71, nll_loss 0.90, nll_loss_backward 0.45, cross-entropy end to end 0.80,
softmax end to end 0.78. The bound is the suite's shared K = 16, 18x over the worst.
Softmax entries that underflow (exp(x - m) below the normal range: 1e4-scale logits) may
be 0 where the float64 reference keeps ~1e-150: `underflow` allows tiny(dtype) there, as
`tests/oracle.py` prescribes for underflow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import MLIR_ELEMENT, assert_within_bound

aten = torch.ops.aten
DTYPES = {"f32": np.float32, "f64": np.float64}
REDUCTION = {"none": 0, "mean": 1, "sum": 2}  # ATen's Reduction enum
INF = float("inf")


def mlir_type(shape, dtype, dynamic: bool = False) -> str:
    element = dtype if isinstance(dtype, str) else MLIR_ELEMENT[np.dtype(dtype)]
    dims = ["?" if dynamic and i == 0 else str(s) for i, s in enumerate(shape)]
    return f"tensor<{''.join(d + 'x' for d in dims)}{element}>"


def t64(array) -> torch.Tensor:
    return torch.from_numpy(np.asarray(array, np.float64))


# -- inputs -----------------------------------------------------------------------------------


def logits(shape, dim: int, kind: str, rng, dtype) -> np.ndarray:
    """Standard normal logits; `large` scales them to ~1e4; `neginf` sets a third of them to
    -inf; `row_neginf` one whole row along `dim`; `nan` and `posinf` one element of row 0."""
    x = rng.standard_normal(shape)
    if kind == "large":
        x *= 1e4
    elif kind == "neginf":
        x[rng.random(shape) < 1 / 3] = -INF
    elif kind in ("row_neginf", "nan", "posinf"):
        rows = np.moveaxis(x, dim, -1)  # a view: writes go to x
        head = (0,) * (len(shape) - 1)
        if kind == "row_neginf":
            rows[head] = -INF
        else:
            rows[head + (shape[dim] // 2,)] = np.nan if kind == "nan" else INF
    return x.astype(dtype)


def softmax_terms(x: torch.Tensor, dim: int):
    """(p, |x - m|, sum_j p_j |x_j - m|, log s) of float64 logits, for the error model;
    -inf entries (whose results are exact: -inf, or 0) contribute nothing."""
    m = x.amax(dim, keepdim=True)
    distance = (x - m).abs()
    p = torch.softmax(x, dim)
    weighted = torch.where(p > 0, p * distance, torch.zeros_like(p)).sum(dim, keepdim=True)
    log_s = torch.log(torch.exp(x - m).sum(dim, keepdim=True))
    return p, torch.where(distance.isfinite(), distance, torch.zeros_like(p)), weighted, log_s


def log_softmax_magnitude(x: torch.Tensor, dim: int) -> torch.Tensor:
    _, distance, weighted, log_s = softmax_terms(x, dim)
    return distance + log_s.abs() + weighted + 1


def softmax_relative(x: torch.Tensor, dim: int) -> torch.Tensor:
    """The relative error model of softmax(x), in units of u."""
    _, distance, weighted, _ = softmax_terms(x, dim)
    return distance + weighted + 1


def underflow(dtype, op: str) -> float:
    """The absolute error an underflowing softmax entry may carry: exp(x - m) below the
    dtype's normal range flushes to 0 (oracle.py's `tiny(dtype)` per operation); the
    float64 reference keeps values (1e-150 at 1e4-scale logits) that f32 cannot hold.
    log_softmax has no such term: its entries stay far from the underflow range."""
    return float(np.finfo(dtype).tiny) if op == "softmax" else 0.0


# -- the cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    dtype: str = "f32"

    def label(self) -> str: ...

    def __str__(self) -> str:
        return f"{self.label()}_{self.dtype}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]


@dataclass(frozen=True)
class Softmax(Case):
    """`rlx.log_softmax` / `rlx.softmax` against `aten._log_softmax` / `aten._softmax`."""

    op: str = "log_softmax"
    shape: tuple[int, ...] = (4, 7)
    dim: int = 1
    kind: str = "normal"

    def label(self):
        return f"{self.op}_{'x'.join(map(str, self.shape))}_dim{self.dim}_{self.kind}"

    def function(self) -> str:
        t = mlir_type(self.shape, self.dtype)
        return (
            f"func.func @{self.symbol}(%x: {t}) -> {t} {{\n"
            f"  %y = rlx.{self.op} %x dim {self.dim} : ({t}) -> {t}\n  return %y : {t}\n}}\n"
        )

    def check(self, module) -> None:
        x = logits(self.shape, self.dim, self.kind, np.random.default_rng(1), self.np_dtype)
        got = module[self.symbol](x)
        x64 = t64(x)
        if self.op == "log_softmax":
            want, magnitude = aten._log_softmax(x64, self.dim, False), log_softmax_magnitude(x64, self.dim)
        else:
            want = aten._softmax(x64, self.dim, False)
            magnitude = want * softmax_relative(x64, self.dim)
        assert_within_bound(got, want, magnitude, extra=underflow(self.np_dtype, self.op), label=str(self))


SOFTMAX = [
    Softmax(dtype=dtype, op=op, shape=shape, dim=dim, kind=kind)
    for dtype in DTYPES
    for op in ("log_softmax", "softmax")
    for shape, dim, kind in [
        ((4, 7), 1, "normal"),
        ((4, 7), 0, "normal"),
        ((7,), 0, "normal"),
        ((2, 3, 5), 1, "normal"),
        ((2, 3, 2, 4), 3, "normal"),
        ((4, 7), 1, "large"),
        ((3, 6, 2), 1, "neginf"),
        ((4, 7), 1, "row_neginf"),
        ((4, 7), 1, "nan"),
        ((4, 7), 1, "posinf"),
    ]
]


@dataclass(frozen=True)
class SoftmaxBackward(Case):
    """`rlx.{log_,}softmax_backward` against `aten._{log_,}softmax_backward_data`, y = PyTorch's forward."""

    op: str = "log_softmax"
    shape: tuple[int, ...] = (4, 7)
    dim: int = 1
    kind: str = "normal"

    def label(self):
        return f"{self.op}_backward_{'x'.join(map(str, self.shape))}_dim{self.dim}_{self.kind}"

    def function(self) -> str:
        t = mlir_type(self.shape, self.dtype)
        return (
            f"func.func @{self.symbol}(%dy: {t}, %y: {t}) -> {t} {{\n"
            f"  %dx = rlx.{self.op}_backward %dy, %y dim {self.dim} : ({t}, {t}) -> {t}\n  return %dx : {t}\n}}\n"
        )

    def check(self, module) -> None:
        rng = np.random.default_rng(2)
        x = torch.from_numpy(logits(self.shape, self.dim, self.kind, rng, self.np_dtype))
        y = (aten._log_softmax if self.op == "log_softmax" else aten._softmax)(x, self.dim, False).numpy()
        dy = rng.standard_normal(self.shape).astype(self.np_dtype)
        got = module[self.symbol](dy, y)
        dy64, y64 = t64(dy), t64(y)
        if self.op == "log_softmax":
            want = aten._log_softmax_backward_data(dy64, y64, self.dim, torch.float64)
            magnitude = dy64.abs() + y64.exp() * dy64.abs().sum(self.dim, keepdim=True)
        else:
            want = aten._softmax_backward_data(dy64, y64, self.dim, torch.float64)
            magnitude = y64 * (dy64.abs() + (dy64 * y64).abs().sum(self.dim, keepdim=True))
        assert_within_bound(got, want, magnitude, label=str(self))


SOFTMAX_BACKWARD = [
    SoftmaxBackward(dtype=dtype, op=op, shape=shape, dim=dim, kind=kind)
    for dtype in DTYPES
    for op in ("log_softmax", "softmax")
    for shape, dim, kind in [((4, 7), 1, "normal"), ((5, 3), 0, "normal"), ((2, 3, 4), 2, "normal"), ((3, 6, 2), 1, "neginf")]
]


# -- the negative log-likelihood ----------------------------------------------------------------


@dataclass(frozen=True)
class Nll(Case):
    """One NLL configuration: input shape ([N, C, *d] or [C]), reduction, weights, targets."""

    shape: tuple[int, ...] = (5, 4)
    reduction: str = "mean"
    weighted: bool = True
    ignore_index: int = -100
    targets: str = "some_ignored"  # valid | some_ignored | all_ignored
    kind: str = "normal"  # the logits: normal | large | neginf (the first target's class is -inf)
    dynamic: bool = False

    @property
    def batched(self) -> bool:
        return len(self.shape) >= 2

    @property
    def classes(self) -> int:
        return self.shape[1] if self.batched else self.shape[0]

    @property
    def class_axis(self) -> int:
        return 1 if self.batched else 0

    def target_shape(self, n: int) -> tuple[int, ...]:
        return (n, *self.shape[2:]) if self.batched else ()

    def input_shape(self, n: int) -> tuple[int, ...]:
        return (n, *self.shape[1:]) if self.batched else self.shape

    def loss_shape(self, n: int) -> tuple[int, ...]:
        return self.target_shape(n) if self.reduction == "none" and self.batched else ()

    def batches(self) -> list[int]:
        n = self.shape[0] if self.batched else 1
        return [n, n + 2] if self.dynamic else [n]

    def label(self):
        shape = "x".join(map(str, self.shape)) + ("dyn" if self.dynamic else "")
        weights = "w" if self.weighted else "ones"
        return f"{shape}_{self.reduction}_{weights}_ii{self.ignore_index}_{self.targets}_{self.kind}"

    def types(self):
        d = self.dynamic
        n = self.shape[0] if self.batched else 1
        return dict(
            x=mlir_type(self.input_shape(n), self.dtype, d),
            t=mlir_type(self.target_shape(n), "i64", d),
            w=mlir_type((self.classes,), self.dtype),
            loss=mlir_type(self.loss_shape(n), self.dtype, d),
            scalar=mlir_type((), self.dtype),
        )

    def props(self) -> str:
        return f'reduction "{self.reduction}" ignore_index {self.ignore_index}'

    def inputs(self, n: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(logits, target, weight)."""
        x = logits(self.input_shape(n), self.class_axis, "large" if self.kind == "large" else "normal", rng, np.float64)
        target = rng.integers(0, self.classes, self.target_shape(n))
        if self.targets == "some_ignored":
            target[rng.random(target.shape) < 0.4] = self.ignore_index
            target.flat[0] = self.ignore_index
            target.flat[-1] = (self.ignore_index + 1) % self.classes  # at least one counts
        elif self.targets == "all_ignored":
            target[...] = self.ignore_index
        if self.kind == "neginf":
            first = (0, int(target.flat[0]), *(0,) * (len(self.shape) - 2)) if self.batched else (int(target),)
            x[first] = -INF
        weight = rng.uniform(0.2, 2.0, self.classes) if self.weighted else np.ones(self.classes)
        return x.astype(self.np_dtype), target.astype(np.int64), weight.astype(self.np_dtype)


def aten_nll_forward(logp, target, weight, reduction: str, ignore_index: int):
    """ATen's forward as `F.nll_loss` calls it: rank <= 2 directly, else as [N, C, prod(d), 1]."""
    r = REDUCTION[reduction]
    if logp.dim() <= 2:
        return aten.nll_loss_forward(logp, target, weight, r, ignore_index)
    n, c = logp.shape[:2]
    loss, total = aten.nll_loss2d_forward(logp.reshape(n, c, -1, 1), target.reshape(n, -1, 1), weight, r, ignore_index)
    return (loss.reshape(target.shape) if reduction == "none" else loss), total


def aten_nll_backward(grad, logp, target, weight, reduction: str, ignore_index: int, total):
    r = REDUCTION[reduction]
    if logp.dim() <= 2:
        return aten.nll_loss_backward(grad, logp, target, weight, r, ignore_index, total)
    n, c = logp.shape[:2]
    grad = grad.reshape(n, -1, 1) if reduction == "none" else grad
    dlogp = aten.nll_loss2d_backward(
        grad, logp.reshape(n, c, -1, 1), target.reshape(n, -1, 1), weight, r, ignore_index, total
    )
    return dlogp.reshape(logp.shape)


def nll_loss_magnitudes(logp, target, weight, loss, total, reduction: str, ignore_index: int):
    """A for (loss, total_weight), from the float64 inputs and results (see the module docstring)."""
    summed, weight_sum = aten_nll_forward(-logp.abs(), target, weight.abs(), "sum", ignore_index)
    if reduction == "none" and logp.dim() >= 2:
        terms, _ = aten_nll_forward(-logp.abs(), target, weight.abs(), "none", ignore_index)
        return terms, torch.zeros((), dtype=torch.float64)  # total_weight is exactly 0
    if reduction == "mean":
        return (summed + loss.abs() * weight_sum) / total.abs(), weight_sum
    return summed, weight_sum


@dataclass(frozen=True)
class NllLoss(Nll):
    """`rlx.nll_loss` against `aten.nll_loss_forward` / `nll_loss2d_forward`: both results."""

    def label(self):
        return f"nll_loss_{super().label()}"

    def function(self) -> str:
        t = self.types()
        return (
            f"func.func @{self.symbol}(%x: {t['x']}, %t: {t['t']}, %w: {t['w']}) -> ({t['loss']}, {t['scalar']}) {{\n"
            f"  %l, %tw = rlx.nll_loss %x, %t, %w {self.props()}\n"
            f"      : ({t['x']}, {t['t']}, {t['w']}) -> ({t['loss']}, {t['scalar']})\n"
            f"  return %l, %tw : {t['loss']}, {t['scalar']}\n}}\n"
        )

    def check(self, module) -> None:
        rng = np.random.default_rng(3)
        for n in self.batches():
            x, target, weight = self.inputs(n, rng)
            logp = aten._log_softmax(torch.from_numpy(x), self.class_axis, False).numpy()
            loss, total = module[self.symbol](logp, target, weight)
            logp64, t, w64 = t64(logp), torch.from_numpy(target), t64(weight)
            want_loss, want_total = aten_nll_forward(logp64, t, w64, self.reduction, self.ignore_index)
            a_loss, a_total = nll_loss_magnitudes(logp64, t, w64, want_loss, want_total, self.reduction, self.ignore_index)
            assert_within_bound(loss, want_loss, a_loss, label=f"{self} loss")
            assert_within_bound(total, want_total, a_total, label=f"{self} total_weight")


@dataclass(frozen=True)
class NllLossBackward(Nll):
    """`rlx.nll_loss_backward` against `aten.nll_loss_backward` / `nll_loss2d_backward`."""

    def label(self):
        return f"nll_loss_backward_{super().label()}"

    def function(self) -> str:
        t = self.types()
        operands = f"{t['loss']}, {t['x']}, {t['t']}, {t['w']}, {t['scalar']}"
        return (
            f"func.func @{self.symbol}(%g: {t['loss']}, %x: {t['x']}, %t: {t['t']}, %w: {t['w']}, "
            f"%tw: {t['scalar']}) -> {t['x']} {{\n"
            f"  %dx = rlx.nll_loss_backward %g, %x, %t, %w, %tw {self.props()} : ({operands}) -> {t['x']}\n"
            f"  return %dx : {t['x']}\n}}\n"
        )

    def check(self, module) -> None:
        rng = np.random.default_rng(4)
        for n in self.batches():
            x, target, weight = self.inputs(n, rng)
            t = torch.from_numpy(target)
            logp = aten._log_softmax(torch.from_numpy(x), self.class_axis, False)
            _, total = aten_nll_forward(logp, t, torch.from_numpy(weight), self.reduction, self.ignore_index)
            grad = rng.standard_normal(self.loss_shape(n)).astype(self.np_dtype)
            got = module[self.symbol](grad, logp.numpy(), target, weight, total.numpy())
            g64, logp64, w64, total64 = t64(grad), t64(logp.numpy()), t64(weight), t64(total.numpy())
            want = aten_nll_backward(g64, logp64, t, w64, self.reduction, self.ignore_index, total64)
            magnitude = aten_nll_backward(g64.abs(), logp64, t, w64.abs(), self.reduction, self.ignore_index, total64.abs()).abs()
            assert_within_bound(got, want, magnitude, label=str(self))


def nll_matrix(case: type[Nll]) -> list[Nll]:
    """Every reduction on the three shapes; weights, ignore_index (outside and inside [0, C),
    some and all targets ignored), large and -inf logits, a dynamic batch."""
    matrix = []
    for dtype in DTYPES:
        for reduction in ("mean", "sum", "none"):
            for shape in [(5, 4), (2, 4, 3), (2, 3, 2, 3), (6,)]:
                matrix.append(case(dtype=dtype, shape=shape, reduction=reduction))
            matrix += [
                case(dtype=dtype, reduction=reduction, weighted=False, targets="valid"),
                case(dtype=dtype, reduction=reduction, ignore_index=1),
                case(dtype=dtype, reduction=reduction, targets="all_ignored"),
                case(dtype=dtype, shape=(2, 3, 2, 3), reduction=reduction, targets="all_ignored"),
                case(dtype=dtype, shape=(6,), reduction=reduction, targets="all_ignored"),
                case(dtype=dtype, reduction=reduction, dynamic=True),
            ]
        matrix += [
            case(dtype=dtype, shape=(2, 5, 3), reduction="mean", kind="large", ignore_index=2),
            case(dtype=dtype, shape=(5, 4), reduction="sum", kind="neginf", targets="valid"),
            case(dtype=dtype, shape=(2, 3, 2, 3), reduction="none", kind="neginf", targets="valid"),
        ]
    return matrix


NLL_LOSS = nll_matrix(NllLoss)
NLL_LOSS_BACKWARD = nll_matrix(NllLossBackward)


# -- the functional API and autograd ----------------------------------------------------------


@dataclass(frozen=True)
class CrossEntropy(Nll):
    """`F.cross_entropy` (or `F.nll_loss(F.log_softmax(x, 1))`) and its autograd gradient, as
    the importer writes it: log_softmax, nll_loss, nll_loss_backward, log_softmax_backward."""

    via: str = "cross_entropy"  # or log_softmax_nll_loss

    def label(self):
        return f"{self.via}_{super().label()}"

    def function(self) -> str:
        t = self.types()
        ax = self.class_axis
        return (
            f"func.func @{self.symbol}(%x: {t['x']}, %t: {t['t']}, %w: {t['w']}, %g: {t['loss']}) "
            f"-> ({t['loss']}, {t['x']}) {{\n"
            f"  %y = rlx.log_softmax %x dim {ax} : ({t['x']}) -> {t['x']}\n"
            f"  %l, %tw = rlx.nll_loss %y, %t, %w {self.props()}\n"
            f"      : ({t['x']}, {t['t']}, {t['w']}) -> ({t['loss']}, {t['scalar']})\n"
            f"  %dy = rlx.nll_loss_backward %g, %y, %t, %w, %tw {self.props()}\n"
            f"      : ({t['loss']}, {t['x']}, {t['t']}, {t['w']}, {t['scalar']}) -> {t['x']}\n"
            f"  %dx = rlx.log_softmax_backward %dy, %y dim {ax} : ({t['x']}, {t['x']}) -> {t['x']}\n"
            f"  return %l, %dx : {t['loss']}, {t['x']}\n}}\n"
        )

    def oracle(self, x, target, weight):
        kwargs = dict(weight=weight, ignore_index=self.ignore_index, reduction=self.reduction)
        if self.via == "cross_entropy":
            return F.cross_entropy(x, target, **kwargs)
        return F.nll_loss(F.log_softmax(x, self.class_axis), target, **kwargs)

    def check(self, module) -> None:
        rng = np.random.default_rng(5)
        for n in self.batches():
            x, target, weight = self.inputs(n, rng)
            grad = rng.standard_normal(self.loss_shape(n)).astype(self.np_dtype)
            loss, dx = module[self.symbol](x, target, weight, grad)
            x64, t, w64, g64 = t64(x).requires_grad_(), torch.from_numpy(target), t64(weight), t64(grad)
            want_loss = self.oracle(x64, t, w64)
            (want_dx,) = torch.autograd.grad(want_loss, x64, g64)
            x64 = x64.detach()
            # The loss: nll_loss's model on logp = log_softmax(x), whose own error is A_y.
            ax = self.class_axis
            logp, a_y = aten._log_softmax(x64, ax, False), log_softmax_magnitude(x64, ax)
            loss_terms = logp.abs() + a_y
            _, total = aten_nll_forward(logp, t, w64, self.reduction, self.ignore_index)
            a_loss, _ = nll_loss_magnitudes(-loss_terms, t, w64, want_loss.detach(), total, self.reduction, self.ignore_index)
            assert_within_bound(loss, want_loss, a_loss, label=f"{self} loss")
            # The gradient: dx = dlogp - p sum(dlogp), p = exp(y) with relative error A_y u.
            dlogp = aten_nll_backward(g64.abs(), logp, t, w64.abs(), self.reduction, self.ignore_index, total.abs()).abs()
            a_dx = dlogp + logp.exp() * (1 + a_y) * dlogp.sum(ax, keepdim=True)
            assert_within_bound(dx, want_dx, a_dx, label=f"{self} dx")


CROSS_ENTROPY = [
    CrossEntropy(dtype=dtype, shape=shape, reduction=reduction, via=via, **extra)
    for dtype in DTYPES
    for reduction in ("mean", "sum", "none")
    for via, shape, extra in [
        ("cross_entropy", (5, 4), {}),
        ("cross_entropy", (2, 3, 2, 3), {}),
        ("cross_entropy", (6,), {}),
        ("log_softmax_nll_loss", (2, 4, 3), {"ignore_index": 1}),
        ("cross_entropy", (5, 4), {"kind": "large", "weighted": False}),
        ("cross_entropy", (5, 4), {"dynamic": True}),
        ("cross_entropy", (5, 4), {"targets": "all_ignored"}),
    ]
]


@dataclass(frozen=True)
class SoftmaxAutograd(Case):
    """`F.softmax` / `F.log_softmax` and their autograd gradients: forward op, then backward op on its output."""

    op: str = "softmax"
    shape: tuple[int, ...] = (4, 7)
    dim: int = 1
    kind: str = "normal"

    def label(self):
        return f"F_{self.op}_autograd_{'x'.join(map(str, self.shape))}_dim{self.dim}_{self.kind}"

    def function(self) -> str:
        t = mlir_type(self.shape, self.dtype)
        return (
            f"func.func @{self.symbol}(%x: {t}, %g: {t}) -> ({t}, {t}) {{\n"
            f"  %y = rlx.{self.op} %x dim {self.dim} : ({t}) -> {t}\n"
            f"  %dx = rlx.{self.op}_backward %g, %y dim {self.dim} : ({t}, {t}) -> {t}\n"
            f"  return %y, %dx : {t}, {t}\n}}\n"
        )

    def check(self, module) -> None:
        rng = np.random.default_rng(6)
        x = logits(self.shape, self.dim, self.kind, rng, self.np_dtype)
        g = rng.standard_normal(self.shape).astype(self.np_dtype)
        y, dx = module[self.symbol](x, g)
        x64, g64 = t64(x).requires_grad_(), t64(g)
        want_y = (F.softmax if self.op == "softmax" else F.log_softmax)(x64, self.dim)
        (want_dx,) = torch.autograd.grad(want_y, x64, g64)
        x64 = x64.detach()
        p = torch.softmax(x64, self.dim)
        if self.op == "softmax":
            relative = softmax_relative(x64, self.dim)
            a_y = p * relative
            # dx = y (g - sum g y): y's relative error scales every term that holds it.
            a_dx = p * (1 + relative) * (g64.abs() + (g64.abs() * p * (1 + relative)).sum(self.dim, keepdim=True))
        else:
            a_y = log_softmax_magnitude(x64, self.dim)
            a_dx = g64.abs() + p * (1 + a_y) * g64.abs().sum(self.dim, keepdim=True)
        tiny = underflow(self.np_dtype, self.op)
        assert_within_bound(y, want_y, a_y, extra=tiny, label=f"{self} y")
        scale = g64.abs() + g64.abs().sum(self.dim, keepdim=True)
        assert_within_bound(dx, want_dx, a_dx, extra=tiny * scale.numpy(), label=f"{self} dx")


SOFTMAX_AUTOGRAD = [
    SoftmaxAutograd(dtype=dtype, op=op, shape=shape, dim=dim, kind=kind)
    for dtype in DTYPES
    for op in ("softmax", "log_softmax")
    for shape, dim, kind in [((4, 7), 1, "normal"), ((3, 4, 5), 0, "normal"), ((4, 7), 1, "large"), ((3, 6, 2), 1, "neginf")]
]


@dataclass(frozen=True)
class NllLossEdge(Case):
    """nll_loss and its gradient on a [N, C] batch, for the cases `check` defines itself
    (the batch size n may be 0)."""

    n: int = 4
    reduction: str = "none"

    def label(self):
        return f"nll_loss_edge_n{self.n}_{self.reduction}"

    def function(self) -> str:
        x, target, w, s = mlir_type((self.n, 5), self.dtype), mlir_type((self.n,), "i64"), mlir_type((5,), self.dtype), mlir_type((), self.dtype)
        loss = mlir_type((self.n,), self.dtype) if self.reduction == "none" else s
        props = f'reduction "{self.reduction}"'
        return (
            f"func.func @{self.symbol}(%x: {x}, %t: {target}, %w: {w}, %g: {loss}) -> ({loss}, {s}, {x}) {{\n"
            f"  %l, %tw = rlx.nll_loss %x, %t, %w {props} : ({x}, {target}, {w}) -> ({loss}, {s})\n"
            f"  %d = rlx.nll_loss_backward %g, %x, %t, %w, %tw {props} : ({loss}, {x}, {target}, {w}, {s}) -> {x}\n"
            f"  return %l, %tw, %d : {loss}, {s}, {x}\n}}\n"
        )

    def run(self, module, logp, target, weight, grad):
        return module[self.symbol](logp.astype(self.np_dtype), target, weight.astype(self.np_dtype), grad.astype(self.np_dtype))


OUT_OF_RANGE = [NllLossEdge(dtype=dtype, reduction=r) for dtype in DTYPES for r in ("none", "sum", "mean")]
EMPTY_BATCH = [NllLossEdge(dtype=dtype, n=0, reduction=r) for dtype in DTYPES for r in ("none", "sum", "mean")]

ALL_CASES = [
    *SOFTMAX, *SOFTMAX_BACKWARD, *NLL_LOSS, *NLL_LOSS_BACKWARD, *CROSS_ENTROPY, *SOFTMAX_AUTOGRAD,
    *OUT_OF_RANGE, *EMPTY_BATCH,
]


@pytest.fixture(scope="module")
def module(compile_rlx):
    """Every case's function in one module, compiled once."""
    return compile_rlx("\n".join(case.function() for case in ALL_CASES))


@pytest.mark.parametrize("case", SOFTMAX, ids=str)
def test_softmax_forward_matches_aten(case, module):
    case.check(module)


@pytest.mark.parametrize("case", SOFTMAX_BACKWARD, ids=str)
def test_softmax_backward_matches_aten(case, module):
    case.check(module)


@pytest.mark.parametrize("case", NLL_LOSS, ids=str)
def test_nll_loss_matches_aten(case, module):
    case.check(module)


@pytest.mark.parametrize("case", NLL_LOSS_BACKWARD, ids=str)
def test_nll_loss_backward_matches_aten(case, module):
    case.check(module)


@pytest.mark.parametrize("case", CROSS_ENTROPY, ids=str)
def test_cross_entropy_and_its_gradient_match_autograd(case, module):
    case.check(module)


@pytest.mark.parametrize("case", SOFTMAX_AUTOGRAD, ids=str)
def test_softmax_and_its_gradient_match_autograd(case, module):
    case.check(module)


@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=str)
def test_nll_loss_target_out_of_range_is_nan_and_reads_nothing_outside(case, module):
    """PyTorch raises "Target 5 is out of bounds" (and -1 likewise); compiled code cannot.
    The op's documented behaviour: that element's loss is NaN (so a reduced loss is NaN),
    its weight and its gradient are 0. Every other element is PyTorch's, which is checked
    against ATen with the bad targets ignored instead."""
    rng = np.random.default_rng(7)
    logp = aten._log_softmax(torch.from_numpy(rng.standard_normal((4, 5))), 1, False)
    target = np.array([2, 5, 0, -1])
    weight = torch.from_numpy(rng.uniform(0.5, 2.0, 5))
    with pytest.raises((IndexError, RuntimeError), match="out of bounds"):
        aten.nll_loss_forward(logp, torch.from_numpy(target), weight, REDUCTION[case.reduction], -100)
    grad = rng.standard_normal((4,) if case.reduction == "none" else ())
    loss, total, dlogp = case.run(module, logp.numpy(), target, weight.numpy(), grad)
    ignored = torch.from_numpy(np.where((target < 0) | (target >= 5), -100, target))
    logp64, w64 = t64(logp.numpy().astype(case.np_dtype)), t64(weight.numpy().astype(case.np_dtype))
    want_loss, want_total = aten.nll_loss_forward(logp64, ignored, w64, REDUCTION[case.reduction], -100)
    if case.reduction == "none":
        assert np.isnan(loss[[1, 3]]).all()
        assert_within_bound(loss[[0, 2]], want_loss[[0, 2]], (logp64 * w64)[[0, 2], [2, 0]].abs(), label=str(case))
    else:
        assert np.isnan(loss)
        assert_within_bound(total, want_total, w64[[2, 0]].sum(), label=f"{case} total_weight")
    g64 = t64(grad.astype(case.np_dtype))
    want = aten.nll_loss_backward(g64, logp64, ignored, w64, REDUCTION[case.reduction], -100, t64(total))
    magnitude = aten.nll_loss_backward(g64.abs(), logp64, ignored, w64, REDUCTION[case.reduction], -100, t64(total).abs()).abs()
    assert_within_bound(dlogp, want, magnitude, label=f"{case} dlogp")


@pytest.mark.parametrize("case", EMPTY_BATCH, ids=str)
def test_nll_loss_of_an_empty_batch(case, module):
    """N = 0: "mean" is 0/0 = NaN, "sum" 0, "none" empty; the total weight 0, the gradient empty (ATen's)."""
    logp, target, weight = np.zeros((0, 5)), np.zeros((0,), np.int64), np.ones(5)
    grad = np.zeros((0,)) if case.reduction == "none" else np.ones(())
    loss, total, dlogp = case.run(module, logp, target, weight, grad)
    want_loss, want_total = aten.nll_loss_forward(t64(logp), torch.from_numpy(target), t64(weight), REDUCTION[case.reduction], -100)
    assert_within_bound(loss, want_loss, torch.zeros_like(want_loss), label=str(case))
    assert_within_bound(total, want_total, torch.zeros((), dtype=torch.float64), label=str(case))
    assert dlogp.shape == (0, 5)
