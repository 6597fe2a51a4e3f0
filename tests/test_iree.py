"""IREE, the downstream toolchain users hand our linalg to, compiles and runs every kind of
kernel our passes emit, and its numbers match PyTorch.

Every formulation of `decompose-backward` and every forward op of `convert-rlx-to-linalg`
is emitted for configurations taken from the numeric tests (`tests/numeric/`, whose
configurations and PyTorch oracles are reused as they are), printed as `rlx-opt` prints it,
compiled by `iree-compile` for llvm-cpu and called through `iree.runtime`:

- conv dw: `conv-weight=direct` (dense, strided, dilated, grouped by rows, depthwise,
  grouped with column stride), `im2col`, `im2col` chunked; conv dx: `conv-input=direct`
  (one phase, stride phases, negative adjoint padding, grouped, depthwise), `transpose`;
- max-pool dx: `pool-ties=first` (tiled windows, interleaved phases, phases, border strips
  with padding) and `all` (tiled, windows), on random, tied, constant and NaN/-inf inputs;
  avg-pool dx with count_include_pad true and false (tiled, windows);
- forward: conv2d (dense, grouped, depthwise), conv_transpose2d, max/avg pool, matmul
  plain and batched, im2col; and 2-D/3-D convs, transposed convs, pools (ceil mode,
  dilation, per-side padding), im2col3d and adaptive pools;
- f64, f16 and a dynamic batch (`tensor<?x...>`, called with two batch sizes);
- the elementwise, activation, norm, loss and layout ops and their gradients, and the
  adjoint ops (max-pool gathers, col2im), one module per family (`iree_families`); where
  IREE itself differs from PyTorch (subnormals flushed, its exp approximation at
  x = 88.7) the kernel is a strict xfail that says so;
- the max pool's tangent (the gather at x's first maxima) on tiling windows and others;
- the QAT observer's ops: the fused chain (moving average, qparams, fake quantization per
  tensor and per channel) on the first call, the moving average and the observer off, and
  the tensor-qparams fake quantization and its backward, bit for bit with ATen.

The functions are compiled in a few modules (one per kernel family), not one per case; a
function IREE rejects fails its own case with IREE's diagnostics (`iree_runtime`), and
`test_the_kernels_reach_every_pattern` keeps the list complete as patterns are added.
Without IREE the test is skipped, except in CI, which installs it (`test` extra).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import get_args

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import iree_families
from iree_runtime import IreeModule, require_iree
from oracle import assert_matches
from numeric import test_conv_backward as conv_bwd
from numeric import test_conv_backward_semantics as conv_semantics
from numeric import test_forward_ops as fwd
from numeric import test_forward_semantics as sem
from numeric import test_max_pool_gather as max_pool_gather
from numeric import test_adaptive_pool_backward as adaptive_bwd
from numeric import test_avg_pool_backward_semantics as avg_semantics
from numeric import test_observer_ops as observer
from numeric import test_one_d_ops as one_d
from numeric import test_pointwise_weight_gradient as pointwise
from numeric import test_pool_backward as pool_bwd
from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass, forward_patterns
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass
from rlx_mlir.transforms.options import ConvInput, ConvWeight, PoolTies

require_iree()

Check = Callable[[Callable[..., np.ndarray]], None]
"""Calls IREE's function on every input the kernel's numeric test uses and compares the
results with PyTorch exactly as that test does (its configuration's own `check`)."""


@dataclass(frozen=True)
class Kernel:
    """One emitted function: its IREE module, its pass options, its text and its check."""

    module: str
    symbol: str
    options: tuple[tuple[str, object], ...]
    text: str
    dtype: type
    check: Check
    variant: str = ""
    """Names a second check of the same function (other inputs), for its own test id."""
    xfail: str = ""
    """Why IREE does not match PyTorch here (a known IREE limitation): strict xfail."""

    def __str__(self) -> str:
        return f"{self.symbol}__{self.variant}" if self.variant else self.symbol


def _symbol(*parts: object) -> str:
    return re.sub(r"\W", "_", "__".join(map(str, parts)))


# --------------------------------------------------------------------------------------
# Convolution gradients: each formulation on the configurations that reach its forms.
# --------------------------------------------------------------------------------------

CONV = {str(c): c for c in conv_bwd.MATRIX}
PLAIN = "n1-c3f4-in7x6-k3x3-s1x1-p0x0-d1x1-g1-float32"
STRIDED = "n3-c4f6-in9x8-k3x3-s2x2-p1x1-d1x1-g1-float32-last-window-short"
STRIDE3 = "n3-c4f2-in11x10-k3x3-s3x3-p0x2-d2x1-g1-float32-stride3-unreached"
GROUPED = "n2-c4f6-in9x9-k3x3-s1x1-p2x2-d2x2-g2-float32-groups2-dilated"
DEPTHWISE = "n3-c6f6-in8x9-k3x3-s2x1-p1x1-d1x1-g6-float32-depthwise"
DEPTHWISE_COLUMN_STRIDE = "n2-c4f8-in7x8-k1x3-s1x2-p0x1-d1x1-g4-float32-depthwise-multiplier2"
NEGATIVE_ADJOINT = "n1-c2f3-in5x6-k2x2-s1x1-p2x2-d1x1-g1-float32-negative-adjoint-padding"
F64_GROUPED = "n3-c4f6-in10x7-k3x2-s2x3-p1x1-d2x1-g2-float64-f64"
DYNAMIC = "n3dyn-c4f6-in9x8-k3x3-s2x2-p1x1-d1x1-g2-float32"
F16 = "n2-c4f6-in9x8-k3x3-s2x2-p1x1-d1x1-g2-float16"
# formulation -> the configurations that reach its forms (the direct dx costs IREE about a
# dispatch per stride phase, so it gets fewer).
CONV_CONFIGS = {
    "w_direct": [PLAIN, STRIDED, STRIDE3, GROUPED, DEPTHWISE, DEPTHWISE_COLUMN_STRIDE, F64_GROUPED, DYNAMIC, F16],
    "w_im2col": [PLAIN, STRIDED, GROUPED, DYNAMIC],
    "w_im2col_chunked": [PLAIN, GROUPED, DYNAMIC],
    "i_direct": [PLAIN, GROUPED, DEPTHWISE, DEPTHWISE_COLUMN_STRIDE, NEGATIVE_ADJOINT, DYNAMIC],
    "i_transpose": [PLAIN, STRIDED, GROUPED, DEPTHWISE, NEGATIVE_ADJOINT, DYNAMIC],
}


def _conv_kernel(form: str, cfg: conv_bwd.Conv) -> Kernel:
    symbol = _symbol(form, cfg)

    def check(function) -> None:
        for n in (cfg.n, cfg.n + 2) if cfg.dynamic_batch else (cfg.n,):
            dataclasses.replace(cfg, n=n).check({symbol: function}, form, symbol, seed=n)

    options = tuple(sorted(conv_bwd.FORMULATIONS[form].items()))
    return Kernel(f"conv_{form.removesuffix('_chunked')}", symbol, options, cfg.function(form, symbol), cfg.dtype, check)


# --------------------------------------------------------------------------------------
# Pooling gradients: tiled windows, interleaved phases, phases, border strips.
# --------------------------------------------------------------------------------------

POOL = {str(c): c for c in pool_bwd.MATRIX}
OVERLAPPING = "n2-c3-in9x9-k3x3-s2x2-p1x1-float32-overlapping"
TILED_K2 = "n3-c2-in8x8-k2x2-s2x2-p0x0-float32-non-overlapping"
TILED_K3 = "n2-c3-in10x11-k3x3-s3x3-p0x0-float32-tiled-k3-leftover"
TILED_K5 = "n1-c2-in10x10-k5x5-s5x5-p0x0-float32-tiled-k5"  # too many cells for the tiled argmax
INTERLEAVED = "n2dyn-c3-in18x36-k3x3-s2x2-p1x1-float32-interleaved-phases-peeled"
BORDER_STRIPS = "n1-c2-in17x19-k3x3-s2x2-p1x1-float32-border-strips-every-side"
POOL_F64 = "n2-c2-in20x21-k3x3-s2x2-p1x1-float64-odd-width-phases"
POOL_F16 = "n2-c2-in7x7-k3x3-s2x2-p1x1-float16"
# formulation -> configurations: first-max by its tiled, interleaved and phase forms (a
# phase gather costs IREE a dispatch per phase and border strip), the others by their
# tiled and window forms.
POOL_CONFIGS = {
    "max_first": [TILED_K3, TILED_K5, INTERLEAVED, BORDER_STRIPS],
    "max_all": [OVERLAPPING, TILED_K2, TILED_K3, INTERLEAVED, POOL_F64, POOL_F16],
    "avg_incl": [OVERLAPPING, TILED_K2, POOL_F64],
    "avg_excl": [OVERLAPPING, TILED_K3, INTERLEAVED, POOL_F64, POOL_F16],
}


def _pool_kernel(form: str, cfg: pool_bwd.Pool) -> Kernel:
    symbol = _symbol(form, cfg)
    kinds = pool_bwd.MAX_INPUTS if form.startswith("max_") else ("random",)

    def check(function) -> None:
        for n in (cfg.n, cfg.n + 2) if cfg.dynamic_batch else (cfg.n,):
            for kind in kinds:
                dataclasses.replace(cfg, n=n).check({symbol: function}, form, symbol, kind=kind, seed=n)

    options = tuple(sorted(pool_bwd.FORMULATIONS[form].items()))
    return Kernel("max_first" if form == "max_first" else "pool_other", symbol, options, cfg.function(form, symbol), cfg.dtype, check)


# --------------------------------------------------------------------------------------
# Forward ops.
# --------------------------------------------------------------------------------------

FORWARD = [
    fwd.Conv2d(kernel=(3, 3), padding=(1, 1)),
    fwd.Conv2d(hw=(7, 9), kernel=(3, 2), stride=(1, 2), padding=(2, 1), dilation=(2, 1)),
    fwd.Conv2d(c=4, f=6, groups=2, stride=(2, 1), padding=(1, 0)),
    fwd.Conv2d(c=4, f=8, groups=4, stride=(2, 2), padding=(1, 1)),  # depthwise, multiplier 2
    fwd.Conv2d(n=1, dynamic=True, c=4, f=6, groups=2, padding=(1, 1)),
    fwd.Conv2d(dtype="f64", dynamic=True, kernel=(2, 3), stride=(2, 2)),
    fwd.ConvTranspose2d(hw=(5, 5)),
    fwd.ConvTranspose2d(hw=(4, 5), stride=(2, 2), padding=(1, 1), output_padding=(1, 1)),
    fwd.ConvTranspose2d(c=4, f=6, groups=2, hw=(4, 4), stride=(2, 2), padding=(1, 1)),
    fwd.ConvTranspose2d(n=1, dynamic=True, c=4, f=2, groups=2, hw=(4, 5), stride=(2, 2), output_padding=(1, 0)),
    fwd.MaxPool2d(padding=(1, 1)),
    fwd.MaxPool2d(hw=(7, 9), kernel=(3, 2), stride=(1, 2), padding=(1, 1)),
    fwd.MaxPool2d(dtype="f64", dynamic=True, hw=(5, 7), kernel=(2, 3), stride=(2, 1), padding=(1, 0)),
    fwd.AvgPool2d(padding=(1, 1), count_include_pad=True),
    fwd.AvgPool2d(padding=(1, 1), count_include_pad=False),
    fwd.AvgPool2d(hw=(7, 9), kernel=(3, 2), stride=(2, 1), padding=(1, 1), count_include_pad=False),
    fwd.AvgPool2d(n=1, dynamic=True, padding=(1, 1), count_include_pad=False),
    fwd.Matmul(n=1),
    fwd.Matmul(n=1, dynamic=True),
    fwd.Matmul(batch=True),
    fwd.Matmul(dtype="f64", batch=True, dynamic=True),
    fwd.Im2col(padding=(1, 1)),
    fwd.Im2col(n=1, hw=(7, 9), kernel=(2, 3), stride=(2, 1), padding=(0, 1), dilation=(1, 2)),
    fwd.Im2col(n=1, dynamic=True, hw=(6, 5), stride=(2, 2), padding=(1, 1)),
]
# The semantics beyond the symmetric 2-D subset (`test_forward_semantics`): per-side
# padding, 3-D, ceil mode, dilation, divisors, adaptive pools (even, uneven, larger).
FORWARD_SEMANTICS = [
    sem.Conv(spatial=(7, 9), kernel=(2, 3), stride=(2, 1), padding=(1, 0, 0, 2), dilation=(2, 1)),
    sem.Conv(c=4, f=6, groups=2, spatial=(4, 6, 5), kernel=(3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 1, 0, 1, 2)),
    sem.ConvTranspose(spatial=(3, 4), kernel=(2, 3), stride=(3, 2), dilation=(4, 4), padding=(1, 1), output_padding=(2, 3)),
    sem.ConvTranspose(dtype="f64", dynamic=True, spatial=(2, 3, 4), kernel=(2, 2, 3), stride=(2, 1, 2), dilation=(1, 3, 1), padding=(1, 0, 1), output_padding=(1, 2, 0)),
    sem.MaxPool(spatial=(9, 8), kernel=(2, 3), stride=(3, 2), dilation=(2, 1), padding=(1, 0), ceil_mode=True),
    sem.MaxPool(spatial=(5, 8, 7), kernel=(2, 3, 3), stride=(2, 2, 2), padding=(0, 1, 1), dilation=(1, 2, 2), ceil_mode=True),
    sem.AvgPool(spatial=(8, 9), kernel=(4, 3), stride=(2, 2), padding=(2, 0, 1, 1), ceil_mode=True),
    sem.AvgPool(n=1, dynamic=True, spatial=(7, 9), kernel=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, count_include_pad=False),
    sem.AvgPool(spatial=(5, 8, 7), kernel=(2, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), ceil_mode=True),
    sem.Im2col(spatial=(4, 5, 6), kernel=(3, 2, 2), stride=(2, 1, 3), padding=(0, 1, 1, 1, 0, 0)),
    sem.Adaptive(spatial=(7, 9), out=(3, 4), kind="avg"),
    sem.Adaptive(n=1, dynamic=True, spatial=(3, 5), out=(5, 7), kind="max"),
    sem.Adaptive(spatial=(8, 6), out=(4, 2), kind="avg"),  # divides: the plain pool
    sem.Adaptive(spatial=(5, 7, 6), out=(2, 3, 4), kind="max"),
]


def _forward_kernel(case: fwd.Case) -> Kernel:
    def check(function) -> None:
        case.check({case.symbol: function})

    module = "conv_transpose2d" if isinstance(case, fwd.ConvTranspose2d) else "forward"
    if isinstance(case, sem.Case):
        module = "forward_semantics"
    return Kernel(module, case.symbol, (), case.function(), case.np_dtype, check)


# -- 3-D conv gradients and the transposed conv's (rank-generic gathers): one module.
SEMANTICS = [
    conv_semantics.CONV[10],  # 3-D, groups 2, per-side, strided, dilated
    conv_semantics.CONV[12],  # 3-D depthwise, dynamic batch
    next(c for c in conv_semantics.TRANSPOSE if c.op == (2, 3) and c.stride == (3, 2)),  # the case
    conv_semantics.TRANSPOSE[-1],  # 3-D, dynamic batch, output_padding (3, 0, 1)
]


def _semantics_kernel(gradient: str, case) -> Kernel:
    symbol = _symbol("semantics", gradient, case)

    def check(function) -> None:
        case.check({symbol: function}, gradient, symbol)

    text = case.weight_function(symbol) if gradient == "weight" else case.input_function(symbol)
    return Kernel("conv_semantics", symbol, (), text, case.dtype, check)


# -- Pool gradients beyond the 2-D fast paths: the avg gather (ceil mode, per-side, 3-D),
# adaptive avg and max gradients (uneven, larger, 3-D); 1-D ops through their 2-D twins;
# a static empty batch.
AVG_SEMANTICS = [avg_semantics.CASES[i] for i in (0, 9, 12, 15)]
ADAPTIVE_SEMANTICS = [
    next(c for c in adaptive_bwd.MATRICES[kind] if c.rank == rank and any(i % o for i, o in zip(c.spatial, c.out)))
    for kind in ("avg", "max") for rank in (2, 3)
] + [  # sizes that divide: the pool's own gradient
    next(c for c in adaptive_bwd.MATRICES[kind] if c.rank == 2 and not any(i % o for i, o in zip(c.spatial, c.out))
         and c.out[-1] > 1)
    for kind in ("avg", "max")
]
ONE_D = [next(c for c in one_d.CASES if c.label == label) for label in ("conv1d-per-side", "max_pool1d_backward-k3s2p1")]


def _case_kernel(module: str, symbol: str, text: str, dtype, check: Check, variant: str = "", xfail: str = "") -> Kernel:
    return Kernel(module, symbol, (), text, dtype, check, variant, xfail)


def _one_d_kernel(case) -> Kernel:
    def check(function) -> None:
        for n in case.batches():
            inputs = case.inputs(n, "f32")
            assert_matches(function(*inputs), case.oracle, inputs, selects=case.selects, label=case.label)

    return _case_kernel("pool_semantics", case.symbol("f32"), case.function("f32"), np.float32, check)


EMPTY_BATCH = """func.func @empty_batch_dx(%dy: tensor<0x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<0x3x5x5xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [1, 1] padding [0, 0] : (tensor<0x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<0x3x5x5xf32>
  return %dx : tensor<0x3x5x5xf32>
}
"""


def _empty_batch_check(function) -> None:
    got = function(np.zeros((0, 2, 3, 3), np.float32), np.ones((2, 3, 3, 3), np.float32))
    assert got.shape == (0, 3, 5, 5)


# -- The QAT observer (`test_observer_ops`): the fused chain moving_average_min_max ->
# choose_qparams -> fake_quantize (per tensor, per channel, symmetric or not), on the first
# call, the moving average and the observer off; fake_quantize_tensor_qparams and its
# backward alone (ties, the grid's edges, NaN, +-inf), f32 and f64. Bit for bit with ATen.

OBSERVER_HISTORIES = {"first_call": ("first", 1), "moving_average": ("later", 1), "observer_off": ("later", 0)}


def _observer_kernels(case: observer.Observed) -> list[Kernel]:
    def check_of(history: str, observer_on: int) -> Check:
        return lambda function: case.check({case.symbol: function}, history, observer_on)

    return [
        _case_kernel("observer", case.symbol, case.function(), np.float32, check_of(*checked), variant if i else "")
        for i, (variant, checked) in enumerate(OBSERVER_HISTORIES.items())
    ]


# -- The max pool's tangent (`test_max_pool_gather`): z read at x's first maxima, on tiling
# windows (the tiled gradient's argmax) and others (the scanned argmax), f32 and f64, a
# dynamic batch; random, tied and NaN/-inf inputs.


def _max_pool_gather_kernels(case: max_pool_gather.Gather) -> list[Kernel]:
    def check_of(kind: str) -> Check:
        def check(function) -> None:
            for batch in (case.shape[0], case.shape[0] + 2) if case.dynamic else (case.shape[0],):
                with np.errstate(invalid="ignore"):
                    case.check(function, batch, kind)

        return check

    return [_case_kernel("max_pool_gather", str(case), case.function(), np.dtype(case.dtype).type, check_of(kind),
                         "" if kind == "random" else kind) for kind in ("random", "ties", "specials")]


# -- A linear layer's weight gradient over a dynamic batch, as the importer emits it: the
# weight gradient of a 1x1 conv1d over one cell, lowered to one product (`pointwise_weight`).

POINTWISE_WEIGHT = pointwise.weight_gradient_source("?", 33, 17, (1,), np.float32, name="pointwise_dw")


def _pointwise_weight_check(function) -> None:
    rng = np.random.default_rng(0)
    for batch in (1, 9, 130):
        x, dy = rng.standard_normal((batch, 33, 1)).astype(np.float32), rng.standard_normal((batch, 17, 1)).astype(np.float32)
        assert_matches(function(x, dy), pointwise.reference, (x, dy), label=f"batch {batch}")


KERNELS = [
    *(_conv_kernel(form, CONV[name]) for form, names in CONV_CONFIGS.items() for name in names),
    *(_semantics_kernel(gradient, case) for case in SEMANTICS for gradient in ("weight", "input")),
    *(_pool_kernel(form, POOL[name]) for form, names in POOL_CONFIGS.items() for name in names),
    *(_forward_kernel(case) for case in (*FORWARD, *FORWARD_SEMANTICS)),
    *(_case_kernel("pool_semantics", c.symbol, c.function(), c.dtype, lambda f, c=c: c.check({c.symbol: f}))
      for c in (*AVG_SEMANTICS, *ADAPTIVE_SEMANTICS)),
    *(_one_d_kernel(case) for case in ONE_D),
    _case_kernel("pool_semantics", "empty_batch_dx", EMPTY_BATCH, np.float32, _empty_batch_check),
    _case_kernel("conv_semantics", "pointwise_dw", POINTWISE_WEIGHT, np.float32, _pointwise_weight_check),
    *(kernel for case in observer.OBSERVED for kernel in _observer_kernels(case)),
    *(kernel for case in max_pool_gather.CASES for kernel in _max_pool_gather_kernels(case)),
    *(_case_kernel("observer", c.symbol, c.function(), np.dtype(c.dtype).type, lambda f, c=c: c.check({c.symbol: f}))
      for c in observer.TENSOR_QPARAMS),
    # elementwise, activation, norm, loss, layout and the adjoint ops (`iree_families`)
    *(_case_kernel(*entry) for entry in iree_families.KERNELS),
]


def lower(kernels: list[Kernel]) -> ModuleOp:
    """One module of `kernels`: those that share pass options are lowered together, by
    `decompose-backward` with their options and then `convert-rlx-to-linalg`."""
    ctx = make_context()
    merged = ModuleOp([])
    by_options: dict[tuple, list[Kernel]] = {}
    for kernel in kernels:
        if not kernel.variant:  # a variant checks its function on other inputs
            by_options.setdefault(kernel.options, []).append(kernel)
    for options, group in by_options.items():
        module = parse_module(ctx, "".join(k.text for k in group), "<iree-test>")
        DecomposeBackwardPass(**dict(options)).apply(ctx, module)
        ConvertRlxToLinalgPass().apply(ctx, module)
        verify_module(module)
        for op in list(module.body.block.ops):
            assert isinstance(op, func.FuncOp)
            op.detach()
            merged.body.block.add_op(op)
    return merged


_compiled: dict[str, IreeModule | Exception] = {}


@pytest.fixture
def iree_module() -> Callable[[str], IreeModule]:
    """The kernels of one module, lowered and compiled by IREE once per session."""

    def get(name: str) -> IreeModule:
        if name not in _compiled:
            try:
                _compiled[name] = IreeModule.compile(lower([k for k in KERNELS if k.module == name]))
            except Exception as error:  # compiled once: every kernel of the module reports it
                _compiled[name] = error
        if isinstance(_compiled[name], Exception):
            pytest.fail(f"module {name}: {_compiled[name]}", pytrace=False)
        return _compiled[name]

    return get


def _every_pattern() -> set[type]:
    """The pattern classes of both passes, over every value of every formulation option."""
    patterns = list(forward_patterns())
    for conv_weight in get_args(ConvWeight):
        for conv_input in get_args(ConvInput):
            for pool_ties in get_args(PoolTies):
                options = dict(conv_weight=conv_weight, conv_input=conv_input, pool_ties=pool_ties)
                patterns += DecomposeBackwardPass(**options).patterns()
    return {type(p) for p in patterns}


def test_the_kernels_reach_every_pattern(monkeypatch):
    """Every pattern of both passes rewrites at least one kernel, so none goes unchecked."""
    fired: set[type] = set()
    for pattern in _every_pattern():

        def recording(self, op, rewriter, match=pattern.match_and_rewrite):
            match(self, op, rewriter)
            if rewriter.has_done_action:
                fired.add(type(self))

        monkeypatch.setattr(pattern, "match_and_rewrite", recording)
    lower(KERNELS)
    assert sorted(p.__name__ for p in _every_pattern() - fired) == WITHOUT_IREE_KERNEL


WITHOUT_IREE_KERNEL: list[str] = []
"""Patterns no IREE kernel here exercises: none. A pattern added later without a kernel fails."""


def test_kernel_symbols_are_unique():
    symbols = [str(k) for k in KERNELS]
    assert len(symbols) == len(set(symbols)), [s for s in symbols if symbols.count(s) > 1]


@pytest.mark.parametrize(
    "kernel", [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=k.xfail)) if k.xfail else k for k in KERNELS], ids=str
)
def test_iree_runs_the_emitted_linalg_like_pytorch(kernel, iree_module):
    kernel.check(iree_module(kernel.module)[kernel.symbol])
