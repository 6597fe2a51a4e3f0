"""Batch 0 through every op and every formulation, with every pipeline, against PyTorch.

An empty batch is a real input (the tail of an evenly split dataset, a filtered batch):
every result is empty, or all zeros where it sums over the batch (weight gradients), as in
PyTorch. Each op is one function with a dynamic batch in one module per
`decompose-backward` option set (the default formulations, and the other one of each:
im2col, transpose, pool-ties=all), lowered with `convert-rlx-to-linalg` and compiled with
each pipeline; every function is called with N=0, and with N=2 so the same code is also
seen to compute.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.backend import PIPELINES, compile_module
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass
from oracle import assert_exact, assert_matches, max_pool_every_tie_grad

OPTION_SETS = {
    "default": {},
    "im2col-transpose-all": dict(conv_weight="im2col", conv_input="transpose", pool_ties="all"),
}


def t(shape) -> str:
    return "tensor<" + "x".join("?" if d is None else str(d) for d in shape) + "xf32>"


def conv(x, w, stride, padding, groups=1):
    return F.conv2d(x, w, stride=stride, padding=padding, groups=groups)


@dataclass(frozen=True)
class Case:
    """One op: its RLX text (the batch is `?`), its argument shapes (N for the batch), its oracle."""

    name: str
    op: str
    args: tuple[tuple, ...]
    result: tuple
    oracle: object  # (options, *torch tensors) -> torch tensor
    selects: tuple[int, ...] = ()  # arguments that only select (max pool's x), see tests/oracle.py
    exact: bool = False  # data movement (a max, a copy): PyTorch's bits

    def function(self) -> str:
        params = ", ".join(f"%a{i}: {t(s)}" for i, s in enumerate(self.args))
        operands = ", ".join(f"%a{i}" for i in range(len(self.args)))
        types = ", ".join(t(s) for s in self.args)
        return (
            f"func.func @{self.name}({params}) -> {t(self.result)} {{\n"
            f"  %r = {self.op.format(operands=operands)} : ({types}) -> {t(self.result)}\n"
            f"  return %r : {t(self.result)}\n}}\n"
        )

    def inputs(self, n: int, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(tuple(n if d is None else d for d in s)).astype(np.float32) for s in self.args]


def grad_of(forward, wrt: int):
    """d forward(*inputs) / d inputs[wrt], contracted with the last argument (the output gradient)."""

    def oracle(_options, *tensors):
        *inputs, dy = tensors
        inputs = [x.clone().requires_grad_(i == wrt) for i, x in enumerate(inputs)]
        (g,) = torch.autograd.grad(forward(*inputs), inputs[wrt], dy)
        return g

    return oracle


def max_pool_backward(kernel, stride, padding):
    def oracle(options, x, dy):
        if options.get("pool_ties") == "all":
            return max_pool_every_tie_grad(x, dy, kernel, stride, padding)
        return grad_of(lambda x: F.max_pool2d(x, kernel, stride, padding), 0)(options, x, dy)

    return oracle


N = None
GEO = "stride [1, 1] padding [1, 1]"
CASES = [
    # forward ops
    Case("conv2d", f"rlx.conv2d {{operands}} {GEO}", ((N, 4, 6, 6), (6, 4, 3, 3)), (N, 6, 6, 6),
         lambda o, x, w: conv(x, w, 1, 1)),
    Case("conv2d_grouped_strided", "rlx.conv2d {operands} stride [2, 2] padding [1, 1] groups 2",
         ((N, 4, 6, 6), (6, 2, 3, 3)), (N, 6, 3, 3), lambda o, x, w: conv(x, w, 2, 1, 2)),
    Case("conv_transpose2d", "rlx.conv_transpose2d {operands} stride [2, 2] padding [1, 1] output_padding [1, 1]",
         ((N, 4, 3, 3), (4, 6, 3, 3)), (N, 6, 6, 6),
         lambda o, x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)),
    Case("max_pool2d", "rlx.max_pool2d {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1]",
         ((N, 4, 6, 6),), (N, 4, 3, 3), lambda o, x: F.max_pool2d(x, 3, 2, 1), exact=True),
    Case("avg_pool2d", "rlx.avg_pool2d {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false",
         ((N, 4, 6, 6),), (N, 4, 3, 3), lambda o, x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    Case("matmul", "rlx.matmul {operands}", ((N, 5), (5, 3)), (N, 3), lambda o, a, b: a @ b),
    Case("matmul_batched", "rlx.matmul {operands}", ((N, 3, 5), (N, 5, 2)), (N, 3, 2), lambda o, a, b: a @ b),
    Case("im2col", f"rlx.im2col {{operands}} kernel_size [3, 3] {GEO}", ((N, 4, 6, 6),), (N, 36),
         lambda o, x: F.unfold(x, 3, padding=1).transpose(1, 2).reshape(-1, 36), exact=True),
    # conv gradients: dense, grouped, depthwise
    Case("conv2d_backward_weight", f"rlx.conv2d_backward_weight {{operands}} kernel_size [3, 3] {GEO}",
         ((N, 4, 6, 6), (N, 6, 6, 6)), (6, 4, 3, 3),
         lambda o, x, dy: torch.nn.grad.conv2d_weight(x, (6, 4, 3, 3), dy, padding=1)),
    Case("conv2d_backward_weight_grouped", "rlx.conv2d_backward_weight {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1] groups 2",
         ((N, 4, 6, 6), (N, 6, 3, 3)), (6, 2, 3, 3),
         lambda o, x, dy: torch.nn.grad.conv2d_weight(x, (6, 2, 3, 3), dy, stride=2, padding=1, groups=2)),
    Case("conv2d_backward_weight_depthwise", f"rlx.conv2d_backward_weight {{operands}} kernel_size [3, 3] {GEO} groups 4",
         ((N, 4, 6, 6), (N, 4, 6, 6)), (4, 1, 3, 3),
         lambda o, x, dy: torch.nn.grad.conv2d_weight(x, (4, 1, 3, 3), dy, padding=1, groups=4)),
    Case("conv2d_backward_input", f"rlx.conv2d_backward_input {{operands}} kernel_size [3, 3] {GEO}",
         ((N, 6, 6, 6), (6, 4, 3, 3)), (N, 4, 6, 6),
         lambda o, dy, w: torch.nn.grad.conv2d_input((dy.shape[0], 4, 6, 6), w, dy, padding=1)),
    Case("conv2d_backward_input_grouped", "rlx.conv2d_backward_input {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1] groups 2",
         ((N, 6, 3, 3), (6, 2, 3, 3)), (N, 4, 6, 6),
         lambda o, dy, w: torch.nn.grad.conv2d_input((dy.shape[0], 4, 6, 6), w, dy, stride=2, padding=1, groups=2)),
    Case("conv2d_backward_input_depthwise", f"rlx.conv2d_backward_input {{operands}} kernel_size [3, 3] {GEO} groups 4",
         ((N, 4, 6, 6), (4, 1, 3, 3)), (N, 4, 6, 6),
         lambda o, dy, w: torch.nn.grad.conv2d_input((dy.shape[0], 4, 6, 6), w, dy, padding=1, groups=4)),
    # pool gradients: overlapping and non-overlapping windows
    Case("max_pool2d_backward", "rlx.max_pool2d_backward {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1]",
         ((N, 4, 6, 6), (N, 4, 3, 3)), (N, 4, 6, 6), max_pool_backward(3, 2, 1), selects=(0,)),
    Case("max_pool2d_backward_2x2", "rlx.max_pool2d_backward {operands} kernel_size [2, 2] stride [2, 2] padding [0, 0]",
         ((N, 4, 6, 6), (N, 4, 3, 3)), (N, 4, 6, 6), max_pool_backward(2, 2, 0), selects=(0,)),
    Case("avg_pool2d_backward", "rlx.avg_pool2d_backward {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1]",
         ((N, 4, 3, 3),), (N, 4, 6, 6),
         lambda o, dy: grad_of(lambda x: F.avg_pool2d(x, 3, 2, 1), 0)(o, torch.zeros(dy.shape[0], 4, 6, 6, dtype=dy.dtype), dy)),
    Case("avg_pool2d_backward_exclude_pad",
         "rlx.avg_pool2d_backward {operands} kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false",
         ((N, 4, 3, 3),), (N, 4, 6, 6),
         lambda o, dy: grad_of(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), 0)(
             o, torch.zeros(dy.shape[0], 4, 6, 6, dtype=dy.dtype), dy)),
]


def lowered(options: dict):
    ctx = make_context()
    module = parse_module(ctx, "".join(case.function() for case in CASES), "<zero-batch>")
    DecomposeBackwardPass(**options).apply(ctx, module)
    ConvertRlxToLinalgPass().apply(ctx, module)
    return module


_BUILT: dict[tuple[str, str], object] = {}


def native(options_name: str, pipeline: str):
    key = (options_name, pipeline)
    if key not in _BUILT:
        _BUILT[key] = compile_module(lowered(OPTION_SETS[options_name]), pipeline)
    return _BUILT[key]


@pytest.mark.parametrize("n", [0, 2], ids=["n0", "n2"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("options_name", sorted(OPTION_SETS))
@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_batch_matches_pytorch(pipeline, options_name, case, n):
    inputs = case.inputs(n)
    got = native(options_name, pipeline)[case.name](*inputs)
    oracle = functools.partial(case.oracle, OPTION_SETS[options_name])
    if case.exact:
        assert_exact(got, oracle(*map(torch.from_numpy, inputs)))
    else:
        assert_matches(got, oracle, inputs, selects=case.selects, label=case.name)
    if n == 0 and got.size:  # a gradient summed over no sample at all
        assert not got.any()


def test_max_pool_every_tie_oracle_at_batch_0_and_2():
    """The pool-ties=all oracle crashed at N=0 (`view(n, c, kh * kw, -1)` of nothing)."""
    for n in (0, 2):
        x = torch.tensor(np.random.default_rng(0).integers(-2, 3, (n, 2, 5, 5)).astype(np.float32))
        dy = torch.ones(n, 2, 2, 2)
        dx = max_pool_every_tie_grad(x, dy, 3, 2, 0)
        assert dx.shape == x.shape
    # Every tied maximum takes dy: a constant window gives each of its cells dy.
    dx = max_pool_every_tie_grad(torch.ones(1, 1, 2, 2), torch.full((1, 1, 1, 1), 3.0), 2, 2, 0)
    assert torch.equal(dx, torch.full((1, 1, 2, 2), 3.0))


STATIC_EMPTY = """
func.func @dx(%dy: tensor<0x1x2x2xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<0x1x5x5xf32> {
  %r = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [0, 0] : (tensor<0x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<0x1x5x5xf32>
  return %r : tensor<0x1x5x5xf32>
}
func.func @mp(%x: tensor<0x1x5x5xf32>, %dy: tensor<0x1x2x2xf32>) -> tensor<0x1x5x5xf32> {
  %r = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<0x1x5x5xf32>, tensor<0x1x2x2xf32>) -> tensor<0x1x5x5xf32>
  return %r : tensor<0x1x5x5xf32>
}
func.func @ct(%x: tensor<0x1x2x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<0x1x5x5xf32> {
  %r = rlx.conv_transpose2d %x, %w stride [2, 2] padding [0, 0] output_padding [1, 1] : (tensor<0x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<0x1x5x5xf32>
  return %r : tensor<0x1x5x5xf32>
}
func.func @dw(%x: tensor<0x1x5x5xf32>, %dy: tensor<0x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %r = rlx.conv2d_backward_weight %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<0x1x5x5xf32>, tensor<0x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %r : tensor<1x1x2x2xf32>
}
"""


@pytest.mark.parametrize("options_name", OPTION_SETS)
def test_static_batch_0_builds_and_matches_pytorch(options_name):
    """A batch of 0 in the types (not only at run time): the empty results are built without
    slicing size-0 tensors (mlir-opt rejects those), the weight gradient is PyTorch's zeros."""
    ctx = make_context()
    parsed = parse_module(ctx, STATIC_EMPTY)
    DecomposeBackwardPass(**OPTION_SETS[options_name]).apply(ctx, parsed)
    ConvertRlxToLinalgPass().apply(ctx, parsed)
    library = compile_module(str(parsed))
    empty = lambda *shape: np.zeros(shape, np.float32)  # noqa: E731
    assert library["dx"](empty(0, 1, 2, 2), np.ones((1, 1, 3, 3), np.float32)).shape == (0, 1, 5, 5)
    assert library["mp"](empty(0, 1, 5, 5), empty(0, 1, 2, 2)).shape == (0, 1, 5, 5)
    assert library["ct"](empty(0, 1, 2, 2), np.ones((1, 1, 2, 2), np.float32)).shape == (0, 1, 5, 5)
    x, dy = torch.zeros(0, 1, 5, 5, requires_grad=False), torch.zeros(0, 1, 2, 2)
    w = torch.zeros(1, 1, 2, 2, requires_grad=True)
    (want,) = torch.autograd.grad(F.conv2d(x, w, stride=2), w, dy)
    assert_exact(library["dw"](x.numpy(), dy.numpy()), want)


NO_CELLS = """
func.func @avg(%x: tensor<2x3x5x4xf32>) -> tensor<2x3x0x2xf32> {
  %r = rlx.adaptive_avg_pool2d %x : (tensor<2x3x5x4xf32>) -> tensor<2x3x0x2xf32>
  return %r : tensor<2x3x0x2xf32>
}
func.func @avg_dx(%dy: tensor<2x3x0x2xf32>) -> tensor<2x3x5x4xf32> {
  %r = rlx.adaptive_avg_pool2d_backward %dy : (tensor<2x3x0x2xf32>) -> tensor<2x3x5x4xf32>
  return %r : tensor<2x3x5x4xf32>
}
func.func @max_dx(%x: tensor<2x3x5xf32>, %dy: tensor<2x3x0xf32>) -> tensor<2x3x5xf32> {
  %r = rlx.adaptive_max_pool1d_backward %x, %dy : (tensor<2x3x5xf32>, tensor<2x3x0xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}
"""


def test_adaptive_pools_to_no_cells():
    """PyTorch accepts an adaptive output size of 0 (an empty pool) but refuses its backward
    ("Expected grad_output to have non-zero size"); the gradient of a function of no outputs
    is zero, which is what these give, so a graph through an empty pool stays differentiable."""
    import rlx_mlir

    module = rlx_mlir.compile(NO_CELLS)
    x = torch.randn(2, 3, 5, 4)
    assert_exact(module["avg"](x.numpy()), F.adaptive_avg_pool2d(x, (0, 2)))
    zeros = np.zeros
    assert_exact(module["avg_dx"](zeros((2, 3, 0, 2), np.float32)), zeros((2, 3, 5, 4), np.float32))
    x1 = np.random.default_rng(0).standard_normal((2, 3, 5)).astype(np.float32)
    assert_exact(module["max_dx"](x1, zeros((2, 3, 0), np.float32)), zeros((2, 3, 5), np.float32))
