"""Pooling gradients against PyTorch: `torch.autograd.grad` through F.max_pool2d / F.avg_pool2d.

Four formulations are checked on one matrix of configurations:
- `max_first`: `rlx.max_pool2d_backward` with pool-ties=first, against PyTorch's autograd,
  bit for bit (the first maximum of a window takes dy, the last NaN of a NaN window does,
  an all -inf window routes to its first valid cell; sums run in PyTorch's order);
- `max_all`: pool-ties=all, against an independent formulation of "every cell equal to its
  window's max takes dy", built from PyTorch's max_pool2d output with unfold/fold;
- `avg_incl`, `avg_excl`: `rlx.avg_pool2d_backward` with count_include_pad true / false.

Max-pool inputs are built to stress the tie rule: integer-valued inputs full of ties,
constant inputs (every window one big tie), NaNs (two in one window) and all -inf windows.

To keep native builds few, every configuration of the matrix becomes one function per
formulation and all of them are linked into one module: each formulation's functions are
lowered by their own `DecomposeBackwardPass`, then moved into one module that `compile_rlx`
builds once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from rlx_mlir.geometry import Window
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass
from oracle import assert_exact, assert_matches, tensor_type

# name -> DecomposeBackwardPass options
FORMULATIONS = {
    "max_first": dict(pool_ties="first"),
    "max_all": dict(pool_ties="all"),
    "avg_incl": {},
    "avg_excl": {},
}
MAX_INPUTS = ("random", "ties", "constant", "nan_inf")


@dataclass(frozen=True)
class Pool:
    """One forward pooling whose gradients are checked."""

    n: int
    c: int
    hw: tuple[int, int]
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int] = (0, 0)
    dtype: type = np.float32
    dynamic_batch: bool = False
    tag: str = field(default="", compare=False)

    def __str__(self) -> str:
        parts = [
            f"n{self.n}{'dyn' if self.dynamic_batch else ''}",
            f"c{self.c}",
            f"in{self.hw[0]}x{self.hw[1]}",
            f"k{self.kernel[0]}x{self.kernel[1]}",
            f"s{self.stride[0]}x{self.stride[1]}",
            f"p{self.padding[0]}x{self.padding[1]}",
            np.dtype(self.dtype).name,
        ]
        return "-".join(parts) + (f"-{self.tag}" if self.tag else "")

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, self.padding)

    @property
    def x_shape(self):
        return (self.n, self.c, *self.hw)

    @property
    def dy_shape(self):
        return (self.n, self.c, *self.window.output_size(self.hw))

    def _type(self, shape) -> str:
        return tensor_type(shape, self.dtype, self.dynamic_batch)

    def function(self, formulation: str, name: str) -> str:
        x, dy = self._type(self.x_shape), self._type(self.dy_shape)
        geometry = (
            f"kernel_size [{self.kernel[0]}, {self.kernel[1]}] stride [{self.stride[0]}, {self.stride[1]}] "
            f"padding [{self.padding[0]}, {self.padding[1]}]"
        )
        if formulation.startswith("max_"):
            return (
                f"func.func @{name}(%x: {x}, %dy: {dy}) -> {x} {{\n"
                f"  %dx = rlx.max_pool2d_backward %x, %dy {geometry} : ({x}, {dy}) -> {x}\n"
                f"  return %dx : {x}\n}}\n"
            )
        include = "true" if formulation == "avg_incl" else "false"
        return (
            f"func.func @{name}(%dy: {dy}) -> {x} {{\n"
            f"  %dx = rlx.avg_pool2d_backward %dy {geometry} count_include_pad {include} : ({dy}) -> {x}\n"
            f"  return %dx : {x}\n}}\n"
        )

    # -- inputs ------------------------------------------------------------------------

    def x(self, kind: str, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        if kind == "random":
            return rng.standard_normal(self.x_shape).astype(self.dtype)
        if kind == "constant":
            return np.full(self.x_shape, 1.5, dtype=self.dtype)
        x = rng.integers(-2, 3, self.x_shape).astype(self.dtype)  # ties everywhere
        if kind == "nan_inf":
            _plant_nans_and_infs(x, self.kernel, rng)
        return x

    def dy(self, seed: int) -> np.ndarray:
        return np.random.default_rng(seed + 1000).standard_normal(self.dy_shape).astype(self.dtype)

    # -- oracles -------------------------------------------------------------------------

    def oracle(self, formulation: str):
        """The gradient as a function of our arguments: (x, dy) for max pool, (dy,) for avg pool."""
        if formulation == "max_all":
            return lambda x, dy: every_tied_max_gets_dy(x, dy, self.window)
        if formulation == "max_first":
            def max_pool2d_backward(x, dy):
                x = x.clone().requires_grad_()
                y = F.max_pool2d(x, self.kernel, self.stride, self.padding)
                return torch.autograd.grad(y, x, dy)[0]
            return max_pool2d_backward

        def avg_pool2d_backward(dy):
            x = torch.zeros(self.x_shape, dtype=dy.dtype, requires_grad=True)
            y = F.avg_pool2d(x, self.kernel, self.stride, self.padding, count_include_pad=formulation == "avg_incl")
            return torch.autograd.grad(y, x, dy)[0]
        return avg_pool2d_backward

    def check(self, native, formulation: str, name: str, kind: str = "random", seed: int = 0) -> None:
        x, dy = self.x(kind, seed), self.dy(seed)
        inputs = (x, dy) if formulation.startswith("max_") else (dy,)
        got = native[name](*inputs)
        if formulation == "max_first" and self.dtype != np.float16:
            # Same routing, same summation order: PyTorch's bits exactly.
            want = self.oracle(formulation)(*(torch.from_numpy(a) for a in inputs))
            np.testing.assert_array_equal(got, want.numpy())
        else:
            # x only selects the windows' maxima: it enters A unchanged, dy as |dy|.
            if formulation.startswith("max_"):
                assert_matches(got, self.oracle(formulation), inputs, selects=(0,), label="max_pool2d_backward")
            else:
                assert_matches(got, self.oracle(formulation), inputs, label="avg_pool2d_backward")


def _plant_nans_and_infs(x: np.ndarray, kernel: tuple[int, int], rng) -> None:
    """Two NaNs in one window, a lone NaN, and a block of -inf that fills whole windows."""
    n, c, h, w = x.shape
    x[0, 0, 0, 0] = np.nan
    if h > 1 and w > 1:
        x[0, 0, 1, 1] = np.nan
    x[n - 1, c - 1, h // 2, w - 1] = np.nan
    block = (min(h, kernel[0] + 1), min(w, kernel[1] + 1))
    x[0, c - 1, h - block[0]:, :block[1]] = -np.inf
    x[n - 1, 0, : block[0], w - block[1]:] = -np.inf
    x[n - 1, 0, 0, w - 1] = float(rng.integers(-2, 3))  # one finite cell inside a -inf block


def every_tied_max_gets_dy(x: torch.Tensor, dy: torch.Tensor, window: Window) -> torch.Tensor:
    """RLX's fast-path rule for any geometry: dx = sum over windows of dy * (x == window max).

    Independent of the code under test: the window max is PyTorch's max_pool2d output, the
    windows come from unfold over the -inf padded input and fold sums their contributions.
    """
    (ph, pw), (kh, kw) = window.padding, window.kernel
    n, c, h, w = x.shape
    y = F.max_pool2d(x, window.kernel, window.stride, window.padding)
    xpad = F.pad(x, (pw, pw, ph, ph), value=float("-inf"))
    cols = F.unfold(xpad, window.kernel, stride=window.stride).view(n, c, kh * kw, -1)
    hits = (cols == y.reshape(n, c, 1, -1)).to(x.dtype)
    share = (hits * dy.reshape(n, c, 1, -1)).view(n, c * kh * kw, -1)
    dxpad = F.fold(share, (h + 2 * ph, w + 2 * pw), window.kernel, stride=window.stride)
    return dxpad[:, :, ph:ph + h, pw:pw + w]


def lower(functions: dict[str, tuple[str, str]]) -> ModuleOp:
    """`{name: (formulation, function text)}` -> one module, each decomposed with its options."""
    ctx = make_context()
    merged = ModuleOp([])
    for formulation, options in FORMULATIONS.items():
        text = "".join(src for form, src in functions.values() if form == formulation)
        if not text:
            continue
        module = parse_module(ctx, text)
        DecomposeBackwardPass(**options).apply(ctx, module)
        for op in list(module.body.block.ops):
            assert isinstance(op, func.FuncOp)
            op.detach()
            merged.body.block.add_op(op)
    return merged


def all_formulations(cfg: Pool, suffix: str = "") -> dict[str, tuple[str, str]]:
    return {f"{form}{suffix}": (form, cfg.function(form, f"{form}{suffix}")) for form in FORMULATIONS}


# --------------------------------------------------------------------------------------
# The matrix.
# --------------------------------------------------------------------------------------

F64 = np.float64
MATRIX = [
    Pool(2, 3, (9, 9), (3, 3), (2, 2), (1, 1), tag="overlapping"),
    Pool(3, 2, (8, 8), (2, 2), (2, 2), tag="non-overlapping"),
    Pool(1, 2, (7, 7), (3, 3), (1, 1), (1, 1)),
    Pool(2, 2, (9, 7), (3, 2), (2, 1), (1, 0), tag="rectangular"),
    Pool(1, 3, (6, 11), (2, 4), (1, 3), (0, 2), tag="rectangular-wide"),
    Pool(1, 2, (10, 10), (7, 7), (1, 1), (3, 3), tag="k7"),
    Pool(3, 2, (11, 9), (7, 5), (2, 3), (3, 2), tag="k7-strided"),
    Pool(2, 2, (10, 10), (2, 2), (3, 3), tag="stride-gt-kernel"),
    Pool(1, 2, (9, 8), (1, 2), (3, 4), tag="stride-gt-kernel-rect"),
    Pool(3, 2, (8, 8), (3, 3), (2, 2), tag="last-window-short"),
    Pool(1, 1, (4, 5), (4, 5), (1, 1), (2, 2), tag="one-window-per-axis-plus-padding"),
    Pool(3, 2, (8, 8), (3, 3), (2, 2), (1, 1), dtype=F64),
    Pool(2, 2, (9, 8), (4, 3), (3, 2), (2, 1), dtype=F64, tag="rectangular"),
    Pool(3, 2, (9, 9), (3, 3), (2, 2), (1, 1), dynamic_batch=True),
    Pool(2, 3, (8, 7), (3, 2), (2, 3), (1, 1), dtype=F64, dynamic_batch=True),
    Pool(2, 2, (7, 7), (3, 3), (2, 2), (1, 1), dtype=np.float16),
    # Tiling windows (stride == kernel, no padding): the one-scan argmax and the tiled
    # gather, whose rows the backend vectorizes 14 windows at a time (30 = 2*14 + 2 here).
    Pool(2, 3, (10, 11), (3, 3), (3, 3), tag="tiled-k3-leftover"),
    Pool(3, 2, (8, 9), (2, 3), (2, 3), dtype=F64, dynamic_batch=True, tag="tiled-rectangular"),
    Pool(2, 2, (8, 8), (2, 2), (2, 2), dtype=np.float16, tag="tiled"),
    Pool(1, 2, (4, 60), (2, 2), (2, 2), tag="tiled-wide"),
    Pool(1, 2, (10, 10), (5, 5), (5, 5), tag="tiled-k5"),
    # Overlapping windows, first-max: the vectorized interior argmax (rows of 8 windows plus
    # a peeled remainder) inside bounds-checked border strips, and the phase gathers.
    Pool(2, 3, (18, 36), (3, 3), (2, 2), (1, 1), dynamic_batch=True, tag="interleaved-phases-peeled"),
    Pool(1, 2, (17, 19), (3, 3), (2, 2), (1, 1), tag="border-strips-every-side"),
    Pool(2, 2, (20, 21), (3, 3), (2, 2), (1, 1), dtype=F64, tag="odd-width-phases"),
    # Past the unrolled forms (more than 16 cells or 16 stride phases): the argmax as a
    # reduction over the window, the gather as a reduction over the candidate windows.
    Pool(2, 2, (11, 12), (5, 5), (2, 2), (2, 2), tag="windows-k5"),
    Pool(2, 2, (12, 13), (2, 3), (5, 5), (1, 1), tag="windows-25-phases"),
    Pool(1, 2, (9, 10), (3, 9), (1, 2), (1, 4), dtype=F64, dynamic_batch=True, tag="windows-rectangular"),
]


def function_name(formulation: str, index: int) -> str:
    return f"{formulation}_{index}"


@pytest.fixture(scope="module")
def matrix_module(compile_rlx):
    functions = {}
    for i, cfg in enumerate(MATRIX):
        functions.update(all_formulations(cfg, f"_{i}"))
    return compile_rlx(lower(functions))


MATRIX_IDS = [str(c) for c in MATRIX]


@pytest.mark.parametrize("kind", MAX_INPUTS)
@pytest.mark.parametrize("formulation", ["max_first", "max_all"])
@pytest.mark.parametrize("index", range(len(MATRIX)), ids=MATRIX_IDS)
def test_max_pool2d_backward_matches_oracle(index, formulation, kind, matrix_module):
    MATRIX[index].check(matrix_module, formulation, function_name(formulation, index), kind)


@pytest.mark.parametrize("formulation", ["avg_incl", "avg_excl"])
@pytest.mark.parametrize("index", range(len(MATRIX)), ids=MATRIX_IDS)
def test_avg_pool2d_backward_matches_pytorch(index, formulation, matrix_module):
    MATRIX[index].check(matrix_module, formulation, function_name(formulation, index))


def test_ties_all_differs_from_pytorch_only_on_ties(matrix_module):
    """The two tie rules agree without ties and disagree on a constant input."""
    cfg, index = MATRIX[0], 0
    x_random, x_constant, dy = cfg.x("random", 0), cfg.x("constant", 0), cfg.dy(0)
    first, every = (matrix_module[function_name(f, index)] for f in ("max_first", "max_all"))
    np.testing.assert_array_equal(first(x_random, dy), every(x_random, dy))
    assert not np.array_equal(first(x_constant, dy), every(x_constant, dy))


def test_dynamic_batch_takes_any_batch(matrix_module):
    """One compiled dynamic-batch function per formulation, called with batches 1, 2 and 5."""
    index = next(i for i, c in enumerate(MATRIX) if c.dynamic_batch)
    base = MATRIX[index]
    for batch in (1, 2, 5):
        cfg = Pool(batch, base.c, base.hw, base.kernel, base.stride, base.padding, base.dtype, True)
        for form in FORMULATIONS:
            cfg.check(matrix_module, form, function_name(form, index), kind="ties", seed=batch)


# --------------------------------------------------------------------------------------
# Property-based: random valid configurations, every formulation.
# --------------------------------------------------------------------------------------


@st.composite
def pools(draw):
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    stride = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    padding = (draw(st.integers(0, kernel[0] // 2)), draw(st.integers(0, kernel[1] // 2)))
    hw = tuple(draw(st.integers(max(1, kernel[i] - 2 * padding[i]), kernel[i] + 7)) for i in range(2))
    return Pool(
        draw(st.integers(1, 3)), draw(st.integers(1, 2)), hw, kernel, stride, padding,
        dtype=draw(st.sampled_from([np.float32, np.float64])), dynamic_batch=draw(st.booleans()),
    )


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(cfg=pools())
def test_random_configurations_match_oracle(cfg, compile_rlx):
    native = compile_rlx(lower(all_formulations(cfg)))
    for form in FORMULATIONS:
        kinds = MAX_INPUTS if form.startswith("max_") else ("random",)
        for kind in kinds:
            cfg.check(native, form, form, kind)


# --------------------------------------------------------------------------------------
# The IR does not grow with the data.
# --------------------------------------------------------------------------------------


def _op_count(cfg: Pool, formulation: str) -> int:
    module = lower({"f": (formulation, cfg.function(formulation, "f"))})
    return sum(1 for _ in module.walk())


@pytest.mark.parametrize("formulation", list(FORMULATIONS))
def test_ir_size_does_not_depend_on_input_size(formulation):
    small = Pool(2, 3, (8, 8), (3, 3), (2, 2), (1, 1))
    large = Pool(2, 3, (224, 224), (3, 3), (2, 2), (1, 1))
    assert _op_count(small, formulation) == _op_count(large, formulation)


# --------------------------------------------------------------------------------------
# Global pools: the kernel grows with the input, up to 56.
# --------------------------------------------------------------------------------------

GLOBAL_SIZES = (2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 28, 56)
# kernel = stride = H = W (one window, output 1x1), and kernel = H at stride 1 (the windows
# of every cell overlap: ceil(K/S) = H candidates per axis).
GLOBAL_POOLS = [
    Pool(1, 2, (h, h), (h, h), stride, tag="global")
    for h in GLOBAL_SIZES
    for stride in ((h, h), (1, 1))
]
# Per toolchain stage; the module of every global pool builds in a few seconds.
GLOBAL_STAGE_SECONDS = 60


@pytest.fixture(scope="module")
def global_pools_module():
    """Every global pool in one module, built with the default pipeline; a fallback (a
    schedule that fails, or an mlir-opt run past the stage limit) is an error."""
    import warnings

    import rlx_mlir
    from rlx_mlir.backend.compile import PipelineFallbackWarning
    from rlx_mlir.backend.toolchain import TIMEOUT_ENV

    functions = {f"g{i}": ("max_first", cfg.function("max_first", f"g{i}")) for i, cfg in enumerate(GLOBAL_POOLS)}
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        patch.setenv(TIMEOUT_ENV, str(GLOBAL_STAGE_SECONDS))
        warnings.simplefilter("error", PipelineFallbackWarning)
        return rlx_mlir.compile(lower(functions))


@pytest.mark.parametrize("kind", MAX_INPUTS)
@pytest.mark.parametrize("index", range(len(GLOBAL_POOLS)), ids=[str(c) for c in GLOBAL_POOLS])
def test_global_max_pool2d_backward_matches_pytorch(index, kind, global_pools_module):
    """Bit for bit against autograd through F.max_pool2d, ties and NaN included."""
    cfg = GLOBAL_POOLS[index]
    x, dy = cfg.x(kind, index), cfg.dy(index)
    want = cfg.oracle("max_first")(torch.from_numpy(x), torch.from_numpy(dy))
    assert_exact(global_pools_module[f"g{index}"](x, dy), want)
