"""Every 1-D RLX op, lowered through its 2-D op over a unit height, against PyTorch's 1-D ops.

`transforms/unit_height.py` rewrites each 1-D op as its 2-D twin; the oracle here is
PyTorch's own 1-D function (F.conv1d, F.max_pool1d, ...) and its autograd, never a 2-D
computation of ours. One module per dtype holds every case (one function each), compiled
once; a case with a dynamic batch runs with two batch sizes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_exact, assert_matches, tensor_type

DTYPES = {"f32": np.float32, "f64": np.float64}


def _list(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


@dataclass(frozen=True)
class Case1d:
    """One op: its text, operand shapes (batch first where `batched`), result shape and oracle."""

    label: str
    op: str
    attrs: str
    shapes: tuple[tuple[int, ...], ...]
    result: tuple[int, ...]
    oracle: Callable[..., torch.Tensor]
    batched: tuple[bool, ...] = ()
    result_batched: bool = True
    exact: bool = False
    selects: tuple[int, ...] = ()
    dynamic: bool = False
    integer_inputs: bool = False  # small integers: ties for the max pools
    tags: dict = field(default_factory=dict, hash=False)

    def symbol(self, dtype: str) -> str:
        return re.sub(r"\W", "_", f"{self.label}_{'dyn' if self.dynamic else 'static'}_{dtype}")

    def _batched(self, i: int) -> bool:
        return self.batched[i] if self.batched else True

    def shapes_for(self, n: int) -> list[tuple[int, ...]]:
        return [(n, *s[1:]) if self._batched(i) else s for i, s in enumerate(self.shapes)]

    def function(self, dtype: str) -> str:
        np_dtype = DTYPES[dtype]
        n = self.shapes[0][0]
        types = [
            tensor_type(s, np_dtype, self.dynamic and self._batched(i)) for i, s in enumerate(self.shapes_for(n))
        ]
        result_shape = (n, *self.result[1:]) if self.result_batched else self.result
        result = tensor_type(result_shape, np_dtype, self.dynamic and self.result_batched)
        args = [f"%a{i}" for i in range(len(types))]
        params = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
        return (
            f"func.func @{self.symbol(dtype)}({params}) -> {result} {{\n"
            f"  %y = {self.op} {', '.join(args)}{self.attrs} : ({', '.join(types)}) -> {result}\n"
            f"  return %y : {result}\n}}\n"
        )

    def batches(self) -> list[int]:
        n = self.shapes[0][0]
        return [n, n + 2] if self.dynamic else [n]

    def inputs(self, n: int, dtype: str) -> list[np.ndarray]:
        rng = np.random.default_rng(0)
        shapes = self.shapes_for(n)
        if self.integer_inputs:
            return [rng.integers(-3, 4, s).astype(DTYPES[dtype]) for s in shapes]
        return [rng.standard_normal(s).astype(DTYPES[dtype]) for s in shapes]


def _grad(forward, wrt: int, count: int):
    """The gradient of `forward(*primals)` wrt primal `wrt`, as a function of (primals..., dy)
    with the primals other than those the gradient depends on passed in their original order."""

    def oracle(*tensors):
        primals = [t.clone().requires_grad_(i == wrt) for i, t in enumerate(tensors[:count])]
        dy = tensors[count]
        (g,) = torch.autograd.grad(forward(*primals), primals[wrt], dy)
        return g

    return oracle


def conv_cases() -> list[Case1d]:
    cases = []
    for label, (c, length, f, k, s, p, d, g) in {
        "plain": (3, 16, 4, 3, 1, (1,), 1, 1),
        "strided-dilated": (4, 17, 6, 3, 2, (2,), 2, 1),
        "grouped": (4, 12, 6, 3, 1, (0,), 1, 2),
        "depthwise-stride3": (4, 14, 4, 5, 3, (2,), 1, 4),
        "per-side": (3, 11, 4, 4, 1, (1, 2), 1, 1),
        "kernel-is-input": (2, 5, 3, 5, 1, (0,), 1, 1),
    }.items():
        low, high = (p[0], p[0]) if len(p) == 1 else p
        out = (length + low + high - d * (k - 1) - 1) // s + 1
        attrs = f" stride [{s}] padding {_list(p)} dilation [{d}] groups {g}"
        n = 2

        def fwd(x, w, s=s, low=low, high=high, d=d, g=g):
            return F.conv1d(F.pad(x, (low, high)), w, stride=s, dilation=d, groups=g)

        x, w, y = (n, c, length), (f, c // g, k), (n, f, out)
        window = f" kernel_size [{k}]{attrs}"
        cases += [
            Case1d(f"conv1d-{label}", "rlx.conv1d", attrs, (x, w), y, fwd, batched=(True, False), dynamic=label == "plain"),
            Case1d(f"conv1d_backward_input-{label}", "rlx.conv1d_backward_input", window, (y, w), x,
                   lambda dy, w, fwd=fwd, x=x: _grad(fwd, 0, 2)(torch.zeros((dy.shape[0], *x[1:]), dtype=dy.dtype), w, dy),
                   batched=(True, False), dynamic=label == "strided-dilated"),
            Case1d(f"conv1d_backward_weight-{label}", "rlx.conv1d_backward_weight", window, (x, y), w,
                   lambda x, dy, fwd=fwd, w=w: _grad(fwd, 1, 2)(x, torch.zeros(w, dtype=x.dtype), dy),
                   result_batched=False, dynamic=label == "grouped"),
        ]
    return cases


def conv_transpose_cases() -> list[Case1d]:
    cases = []
    for label, (c, length, f, k, s, p, d, op, g) in {
        "strided": (4, 6, 3, 3, 2, 1, 1, 1, 1),
        "dilated-output-padding-past-stride": (2, 5, 4, 3, 2, 1, 3, 2, 2),
    }.items():
        out = (length - 1) * s - 2 * p + d * (k - 1) + op + 1
        n = 2

        def fwd(x, w, s=s, p=p, d=d, op=op, g=g):
            return F.conv_transpose1d(x, w, stride=s, padding=p, output_padding=op, dilation=d, groups=g)

        x, w, y = (n, c, length), (c, f // g, k), (n, f, out)
        attrs = f" stride [{s}] padding [{p}] dilation [{d}] output_padding [{op}] groups {g}"
        grad_attrs = f" stride [{s}] padding [{p}] dilation [{d}] groups {g}"
        cases += [
            Case1d(f"conv_transpose1d-{label}", "rlx.conv_transpose1d", attrs, (x, w), y, fwd, batched=(True, False),
                   dynamic=label == "strided"),
            Case1d(f"conv_transpose1d_backward_input-{label}", "rlx.conv_transpose1d_backward_input", grad_attrs,
                   (y, w), x,
                   lambda dy, w, fwd=fwd, x=x: _grad(fwd, 0, 2)(torch.zeros((dy.shape[0], *x[1:]), dtype=dy.dtype), w, dy),
                   batched=(True, False)),
            Case1d(f"conv_transpose1d_backward_weight-{label}", "rlx.conv_transpose1d_backward_weight",
                   f" kernel_size [{k}]{grad_attrs}", (x, y), w,
                   lambda x, dy, fwd=fwd, w=w: _grad(fwd, 1, 2)(x, torch.zeros(w, dtype=x.dtype), dy),
                   result_batched=False),
        ]
    return cases


def pool_cases() -> list[Case1d]:
    cases = []
    for label, (length, k, s, p, d, ceil) in {
        "k2s2": (16, 2, 2, 0, 1, False),
        "k3s2p1": (15, 3, 2, 1, 1, False),
        "ceil-changes-size": (8, 3, 2, 1, 1, True),
        "ceil-keeps-size": (9, 3, 2, 1, 1, True),
        "dilated": (13, 3, 2, 1, 2, False),
        "global": (7, 7, 7, 0, 1, False),
    }.items():
        n, c = 2, 3
        y = F.max_pool1d(torch.zeros(1, 1, length), k, s, p, d, ceil_mode=ceil)
        out = y.shape[-1]
        x_shape, y_shape = (n, c, length), (n, c, out)
        flags = f" dilation [{d}]" + (" ceil_mode true" if ceil else "")
        window = f" kernel_size [{k}] stride [{s}] padding [{p}]"

        def max_fwd(x, k=k, s=s, p=p, d=d, ceil=ceil):
            return F.max_pool1d(x, k, s, p, d, ceil_mode=ceil)

        cases += [
            Case1d(f"max_pool1d-{label}", "rlx.max_pool1d", window + flags, (x_shape,), y_shape, max_fwd, exact=True,
                   dynamic=label == "k3s2p1"),
            Case1d(f"max_pool1d_backward-{label}", "rlx.max_pool1d_backward", window + flags, (x_shape, y_shape),
                   x_shape, lambda x, dy, f=max_fwd: _grad(f, 0, 1)(x, dy), selects=(0,), integer_inputs=True,
                   dynamic=label == "k2s2"),
        ]
        if d == 1:
            for include in (True, False):
                for divisor in (0, 3) if label == "ceil-changes-size" else (0,):
                    tag = f"{label}-{'incl' if include else 'excl'}" + (f"-div{divisor}" if divisor else "")
                    avg_flags = (" ceil_mode true" if ceil else "") + ("" if include else " count_include_pad false")
                    avg_flags += f" divisor_override {divisor}" if divisor else ""

                    def avg_fwd(x, k=k, s=s, p=p, ceil=ceil, include=include, divisor=divisor):
                        # F.avg_pool1d has no divisor_override: avg_pool2d over a unit height has.
                        return F.avg_pool2d(x.unsqueeze(2), (1, k), (1, s), (0, p), ceil, include,
                                            divisor or None).squeeze(2) if divisor else F.avg_pool1d(
                                                x, k, s, p, ceil, include)

                    cases += [
                        Case1d(f"avg_pool1d-{tag}", "rlx.avg_pool1d", window + avg_flags, (x_shape,), y_shape, avg_fwd),
                        Case1d(f"avg_pool1d_backward-{tag}", "rlx.avg_pool1d_backward", window + avg_flags, (y_shape,),
                               x_shape, lambda dy, f=avg_fwd, x=x_shape: _grad(f, 0, 1)(
                                   torch.zeros((dy.shape[0], *x[1:]), dtype=dy.dtype), dy),
                               dynamic=tag == "k3s2p1-excl"),
                    ]
    return cases


def adaptive_cases() -> list[Case1d]:
    cases = []
    for length, out in ((12, 4), (7, 3), (5, 8), (6, 1)):
        label = f"{length}to{out}"
        x_shape, y_shape = (2, 3, length), (2, 3, out)

        def avg(x, out=out):
            return F.adaptive_avg_pool1d(x, out)

        def mx(x, out=out):
            return F.adaptive_max_pool1d(x, out)

        cases += [
            Case1d(f"adaptive_avg_pool1d-{label}", "rlx.adaptive_avg_pool1d", "", (x_shape,), y_shape, avg,
                   dynamic=out == 3),
            Case1d(f"adaptive_max_pool1d-{label}", "rlx.adaptive_max_pool1d", "", (x_shape,), y_shape, mx, exact=True),
            Case1d(f"adaptive_avg_pool1d_backward-{label}", "rlx.adaptive_avg_pool1d_backward", "", (y_shape,), x_shape,
                   lambda dy, f=avg, x=x_shape: _grad(f, 0, 1)(torch.zeros((dy.shape[0], *x[1:]), dtype=dy.dtype), dy)),
            Case1d(f"adaptive_max_pool1d_backward-{label}", "rlx.adaptive_max_pool1d_backward", "", (x_shape, y_shape),
                   x_shape, lambda x, dy, f=mx: _grad(f, 0, 1)(x, dy), selects=(0,), integer_inputs=True),
        ]
    return cases


def im2col_cases() -> list[Case1d]:
    cases = []
    for label, (c, length, k, s, p, d) in {"plain": (3, 10, 3, 1, (1,), 1), "strided-per-side": (2, 11, 2, 3, (0, 2), 2)}.items():
        low, high = (p[0], p[0]) if len(p) == 1 else p
        out = (length + low + high - d * (k - 1) - 1) // s + 1
        n = 2

        def unfold(x, k=k, s=s, low=low, high=high, d=d, out=out):
            # cols[(n, o), (c, j)] = xpad[n, c, o*s + j*d]: PyTorch's Tensor.unfold over the dilated
            # window, read at every d-th cell of a window of extent d*(k-1) + 1.
            windows = F.pad(x, (low, high)).unfold(2, d * (k - 1) + 1, s)[..., ::d]  # [N, C, out, k]
            return windows.permute(0, 2, 1, 3).reshape(x.shape[0] * out, x.shape[1] * k)

        cases.append(
            Case1d(f"im2col1d-{label}", "rlx.im2col1d", f" kernel_size [{k}] stride [{s}] padding {_list(p)} dilation [{d}]",
                   ((n, c, length),), (n * out, c * k), unfold, exact=True, result_batched=False)
        )
    return cases


CASES = [*conv_cases(), *conv_transpose_cases(), *pool_cases(), *adaptive_cases(), *im2col_cases()]
_modules: dict[str, object] = {}


@pytest.fixture(scope="module")
def module_of(compile_rlx):
    def get(dtype: str):
        if dtype not in _modules:
            _modules[dtype] = compile_rlx("\n".join(case.function(dtype) for case in CASES))
        return _modules[dtype]

    return get


def test_every_1d_op_has_a_case():
    """Every 1-D conv and pool op. The 1-D adjoints autodiff emits (`dialects/adjoint.py`:
    the max-pool gathers, col2im1d) have no case here yet: their 1-D lowering is checked by
    `lit_tests/decompose-backward/adjoint*.mlir` only."""
    from rlx_mlir.dialects import rlx

    one_d = {
        op.name for op in rlx.RLX.operations
        if getattr(op, "SPATIAL_RANK", 0) == 1 and not op.__module__.endswith(".adjoint")
    }
    assert {case.op for case in CASES} == one_d


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_1d_op_matches_pytorch(case, dtype, module_of):
    module = module_of(dtype)
    for n in case.batches():
        inputs = case.inputs(n, dtype)
        got = module[case.symbol(dtype)](*inputs)
        if case.exact:
            want = case.oracle(*(torch.from_numpy(a) for a in inputs))
            assert_exact(got, want, dtype=DTYPES[dtype])
        else:
            assert_matches(got, case.oracle, inputs, selects=case.selects, label=case.label)
