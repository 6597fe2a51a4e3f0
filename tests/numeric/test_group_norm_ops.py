"""Group norm and eval-mode batch norm's backward, lowered by both passes and run natively,
against PyTorch 2.13 (CPU).

Oracle: the ATen ops (`native_group_norm`, `native_group_norm_backward`,
`native_batch_norm_backward(train=False)`) in float64 on our inputs upcast, and for the
training step `F.group_norm` with autograd.

Error bound: `test_norm_ops`'s model (`oracle.assert_within_bound`, k = 16), with each
(sample, group) in the place of layer norm's row: S = mean(|x|) and rstd per group,
cond = S * rstd, A(y) = |w| (cond (1 + |xhat|) + |xhat|) + |b|, A(mean) = S,
A(rstd) = rstd (1 + cond); the gradients are sums of products: A(dx) = rstd (|g| +
mean|g| + |xhat| mean(|g| |xhat|)) with g = dy * w and the means over the group,
A(dweight) = sum |dy| |xhat| and A(dbias) = sum |dy| over N and the spatial axes (for the
training step, whose backward reads our own statistics, widened by (1 + cond) as there).
Eval-mode batch norm's backward has no mean terms: A(dx) = |dy| |w| invstd,
A(dweight) = invstd sum |dy| (|x| + |running_mean|), A(dbias) = sum |dy|.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects import arith, tensor

from numeric.test_norm_ops import (
    Case,
    _both,
    _channel,
    _float,
    _t,
    _y_magnitude,
    assert_lowered_upstream_only_and_valid,
    lowered_op_count,
    run_case,
)
from oracle import assert_within_bound
from rlx_mlir.dialects import rlx
from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

aten = torch.ops.aten


def _group_stats(x: torch.Tensor, groups: int, eps: float):
    """mean, S = mean |x|, rstd per (n, g), each [N, G]."""
    rows = x.reshape(x.shape[0], groups, -1)
    return rows.mean(-1), rows.abs().mean(-1), 1 / torch.sqrt(rows.var(-1, unbiased=False) + eps)


def _at_x(stat: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A per-(n, g) [N, G] value broadcast to every element of its group in x's shape."""
    n, groups = stat.shape
    return stat[:, :, None].expand(n, groups, x[0].numel() // groups).reshape(x.shape)


def _group_mean(v: torch.Tensor, groups: int) -> torch.Tensor:
    return _at_x(v.reshape(v.shape[0], groups, -1).mean(-1), v)


def _group_grad_magnitudes(dy, x, w, mean, rstd, groups, cond=None):
    """A(dx), A(dweight), A(dbias) of native_group_norm_backward (module docstring)."""
    rank = x.dim()
    dims = [0, *range(2, rank)]
    mean_x, rstd_x = _at_x(mean, x), _at_x(rstd, x)
    xhat = ((x - mean_x) * rstd_x).abs()
    factor = 1.0
    if cond is not None:
        factor = 1 + _at_x(cond, x)
        xhat = xhat * factor + _at_x(cond, x)
    g = dy.abs() * (1.0 if w is None else _channel(w, rank).abs())
    a_dx = rstd_x * factor * (g + _group_mean(g, groups) + xhat * _group_mean(g * xhat, groups))
    return a_dx, (dy.abs() * xhat).sum(dim=dims), dy.abs().sum(dim=dims)


@dataclass(frozen=True)
class GroupNorm(Case):
    groups: int = 1
    eps: float = 1e-5
    affine: bool = True

    def __str__(self) -> str:
        shape = "x".join(map(str, self.shape))
        return f"group_norm_{shape}_g{self.groups}_e{self.eps:g}{'_affine' if self.affine else ''}{self.tail()}"

    def types(self):
        return self.ty(self.shape), self.ty((self.shape[1],), batched=False), self.ty((self.shape[0], self.groups))

    def forward_op(self) -> str:
        xt, ct, st = self.types()
        affine = " affine %w, %b" if self.affine else ""
        operand_types = ", ".join([xt, *([ct, ct] if self.affine else [])])
        return (f"  %y, %mean, %rstd = rlx.group_norm %x{affine} groups {self.groups} eps {_float(self.eps)}"
                f" : ({operand_types}) -> ({xt}, {st}, {st})\n")

    def params(self):
        xt, ct, _ = self.types()
        return [("x", xt), *([("w", ct), ("b", ct)] if self.affine else [])]

    def text(self) -> str:
        xt, _, st = self.types()
        return self.function(self.params(), self.forward_op(), [("y", xt), ("mean", st), ("rstd", st)])

    def affine_inputs(self, rng):
        c = self.shape[1]
        return [rng.standard_normal(c).astype(self.np_dtype) for _ in range(2)] if self.affine else []

    def inputs(self, rng, n):
        return [self.x(rng, n), *self.affine_inputs(rng)]

    def aten_args(self, x):
        return x.shape[0], x.shape[1], math.prod(x.shape[2:]), self.groups

    def check(self, got, inputs):
        x, *affine = map(_t, inputs)
        w, b = affine if affine else (None, None)
        want = aten.native_group_norm(x, w, b, *self.aten_args(x), self.eps)
        mean, s, rstd = _group_stats(x, self.groups, self.eps)
        cond = s * rstd
        rank = x.dim()
        xhat = (x - _at_x(mean, x)) * _at_x(rstd, x)
        ones = torch.ones(x.shape[1], dtype=x.dtype)
        w_, b_ = (w, b) if affine else (ones, 0 * ones)
        magnitudes = [_y_magnitude(_channel(w_, rank), _channel(b_, rank), xhat, _at_x(cond, x)), s, rstd * (1 + cond)]
        for name, g, want_, a in zip(("y", "mean", "rstd"), got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class GroupNormBackward(GroupNorm):
    """native_group_norm_backward on ATen's own mean and rstd (f64, rounded to the dtype)."""

    def __str__(self) -> str:
        return "group_norm_backward_" + GroupNorm.__str__(self)[len("group_norm_"):]

    def backward_op(self) -> str:
        xt, ct, st = self.types()
        weight = " weight %w" if self.affine else ""
        operand_types = ", ".join([xt, xt, st, st, *([ct] if self.affine else [])])
        return (f"  %dx, %dw, %db = rlx.group_norm_backward %dy, %x, %mean, %rstd{weight} groups {self.groups}"
                f" : ({operand_types}) -> ({xt}, {ct}, {ct})\n")

    def outputs(self):
        xt, ct, _ = self.types()
        return [("dx", xt), ("dw", ct), ("db", ct)]

    def text(self) -> str:
        xt, ct, st = self.types()
        params = [("dy", xt), ("x", xt), ("mean", st), ("rstd", st), *([("w", ct)] if self.affine else [])]
        return self.function(params, self.backward_op(), self.outputs())

    def inputs(self, rng, n):
        x = self.x(rng, n)
        _, mean, rstd = aten.native_group_norm(_t(x), None, None, *self.aten_args(x), self.eps)
        dy = rng.standard_normal(x.shape).astype(self.np_dtype)
        weight = [rng.standard_normal(self.shape[1]).astype(self.np_dtype)] if self.affine else []
        return [dy, x, mean.numpy().astype(self.np_dtype), rstd.numpy().astype(self.np_dtype), *weight]

    def check(self, got, inputs):
        dy, x, mean, rstd, *w = map(_t, inputs)
        w = w[0] if w else None
        # ATen computes no dweight without a weight; with ones it is the same gradient.
        ones = torch.ones(x.shape[1], dtype=x.dtype)
        want = aten.native_group_norm_backward(dy, x, mean, rstd, ones if w is None else w, *self.aten_args(x), [True] * 3)
        magnitudes = _group_grad_magnitudes(dy, x, w, mean, rstd, self.groups)
        for name, g, want_, a in zip(("dx", "dweight", "dbias"), got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class GroupNormTrainingStep(GroupNormBackward):
    """rlx.group_norm then rlx.group_norm_backward on its mean and rstd, against
    F.group_norm and autograd in float64."""

    def __str__(self) -> str:
        return "group_norm_step_" + GroupNorm.__str__(self)[len("group_norm_"):]

    def text(self) -> str:
        xt, _, _ = self.types()
        body = self.forward_op() + self.backward_op()
        outputs = self.outputs() if self.affine else self.outputs()[:1]
        return self.function([*self.params(), ("dy", xt)], body, [("y", xt), *outputs])

    def inputs(self, rng, n):
        return [*GroupNorm.inputs(self, rng, n), rng.standard_normal((n, *self.shape[1:])).astype(self.np_dtype)]

    def check(self, got, inputs):
        x, *affine, dy = map(_t, inputs)
        params = [v.requires_grad_() for v in (x, *affine)]
        w, b = affine if affine else (None, None)
        y = F.group_norm(x, self.groups, w, b, self.eps)
        want = (y.detach(), *torch.autograd.grad(y, params, dy))
        x = x.detach()
        w = None if w is None else w.detach()
        mean, s, rstd = _group_stats(x, self.groups, self.eps)
        cond = s * rstd
        rank = x.dim()
        xhat = (x - _at_x(mean, x)) * _at_x(rstd, x)
        ones = torch.ones(x.shape[1], dtype=x.dtype)
        w_, b_ = (w, b.detach()) if affine else (ones, 0 * ones)
        a_y = _y_magnitude(_channel(w_, rank), _channel(b_, rank), xhat, _at_x(cond, x))
        magnitudes = (a_y, *_group_grad_magnitudes(dy, x, w, mean, rstd, self.groups, cond))
        for name, g, want_, a in zip(("y", "dx", "dweight", "dbias"), got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


@dataclass(frozen=True)
class BatchNormInferenceBackward(Case):
    """native_batch_norm_backward(train=False): the running statistics frozen."""

    eps: float = 1e-5
    weight: bool = True

    def __str__(self) -> str:
        shape = "x".join(map(str, self.shape))
        return f"batch_norm_inference_backward_{shape}_e{self.eps:g}{'_w' if self.weight else ''}{self.tail()}"

    def text(self) -> str:
        c = self.shape[1]
        xt, ct = self.ty(self.shape), self.ty((c,), batched=False)
        weight = " weight %w" if self.weight else ""
        operand_types = ", ".join([xt, xt, ct, ct, *([ct] if self.weight else [])])
        body = (f"  %dx, %dw, %db = rlx.batch_norm_inference_backward %dy, %x, %rm, %rv{weight} eps {_float(self.eps)}"
                f" : ({operand_types}) -> ({xt}, {ct}, {ct})\n")
        params = [("dy", xt), ("x", xt), ("rm", ct), ("rv", ct), *([("w", ct)] if self.weight else [])]
        return self.function(params, body, [("dx", xt), ("dw", ct), ("db", ct)])

    def inputs(self, rng, n):
        c = self.shape[1]
        x = self.x(rng, n)
        dy = rng.standard_normal(x.shape).astype(self.np_dtype)
        rm = rng.standard_normal(c).astype(self.np_dtype)
        rv = rng.uniform(0.5, 2.0, c).astype(self.np_dtype)
        return [dy, x, rm, rv, *([rng.standard_normal(c).astype(self.np_dtype)] if self.weight else [])]

    def check(self, got, inputs):
        dy, x, rm, rv, *w = map(_t, inputs)
        w = w[0] if w else None
        want = aten.native_batch_norm_backward(dy, x, w, rm, rv, None, None, False, self.eps, [True, True, True])
        rank = x.dim()
        dims = [0, *range(2, rank)]
        invstd = 1 / torch.sqrt(rv + self.eps)
        w_abs = torch.ones_like(rv) if w is None else w.abs()
        magnitudes = (
            dy.abs() * _channel(w_abs * invstd, rank),
            invstd * (dy.abs() * (x.abs() + _channel(rm, rank).abs())).sum(dim=dims),
            dy.abs().sum(dim=dims),
        )
        for name, g, want_, a in zip(("dx", "dweight", "dbias"), got, want, magnitudes):
            assert_within_bound(g, want_, a, dtype=self.np_dtype, label=f"{self}:{name}")


CASES = [
    # Group norm over 0 to 3 spatial axes, groups 1 (layer norm over C, *s) and C
    # (instance norm), with and without the affine weight and bias; a dynamic batch; a
    # large mean (the stable variance).
    *_both(GroupNorm, shape=(3, 6), groups=2),
    GroupNorm(shape=(2, 4, 5), groups=1, affine=False),
    *_both(GroupNorm, shape=(2, 6, 3, 4), groups=3, eps=1e-3),
    GroupNorm(shape=(2, 4, 2, 3, 2), groups=4, dtype="f64"),
    GroupNorm(shape=(2, 4, 3, 3), groups=4, affine=False),
    *_both(GroupNorm, shape=(3, 4, 5), groups=2, dynamic=True),
    GroupNorm(shape=(2, 4, 16), groups=2, offset=1000.0),
    # The gradient on ATen's statistics, and the forward + backward pair against autograd.
    *_both(GroupNormBackward, shape=(2, 6, 3, 4), groups=3),
    GroupNormBackward(shape=(3, 4), groups=4, affine=False),
    GroupNormBackward(shape=(2, 4, 5), groups=1, dtype="f64"),
    GroupNormBackward(shape=(2, 4, 2, 2, 3), groups=2, affine=False, dtype="f64"),
    GroupNormBackward(shape=(3, 4, 5), groups=2, dynamic=True),
    *_both(GroupNormTrainingStep, shape=(2, 6, 4), groups=3),
    GroupNormTrainingStep(shape=(2, 4, 3, 3), groups=4, affine=False),
    GroupNormTrainingStep(shape=(3, 4), groups=1, dtype="f64"),
    GroupNormTrainingStep(shape=(2, 4, 2, 3), groups=2, dynamic=True, dtype="f64"),
    # Eval-mode batch norm's gradient: 0 to 3 spatial axes, no weight, a dynamic batch.
    *_both(BatchNormInferenceBackward, shape=(2, 3, 4, 5)),
    BatchNormInferenceBackward(shape=(4, 3), weight=False),
    BatchNormInferenceBackward(shape=(2, 3, 5), eps=1e-3, dtype="f64"),
    BatchNormInferenceBackward(shape=(2, 2, 3, 2, 3), weight=False, dtype="f64"),
    BatchNormInferenceBackward(shape=(3, 2, 4), dynamic=True),
]


@pytest.fixture(scope="module")
def group_norm_module(compile_rlx):
    """Every case as one function of one module, compiled once."""
    return compile_rlx("".join(case.text() for case in CASES))


def test_case_ids_are_unique():
    assert len({str(c) for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_group_norm_op_matches_pytorch(case, group_norm_module):
    run_case(case, group_norm_module)


@pytest.mark.parametrize("small, large", [
    (GroupNormTrainingStep(shape=(2, 6, 4), groups=3), GroupNormTrainingStep(shape=(64, 96, 32), groups=3)),
    (BatchNormInferenceBackward(shape=(2, 3, 4)), BatchNormInferenceBackward(shape=(64, 3, 256))),
], ids=["group_norm", "batch_norm_inference_backward"])
def test_lowered_ir_does_not_grow_with_the_data(small, large):
    assert lowered_op_count(small) == lowered_op_count(large)


def test_lowered_ops_are_upstream_only_and_pass_mlir_opt(tmp_path):
    cases = [
        GroupNormTrainingStep(shape=(3, 4, 5), groups=2, dynamic=True),
        GroupNormBackward(shape=(3, 4), groups=4, affine=False),
        GroupNorm(shape=(2, 4, 3, 3), groups=4, affine=False),
        BatchNormInferenceBackward(shape=(3, 2, 4), dynamic=True),
        BatchNormInferenceBackward(shape=(4, 3), weight=False),
    ]
    assert_lowered_upstream_only_and_valid(cases, tmp_path / "group_norm.mlir")


def test_passes_leave_what_they_promise():
    """decompose-backward lowers the two gradient ops and leaves group_norm (a forward op)
    alone; convert-rlx-to-linalg then leaves no RLX op; each block holds one constant per
    value and one `tensor.dim` per (tensor, axis) (`test_legal_after_passes`'s promises)."""
    cases = [
        GroupNormTrainingStep(shape=(3, 4, 5), groups=2, dynamic=True),
        BatchNormInferenceBackward(shape=(3, 2, 4), dynamic=True, weight=False),
    ]
    ctx = make_context()
    module = parse_module(ctx, "".join(case.text() for case in cases))
    DecomposeBackwardPass().apply(ctx, module)
    verify_module(module)
    assert {op.name for op in module.walk() if op.name.startswith("rlx.")} == {rlx.GroupNormOp.name}
    ConvertRlxToLinalgPass().apply(ctx, module)
    verify_module(module)
    assert {op.name.split(".")[0] for op in module.walk()} <= {"builtin", "func", "linalg", "arith", "tensor", "math"}
    for op in module.walk():
        for block in (block for region in op.regions for block in region.blocks):
            constants = [(str(o.value), o.result.type) for o in block.ops if isinstance(o, arith.ConstantOp)]
            dims = [(o.source, o.index) for o in block.ops if isinstance(o, tensor.DimOp)]
            assert len(constants) == len(set(constants)) and len(dims) == len(set(dims)), op.name
