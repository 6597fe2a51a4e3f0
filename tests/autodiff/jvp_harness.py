"""Forward mode against PyTorch: many one-op functions in one module, compiled once.

`JvpTable(cases)` writes every case's function (`@case_<name>`: a bare `@erf` would clash
with libm's) into one module, adds
`@<name>_jvp` for each with the jvp pass, and compiles the module once (a compile per case
would dominate the run); `check(case)` then runs one case's JVP on random primals and
tangents and compares the primal results and the tangents with `torch.func.jvp`, the
oracle, in f64: |ours - torch| <= 1e-9 max(1, max|torch|). A case of several (float)
results compares each result and its tangent.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

import rlx_mlir
from rlx_mlir.autodiff.forward import jvp
from vjp_harness import lower_adjoint_ops

TOLERANCE = 1e-9


def assert_close_f64(got, want, label: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (label, got.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    err = float(np.abs(got - want).max(initial=0.0))
    assert err <= TOLERANCE * scale, f"{label}: |err| {err:.3g} > {TOLERANCE} * {scale:.3g}"


def random_inputs(shapes, positive=(), seed: int = 0):
    """N(0, 1) arrays of `shapes` ([0.5, 2.5) at `positive`); an integer array in `shapes`
    (positions, a gather's index) is passed as it is."""
    rng = np.random.default_rng(seed)
    return [
        s if isinstance(s, np.ndarray) else rng.uniform(0.5, 2.5, s) if i in positive else rng.standard_normal(s)
        for i, s in enumerate(shapes)
    ]


def torch_jvp(fn, primals, tangents):
    """PyTorch's (fn(primals), J tangents): `torch.func.jvp`, or, for a function that calls
    `torch.autograd.grad` (PyTorch's side of our backward ops), the double-VJP identity
    J v = d/du <J^T u, v> on PyTorch's autograd."""
    try:
        return torch.func.jvp(fn, tuple(primals), tuple(tangents))
    except RuntimeError:
        pass
    primals = [p.clone().requires_grad_(True) for p in primals]
    y = fn(*primals)
    u = torch.zeros_like(y, requires_grad=True)
    vjps = torch.autograd.grad(y, primals, u, create_graph=True, allow_unused=True)
    inner = sum((g * v).sum() for g, v in zip(vjps, tangents) if g is not None)
    if not isinstance(inner, torch.Tensor) or not inner.requires_grad:
        return y.detach(), torch.zeros_like(y)
    (jv,) = torch.autograd.grad(inner, u, allow_unused=True, materialize_grads=True)
    return y.detach(), jv


class JvpTable:
    """One compiled module of every case's `@case_NAME_jvp` (`case.source("f64")`, `@f` renamed)."""

    def __init__(self, cases):
        self.cases = {case.name: case for case in cases}

    @functools.cached_property
    def compiled(self):
        text = "\n".join(case.source("f64").replace("func.func @f(", f"func.func @case_{name}(") for name, case in self.cases.items())
        module = jvp(text, [f"case_{name}" for name in self.cases])
        lower_adjoint_ops(module)
        return rlx_mlir.compile(module, pipeline="plain")

    def check(self, name: str, positive=()) -> None:
        """Tangents for the float arguments (the pass's default `wrt`), none for the integer ones."""
        case = self.cases[name]
        primals = random_inputs(case.shapes, positive, seed=0)
        floats = [i for i, s in enumerate(case.shapes) if not isinstance(s, np.ndarray)]
        tangents = random_inputs([case.shapes[i] for i in floats], seed=1)
        got = self.compiled[f"case_{name}_jvp"](*primals, *tangents)

        def of_floats(*values):
            args = [torch.tensor(p) for p in primals]
            for i, value in zip(floats, values):
                args[i] = value
            return case.fn(*args)

        want_y, want_dy = torch_jvp(of_floats, [torch.tensor(primals[i]) for i in floats], list(map(torch.tensor, tangents)))
        if not isinstance(want_y, tuple):  # one result
            want_y, want_dy = (want_y,), (want_dy,)
        assert len(got) == 2 * len(want_y), (name, len(got), len(want_y))
        for i, (y, dy) in enumerate(zip(want_y, want_dy)):
            assert_close_f64(got[i], y.numpy(), f"{name} primal {i}")
            assert_close_f64(got[len(want_y) + i], dy.numpy(), f"{name} tangent {i}")
