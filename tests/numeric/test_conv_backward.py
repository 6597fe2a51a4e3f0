"""Convolution gradients against PyTorch: `torch.nn.grad.conv2d_weight` / `conv2d_input`.

Every formulation of `decompose-backward` (conv-weight direct / im2col, chunked or not;
conv-input direct / transpose) is checked on one matrix of configurations. To keep the
number of native builds small, each configuration becomes one function per formulation and
all of them are linked into one module: the functions of each formulation are lowered by
their own `DecomposeBackwardPass` (with that formulation's options), then moved into one
module that `compile_rlx` builds once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from rlx_mlir.geometry import Window, smallest_conv_input
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass
from oracle import assert_matches, tensor_type

# name -> DecomposeBackwardPass options
FORMULATIONS = {
    "w_direct": dict(conv_weight="direct"),
    "w_im2col": dict(conv_weight="im2col"),
    # A threshold small enough that every configuration of the matrix is chunked.
    "w_im2col_chunked": dict(conv_weight="im2col", im2col_max_elements=16),
    "i_direct": dict(conv_input="direct"),
    "i_transpose": dict(conv_input="transpose"),
}


@dataclass(frozen=True)
class Conv:
    """One forward convolution whose two gradients are checked."""

    n: int
    c: int
    f: int
    hw: tuple[int, int]
    kernel: tuple[int, int]
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    dilation: tuple[int, int] = (1, 1)
    groups: int = 1
    dtype: type = np.float32
    dynamic_batch: bool = False
    tag: str = field(default="", compare=False)

    def __str__(self) -> str:
        parts = [
            f"n{self.n}{'dyn' if self.dynamic_batch else ''}",
            f"c{self.c}f{self.f}",
            f"in{self.hw[0]}x{self.hw[1]}",
            f"k{self.kernel[0]}x{self.kernel[1]}",
            f"s{self.stride[0]}x{self.stride[1]}",
            f"p{self.padding[0]}x{self.padding[1]}",
            f"d{self.dilation[0]}x{self.dilation[1]}",
            f"g{self.groups}",
            np.dtype(self.dtype).name,
        ]
        return "-".join(parts) + (f"-{self.tag}" if self.tag else "")

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, self.padding, self.dilation)

    @property
    def x_shape(self):
        return (self.n, self.c, *self.hw)

    @property
    def w_shape(self):
        return (self.f, self.c // self.groups, *self.kernel)

    @property
    def dy_shape(self):
        return (self.n, self.f, *self.window.output_size(self.hw))

    def _attrs(self) -> str:
        return (
            f"kernel_size [{self.kernel[0]}, {self.kernel[1]}] stride [{self.stride[0]}, {self.stride[1]}] "
            f"padding [{self.padding[0]}, {self.padding[1]}] dilation [{self.dilation[0]}, {self.dilation[1]}] "
            f"groups {self.groups}"
        )

    def _type(self, shape, batched=True) -> str:
        return tensor_type(shape, self.dtype, self.dynamic_batch and batched)

    def weight_function(self, name: str) -> str:
        x, dy, dw = self._type(self.x_shape), self._type(self.dy_shape), self._type(self.w_shape, False)
        return (
            f"func.func @{name}(%x: {x}, %dy: {dy}) -> {dw} {{\n"
            f"  %dw = rlx.conv2d_backward_weight %x, %dy {self._attrs()} : ({x}, {dy}) -> {dw}\n"
            f"  return %dw : {dw}\n}}\n"
        )

    def input_function(self, name: str) -> str:
        dy, w, dx = self._type(self.dy_shape), self._type(self.w_shape, False), self._type(self.x_shape)
        return (
            f"func.func @{name}(%dy: {dy}, %w: {w}) -> {dx} {{\n"
            f"  %dx = rlx.conv2d_backward_input %dy, %w {self._attrs()} : ({dy}, {w}) -> {dx}\n"
            f"  return %dx : {dx}\n}}\n"
        )

    def function(self, formulation: str, name: str) -> str:
        return self.weight_function(name) if formulation.startswith("w_") else self.input_function(name)

    def arrays(self, seed: int):
        rng = np.random.default_rng(seed)
        make = lambda shape: rng.standard_normal(shape).astype(self.dtype)  # noqa: E731
        return make(self.x_shape), make(self.w_shape), make(self.dy_shape)

    def oracle(self, formulation: str):
        """PyTorch's gradient as a function of (x, dy) or (dy, w), the arguments of ours."""
        kwargs = dict(stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups)
        if formulation.startswith("w_"):
            def conv2d_weight(x, dy):
                return torch.nn.grad.conv2d_weight(x, self.w_shape, dy, **kwargs)
            return conv2d_weight

        def conv2d_input(dy, w):
            return torch.nn.grad.conv2d_input(self.x_shape, w, dy, **kwargs)
        return conv2d_input

    def check(self, native, formulation: str, name: str, seed: int = 0) -> None:
        x, w, dy = self.arrays(seed)
        inputs = (x, dy) if formulation.startswith("w_") else (dy, w)
        assert_matches(native[name](*inputs), self.oracle(formulation), inputs)


def lower(functions: dict[str, tuple[str | dict, str]]) -> ModuleOp:
    """`{name: (formulation or pass options, function text)}` -> one module.

    The functions that share options are decomposed together by one DecomposeBackwardPass.
    """
    ctx = make_context()
    merged = ModuleOp([])
    by_options: dict[tuple, str] = {}
    for form, src in functions.values():
        options = FORMULATIONS[form] if isinstance(form, str) else form
        key = tuple(sorted(options.items()))
        by_options[key] = by_options.get(key, "") + src
    for key, text in by_options.items():
        module = parse_module(ctx, text)
        DecomposeBackwardPass(**dict(key)).apply(ctx, module)
        for op in list(module.body.block.ops):
            assert isinstance(op, func.FuncOp)
            op.detach()
            merged.body.block.add_op(op)
    return merged


def function_name(formulation: str, index: int) -> str:
    return f"{formulation}_{index}"


# --------------------------------------------------------------------------------------
# The matrix: a covering subset of N x C/F x groups x stride x padding x dilation x dtype.
# --------------------------------------------------------------------------------------

F64 = np.float64
MATRIX = [
    Conv(1, 3, 4, (7, 6), (3, 3)),
    Conv(3, 3, 5, (8, 7), (3, 2), padding=(1, 0), tag="batch3"),
    Conv(3, 4, 6, (9, 8), (3, 3), stride=(2, 2), padding=(1, 1), tag="last-window-short"),
    Conv(2, 4, 6, (10, 9), (2, 3), stride=(3, 2), padding=(2, 1), tag="stride3"),
    Conv(3, 4, 2, (11, 10), (3, 3), stride=(3, 3), padding=(0, 2), dilation=(2, 1), tag="stride3-unreached"),
    Conv(2, 4, 6, (9, 9), (3, 3), dilation=(2, 2), padding=(2, 2), groups=2, tag="groups2-dilated"),
    Conv(3, 6, 6, (8, 9), (3, 3), stride=(2, 1), padding=(1, 1), groups=6, tag="depthwise"),
    Conv(2, 4, 8, (7, 8), (1, 3), stride=(1, 2), padding=(0, 1), groups=4, tag="depthwise-multiplier2"),
    Conv(2, 3, 4, (6, 6), (2, 2), stride=(3, 3), tag="stride-gt-kernel"),
    Conv(1, 2, 3, (5, 6), (2, 2), padding=(2, 2), tag="negative-adjoint-padding"),
    Conv(3, 4, 6, (10, 7), (3, 2), stride=(2, 3), padding=(1, 1), dilation=(2, 1), groups=2, dtype=F64, tag="f64"),
    Conv(1, 3, 2, (6, 5), (2, 3), stride=(2, 1), padding=(0, 1), dtype=F64),
    Conv(3, 4, 6, (9, 8), (3, 3), stride=(2, 2), padding=(1, 1), groups=2, dynamic_batch=True),
    Conv(2, 3, 4, (8, 6), (2, 2), stride=(1, 2), dilation=(2, 1), dtype=F64, dynamic_batch=True),
    # f16 accumulates in f16 (the element type is kept end to end).
    Conv(2, 4, 6, (9, 8), (3, 3), stride=(2, 2), padding=(1, 1), groups=2, dtype=np.float16),
]


@pytest.fixture(scope="module")
def matrix_module(compile_rlx):
    functions = {
        function_name(form, i): (form, cfg.function(form, function_name(form, i)))
        for i, cfg in enumerate(MATRIX)
        for form in FORMULATIONS
    }
    return compile_rlx(lower(functions))


@pytest.mark.parametrize("formulation", list(FORMULATIONS))
@pytest.mark.parametrize("index", range(len(MATRIX)), ids=[str(c) for c in MATRIX])
def test_conv2d_backward_matches_pytorch(index, formulation, matrix_module):
    MATRIX[index].check(matrix_module, formulation, function_name(formulation, index))


def test_every_input_size_of_one_dy_size(compile_rlx):
    """Stride 3 maps three input sizes to one dy size: the input gradient must give each its size."""
    smallest = smallest_conv_input(3, kernel=3, stride=3, padding=1, dilation=1)
    sizes = [(smallest + i, smallest + (i + 1) % 3) for i in range(3)]
    configs = [Conv(2, 2, 3, hw, (3, 3), stride=(3, 3), padding=(1, 1)) for hw in sizes]
    assert {c.dy_shape[2:] for c in configs} == {(3, 3)}
    functions = {
        function_name(form, i): (form, cfg.function(form, function_name(form, i)))
        for i, cfg in enumerate(configs)
        for form in ("i_direct", "i_transpose")
    }
    native = compile_rlx(lower(functions))
    for i, cfg in enumerate(configs):
        for form in ("i_direct", "i_transpose"):
            cfg.check(native, form, function_name(form, i))


def test_dynamic_batch_takes_any_batch(compile_rlx):
    """One compiled dynamic-batch function, called with batches 1, 2 and 5."""
    functions = {}
    for form in FORMULATIONS:
        cfg = Conv(1, 4, 6, (7, 8), (3, 2), stride=(2, 1), padding=(1, 0), groups=2, dynamic_batch=True)
        functions[form] = (form, cfg.function(form, form))
    native = compile_rlx(lower(functions))
    for batch in (1, 2, 5):
        cfg = Conv(batch, 4, 6, (7, 8), (3, 2), stride=(2, 1), padding=(1, 0), groups=2, dynamic_batch=True)
        for form in FORMULATIONS:
            cfg.check(native, form, form, seed=batch)


def test_im2col_chunk_sizes(compile_rlx):
    """Chunks of part of a sample's rows, of one sample, of several samples, and no chunking.

    N=4, Ho*Wo = 6*5 = 30 rows per sample, K = 2*3*2 = 12: the thresholds give 5, 30, 60
    and all 120 rows per chunk.
    """
    cfg = Conv(4, 2, 3, (8, 6), (3, 2), stride=(1, 1), padding=(0, 0))
    assert cfg.dy_shape == (4, 3, 6, 5)
    thresholds = (5 * 12, 30 * 12, 60 * 12 + 5, 120 * 12)
    functions = {
        f"chunks_{t}": (dict(conv_weight="im2col", im2col_max_elements=t), cfg.weight_function(f"chunks_{t}"))
        for t in thresholds
    }
    native = compile_rlx(lower(functions))
    for name in functions:
        cfg.check(native, "w_im2col", name)


# --------------------------------------------------------------------------------------
# Property-based: random valid configurations, every formulation.
# --------------------------------------------------------------------------------------


@st.composite
def convs(draw):
    groups = draw(st.sampled_from([1, 2, 3]))
    c = groups * draw(st.integers(1, 2))
    f = groups * draw(st.integers(1, 3))
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    hw = []
    for i in range(2):
        extent = dilation[i] * (kernel[i] - 1) + 1
        hw.append(draw(st.integers(max(1, extent - 2 * padding[i]), extent + 6)))
    return Conv(
        draw(st.integers(1, 3)), c, f, tuple(hw), kernel, stride, padding, dilation, groups,
        dtype=draw(st.sampled_from([np.float32, np.float64])), dynamic_batch=draw(st.booleans()),
    )


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(cfg=convs())
def test_random_configurations_match_pytorch(cfg, compile_rlx):
    functions = {form: (form, cfg.function(form, form)) for form in FORMULATIONS}
    native = compile_rlx(lower(functions))
    for form in FORMULATIONS:
        cfg.check(native, form, form)


# --------------------------------------------------------------------------------------
# The IR does not grow with the data.
# --------------------------------------------------------------------------------------


def _op_count(cfg: Conv, formulation: str) -> int:
    module = lower({"f": (formulation, cfg.function(formulation, "f"))})
    return sum(1 for _ in module.walk())


@pytest.mark.parametrize("formulation", list(FORMULATIONS))
def test_ir_size_does_not_depend_on_input_size(formulation):
    """Within each form the direct input gradient picks (phases narrower than a vector on
    wrapped rows: one conv per kernel row; wider phases: one conv each), the IR's size
    does not grow with the input."""
    for small, large in (((8, 8), (12, 12)), ((224, 224), (448, 448))):
        small_conv, large_conv = (Conv(2, 3, 4, size, (3, 3), stride=(2, 2), padding=(1, 1)) for size in (small, large))
        assert _op_count(small_conv, formulation) == _op_count(large_conv, formulation)
