"""Differentiate an RLX function k times with the autodiff pass, run it, and ask PyTorch.

`ours(source, order)` applies `autodiff` `order` times (`func=f`, then `f_vjp`, ...),
each time with respect to every float argument, compiles the module through
`rlx_mlir.compile` and returns the callable `@f_vjp...` (order `k`: `k` suffixes).

`torch_vjp(fn, n_outputs)` is the same construction in PyTorch: the function of
(inputs, one cotangent per output) that returns `torch.autograd.grad(fn(inputs), inputs,
cotangents, create_graph=True)`, gradients of unused inputs as zeros; applied k times it
is PyTorch's k-th order oracle, computed in float64.

Error model (tests/oracle.py): every function tested here is a sum of products of its
inputs with non-negative coefficients (convs, transposed convs, average pools and their
gradients are multilinear; a max-pool function is linear given its argmax), so
A = the same function of |inputs|, with the inputs that only select (max-pool inputs)
passed unchanged, and the bound is `K (eps + eps64) A`.
"""

from __future__ import annotations

import numpy as np
import torch
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

import rlx_mlir
from rlx_mlir.transforms import adjoint
from rlx_mlir.transforms.options import LoweringOptions
from oracle import assert_within_bound


def differentiated(source: str, order: int):
    """The module with @f, @f_vjp, ... (`order` levels) and the name of the last."""
    name = "f"
    module = source
    for _ in range(order):
        module = rlx_mlir.autodiff(module, name)
        name += "_vjp"
    return module, name


def lower_adjoint_ops(module) -> None:
    """Until decompose-backward owns the adjoint ops (requests-autodiff.md), lower them here."""
    patterns = []
    adjoint.populate_backward(patterns, LoweringOptions())
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(module)


def ours(source: str, order: int):
    module, name = differentiated(source, order)
    lower_adjoint_ops(module)
    return rlx_mlir.compile(module, pipeline="plain")[name]


def torch_vjp(fn, n_outputs: int):
    def vjp(*args):
        inputs, cotangents = args[: len(args) - n_outputs], args[len(args) - n_outputs :]
        outputs = fn(*inputs)
        used = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
        if not used:
            return tuple(torch.zeros_like(t) for t in inputs)
        return torch.autograd.grad(
            [o for o, _ in used], inputs, [c for _, c in used], create_graph=True, allow_unused=True,
            materialize_grads=True,
        )

    return vjp


def torch_order(fn, n_inputs: int, order: int):
    """PyTorch's k-th order function and its argument count."""
    outputs = 1
    wrapped = lambda *a: (fn(*a),)  # noqa: E731
    for _ in range(order):
        wrapped, n_inputs, outputs = torch_vjp(wrapped, outputs), n_inputs + outputs, n_inputs
    return wrapped, n_inputs


def check(source: str, fn, shapes, dtype, order: int, selects=(), seed: int = 0, label: str = "",
          positive=(), ulps: float | None = None, leading=(), compiled=ours):
    """Our `order`-th VJP of `@f` (whose inputs have `shapes`) against PyTorch's, within the bound.

    Inputs at `positive` are drawn from [0.5, 2.5) (log, sqrt). With `ulps`, the bound is
    `ulps * eps(dtype) * max|want|` per gradient: for the non-linear elementwise ops, whose
    VJPs are short chains of roundings, and whose A has no closed form. `leading` are
    arrays passed first to our function only, arguments not differentiated (a bool mask
    as i8, which `fn` holds itself); `compiled(source, order)` builds our function.
    """
    torch_fn, n_args = torch_order(fn, len(shapes), order)
    rng = np.random.default_rng(seed)
    # the arguments of @f_vjp^k: f's inputs, then cotangents of each level's outputs
    all_shapes = list(shapes)
    level_out = [tuple(fn(*[torch.zeros(s, dtype=torch.float64) for s in shapes]).shape)]
    ins = list(shapes)
    for _ in range(order):
        all_shapes += level_out
        level_out, ins = ins, ins + level_out
    assert len(all_shapes) == n_args
    args = [
        (rng.uniform(0.5, 2.5, s) if i in positive else rng.standard_normal(s)).astype(dtype)
        for i, s in enumerate(all_shapes)
    ]
    got = compiled(source, order)(*leading, *args)
    got = got if isinstance(got, tuple) else (got,)

    def run(values):
        tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
        # PyTorch returns some known-zero gradients as ZeroTensors (abs's second order)
        return [np.zeros(t.shape) if t._is_zerotensor() else t.detach().numpy() for t in torch_fn(*tensors)]

    want = run(args)
    if ulps is not None:
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert g.shape == w.shape and g.dtype == dtype, (g.shape, w.shape, g.dtype)
            scale = np.abs(w).max()
            err = np.abs(g.astype(np.float64) - w).max()
            assert err <= ulps * np.finfo(dtype).eps * scale, (
                f"{label} order {order} gradient {i}: |err| {err:.3g} = "
                f"{err / (np.finfo(dtype).eps * scale):.3g} eps * max|want| (bound {ulps})"
            )
        return
    magnitude = run([a if i in selects else np.abs(a) for i, a in enumerate(args)])
    assert len(got) == len(want)
    for i, (g, w, m) in enumerate(zip(got, want, magnitude)):
        assert_within_bound(g, w, np.abs(m), dtype=dtype, label=f"{label} order {order} gradient {i}")
