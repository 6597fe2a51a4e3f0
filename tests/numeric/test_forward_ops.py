"""Forward RLX ops, lowered by `convert-rlx-to-linalg` and run natively, against PyTorch.

Each op has a configuration matrix; every configuration is one function of ONE module per
op (compiled once per session), and one test case whose id names the configuration.
A configuration with a dynamic batch (`?` in the signature) runs with two batch sizes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.geometry import Window
from oracle import assert_exact, assert_matches, tensor_type

DTYPES = {"f32": np.float32, "f64": np.float64}


def _pair(values) -> str:
    return f"[{values[0]}, {values[1]}]"


def _xy(values) -> str:
    return f"{values[0]}x{values[1]}"


@dataclass(frozen=True)
class Case:
    """One configuration: an RLX op in a function `@<id>`, its inputs and its oracle."""

    n: int = 2
    dtype: str = "f32"
    dynamic: bool = False

    # -- what each op's case defines -----------------------------------------------------
    def label(self) -> str: ...
    def op_text(self, args: list[str], types: list[str], result: str) -> str: ...
    def input_shapes(self, n: int) -> list[tuple[int, ...]]: ...
    def result_shape(self, n: int) -> tuple[int, ...]: ...
    def oracle(self, *inputs: torch.Tensor) -> torch.Tensor: ...

    # -- shared ------------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{self.label()}_n{self.n}{'dyn' if self.dynamic else ''}_{self.dtype}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return DTYPES[self.dtype]

    def batched(self, index: int) -> bool:
        """Whether input `index` has the (possibly dynamic) batch as its leading dim."""
        return True

    def function(self) -> str:
        shapes = self.input_shapes(self.n)
        types = [tensor_type(s, self.np_dtype, self.dynamic and self.batched(i)) for i, s in enumerate(shapes)]
        result = tensor_type(self.result_shape(self.n), self.np_dtype, self.dynamic)
        args = [f"%a{i}" for i in range(len(shapes))]
        params = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
        return (
            f"func.func @{self.symbol}({params}) -> {result} {{\n"
            f"  %y = {self.op_text(args, types, result)}\n"
            f"  return %y : {result}\n}}\n"
        )

    def batches(self) -> list[int]:
        return [self.n, self.n + 2] if self.dynamic else [self.n]

    def inputs(self, n: int, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(s).astype(self.np_dtype) for s in self.input_shapes(n)]

    # Data movement (a max, a copy) is exact; arithmetic is checked within the error model.
    exact: ClassVar[bool] = False

    def check(self, module) -> None:
        for n in self.batches():
            inputs = self.inputs(n)
            got = module[self.symbol](*inputs)
            if self.exact:
                assert_exact(got, self.oracle(*(torch.from_numpy(a) for a in inputs)), dtype=self.np_dtype)
            else:
                assert_matches(got, self.oracle, inputs, label=type(self).__name__)


def _typed_op(name: str, attrs: str, args: list[str], types: list[str], result: str) -> str:
    return f"{name} {', '.join(args)}{attrs} : ({', '.join(types)}) -> {result}"


# --------------------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvCase(Case):
    c: int = 3
    hw: tuple[int, int] = (8, 8)
    f: int = 4
    kernel: tuple[int, int] = (3, 3)
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    dilation: tuple[int, int] = (1, 1)
    groups: int = 1

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, self.padding, self.dilation)

    def geometry_label(self) -> str:
        return (
            f"c{self.c}_{_xy(self.hw)}_f{self.f}_k{_xy(self.kernel)}_s{_xy(self.stride)}"
            f"_p{_xy(self.padding)}_d{_xy(self.dilation)}_g{self.groups}"
        )

    def geometry_attrs(self) -> str:
        return (
            f" stride {_pair(self.stride)} padding {_pair(self.padding)}"
            f" dilation {_pair(self.dilation)} groups {self.groups}"
        )


@dataclass(frozen=True)
class Conv2d(ConvCase):
    def label(self) -> str:
        return f"conv2d_{self.geometry_label()}"

    def batched(self, index: int) -> bool:
        return index == 0

    def input_shapes(self, n):
        return [(n, self.c, *self.hw), (self.f, self.c // self.groups, *self.kernel)]

    def result_shape(self, n):
        return (n, self.f, *self.window.output_size(self.hw))

    def op_text(self, args, types, result):
        return _typed_op("rlx.conv2d", self.geometry_attrs(), args, types, result)

    def oracle(self, x, w):
        return F.conv2d(x, w, stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups)


CONV2D = [
    Conv2d(kernel=(3, 3), padding=(1, 1)),
    Conv2d(n=1, stride=(2, 2), padding=(1, 1)),
    # 8 + 0 - 3 = 5 is odd: the last input row and column belong to no window.
    Conv2d(hw=(8, 8), stride=(2, 2)),
    Conv2d(hw=(7, 9), kernel=(3, 2), stride=(1, 2), padding=(2, 1), dilation=(2, 1)),
    Conv2d(hw=(9, 9), kernel=(5, 3), padding=(1, 2), dilation=(1, 2)),
    Conv2d(c=4, f=6, groups=2, stride=(2, 1), padding=(1, 0)),
    Conv2d(c=4, f=4, groups=4, padding=(1, 1)),  # depthwise
    Conv2d(c=4, f=8, groups=4, stride=(2, 2), padding=(1, 1)),  # depthwise, multiplier 2
    Conv2d(n=1, dynamic=True, c=4, f=6, groups=2, padding=(1, 1)),
    Conv2d(n=2, dynamic=True, hw=(7, 6), stride=(2, 2), dilation=(2, 2), padding=(1, 1)),
    Conv2d(dtype="f64", c=4, f=6, groups=2, hw=(7, 6), stride=(2, 1), padding=(1, 1)),
    Conv2d(dtype="f64", dynamic=True, kernel=(2, 3), stride=(2, 2)),
]


@dataclass(frozen=True)
class ConvTranspose2d(ConvCase):
    output_padding: tuple[int, int] = (0, 0)

    def label(self) -> str:
        return f"conv_transpose2d_{self.geometry_label()}_op{_xy(self.output_padding)}"

    def batched(self, index: int) -> bool:
        return index == 0

    def input_shapes(self, n):
        return [(n, self.c, *self.hw), (self.c, self.f // self.groups, *self.kernel)]

    def result_shape(self, n):
        return (n, self.f, *self.window.transpose_output_size(self.hw, self.output_padding))

    def op_text(self, args, types, result):
        # The custom form's order: output_padding comes before groups.
        attrs = self.geometry_attrs().replace(" groups", f" output_padding {_pair(self.output_padding)} groups")
        return _typed_op("rlx.conv_transpose2d", attrs, args, types, result)

    def oracle(self, x, w):
        return F.conv_transpose2d(
            x, w, stride=self.stride, padding=self.padding, output_padding=self.output_padding,
            groups=self.groups, dilation=self.dilation,
        )


CONV_TRANSPOSE2D = [
    ConvTranspose2d(hw=(5, 5)),
    ConvTranspose2d(hw=(4, 5), stride=(2, 2), padding=(1, 1), output_padding=(1, 1)),
    ConvTranspose2d(n=1, hw=(4, 6), kernel=(3, 2), stride=(2, 3), padding=(0, 1), output_padding=(1, 2)),
    ConvTranspose2d(hw=(5, 4), stride=(2, 1), dilation=(2, 3), padding=(1, 2), output_padding=(1, 2)),
    # padding 2 exceeds d*(k-1) = 1: the spread input is cropped, not padded.
    ConvTranspose2d(hw=(4, 4), kernel=(2, 2), stride=(3, 3), padding=(2, 2), output_padding=(1, 2)),
    ConvTranspose2d(c=4, f=6, groups=2, hw=(4, 4), stride=(2, 2), padding=(1, 1)),
    ConvTranspose2d(c=4, f=4, groups=4, hw=(5, 5), padding=(1, 1)),  # depthwise
    ConvTranspose2d(n=1, dynamic=True, c=4, f=2, groups=2, hw=(4, 5), stride=(2, 2), output_padding=(1, 0)),
    ConvTranspose2d(n=1, dynamic=True, hw=(4, 5), kernel=(2, 2), stride=(2, 2), padding=(2, 1), output_padding=(1, 1)),
    ConvTranspose2d(dtype="f64", hw=(4, 5), stride=(2, 2), padding=(1, 1), output_padding=(1, 1)),
    ConvTranspose2d(dtype="f64", dynamic=True, c=4, f=6, groups=2, hw=(3, 4), stride=(3, 2), dilation=(1, 2)),
]


# --------------------------------------------------------------------------------------
# Pools
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolCase(Case):
    c: int = 3
    hw: tuple[int, int] = (8, 8)
    kernel: tuple[int, int] = (3, 3)
    stride: tuple[int, int] = (2, 2)
    padding: tuple[int, int] = (0, 0)

    def geometry_label(self) -> str:
        return f"c{self.c}_{_xy(self.hw)}_k{_xy(self.kernel)}_s{_xy(self.stride)}_p{_xy(self.padding)}"

    def geometry_attrs(self) -> str:
        return f" kernel_size {_pair(self.kernel)} stride {_pair(self.stride)} padding {_pair(self.padding)}"

    def input_shapes(self, n):
        return [(n, self.c, *self.hw)]

    def result_shape(self, n):
        return (n, self.c, *Window.of(self.kernel, self.stride, self.padding).output_size(self.hw))


@dataclass(frozen=True)
class MaxPool2d(PoolCase):
    exact: ClassVar[bool] = True

    def label(self) -> str:
        return f"max_pool2d_{self.geometry_label()}"

    def inputs(self, n, seed=0):
        # Mostly negative: a window whose real cells are all below 0 shows a zero pad.
        return [x - 2 for x in super().inputs(n, seed)]

    def op_text(self, args, types, result):
        return _typed_op("rlx.max_pool2d", self.geometry_attrs(), args, types, result)

    def oracle(self, x):
        return F.max_pool2d(x, self.kernel, self.stride, self.padding)


MAX_POOL2D = [
    MaxPool2d(padding=(1, 1)),
    MaxPool2d(n=1, kernel=(2, 2)),
    MaxPool2d(hw=(8, 8)),  # last row and column in no window
    MaxPool2d(hw=(7, 9), kernel=(3, 2), stride=(1, 2), padding=(1, 1)),
    MaxPool2d(hw=(6, 6), kernel=(5, 5), stride=(1, 1), padding=(2, 2)),
    MaxPool2d(n=1, dynamic=True, padding=(1, 1)),
    MaxPool2d(dtype="f64", hw=(7, 6), padding=(1, 1)),
    MaxPool2d(dtype="f64", dynamic=True, hw=(5, 7), kernel=(2, 3), stride=(2, 1), padding=(1, 0)),
]


@dataclass(frozen=True)
class AvgPool2d(PoolCase):
    count_include_pad: bool = True

    def label(self) -> str:
        return f"avg_pool2d_{self.geometry_label()}_{'incl' if self.count_include_pad else 'excl'}"

    def op_text(self, args, types, result):
        attrs = self.geometry_attrs() + f" count_include_pad {'true' if self.count_include_pad else 'false'}"
        return _typed_op("rlx.avg_pool2d", attrs, args, types, result)

    def oracle(self, x):
        return F.avg_pool2d(x, self.kernel, self.stride, self.padding, count_include_pad=self.count_include_pad)


AVG_POOL2D = [
    *(
        AvgPool2d(count_include_pad=incl, **geometry)
        for incl in (True, False)
        for geometry in (
            dict(padding=(1, 1)),
            dict(hw=(9, 9), stride=(3, 3), padding=(1, 1)),  # last cell and right pad unused
            dict(hw=(7, 9), kernel=(3, 2), stride=(2, 1), padding=(1, 1)),
            dict(hw=(6, 7), kernel=(5, 4), stride=(1, 2), padding=(2, 2)),
        )
    ),
    AvgPool2d(n=1, kernel=(2, 2)),
    AvgPool2d(n=1, dynamic=True, padding=(1, 1), count_include_pad=False),
    AvgPool2d(dtype="f64", hw=(7, 6), padding=(1, 1), count_include_pad=True),
    AvgPool2d(dtype="f64", dynamic=True, hw=(5, 7), kernel=(2, 3), stride=(2, 1), padding=(1, 1), count_include_pad=False),
]


# --------------------------------------------------------------------------------------
# Matmul and im2col
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matmul(Case):
    m: int = 5
    k: int = 7
    cols: int = 3
    batch: bool = False

    def label(self) -> str:
        return f"matmul_{'batched' if self.batch else '2d'}_{self.m}x{self.k}x{self.cols}"

    def batched(self, index: int) -> bool:
        return self.batch or index == 0  # a 2-D matmul's rows are its batch

    def input_shapes(self, n):
        if self.batch:
            return [(n, self.m, self.k), (n, self.k, self.cols)]
        return [(n * self.m, self.k), (self.k, self.cols)]

    def result_shape(self, n):
        return (n, self.m, self.cols) if self.batch else (n * self.m, self.cols)

    def op_text(self, args, types, result):
        return _typed_op("rlx.matmul", "", args, types, result)

    def oracle(self, a, b):
        return torch.matmul(a, b)


MATMUL = [
    Matmul(n=1),
    Matmul(n=1, m=1, k=16, cols=1),
    Matmul(n=1, dynamic=True),
    Matmul(batch=True),
    Matmul(n=1, batch=True, m=4, k=3, cols=6),
    Matmul(n=1, batch=True, dynamic=True),
    Matmul(n=1, dtype="f64", m=6, k=5, cols=4),
    Matmul(dtype="f64", batch=True, dynamic=True),
]


@dataclass(frozen=True)
class Im2col(PoolCase):
    exact: ClassVar[bool] = True
    dilation: tuple[int, int] = (1, 1)
    stride: tuple[int, int] = (1, 1)

    def label(self) -> str:
        return f"im2col_{self.geometry_label()}_d{_xy(self.dilation)}"

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, self.padding, self.dilation)

    def op_text(self, args, types, result):
        attrs = self.geometry_attrs() + f" dilation {_pair(self.dilation)}"
        return _typed_op("rlx.im2col", attrs, args, types, result)

    def result_shape(self, n):
        ho, wo = self.window.output_size(self.hw)
        return (n * ho * wo, self.c * self.kernel[0] * self.kernel[1])

    def oracle(self, x):
        cols = F.unfold(x, self.kernel, dilation=self.dilation, padding=self.padding, stride=self.stride)
        return cols.transpose(1, 2).reshape(-1, self.c * self.kernel[0] * self.kernel[1])


IM2COL = [
    Im2col(padding=(1, 1)),
    Im2col(n=1, hw=(7, 9), kernel=(2, 3), stride=(2, 1), padding=(0, 1), dilation=(1, 2)),
    Im2col(hw=(8, 8), stride=(2, 2), kernel=(3, 3)),  # last row and column in no window
    Im2col(n=1, dynamic=True, hw=(6, 5), stride=(2, 2), padding=(1, 1)),
    Im2col(dtype="f64", hw=(7, 6), kernel=(3, 2), dilation=(2, 2), padding=(2, 1)),
]


# --------------------------------------------------------------------------------------
# Tests: one compiled module per op, one case per configuration
# --------------------------------------------------------------------------------------

MATRICES = {
    "conv2d": CONV2D,
    "conv_transpose2d": CONV_TRANSPOSE2D,
    "max_pool2d": MAX_POOL2D,
    "avg_pool2d": AVG_POOL2D,
    "matmul": MATMUL,
    "im2col": IM2COL,
}

_compiled: dict[str, object] = {}


@pytest.fixture
def module_of(compile_rlx):
    """The op's whole matrix, compiled once per session as one module."""

    def get(op: str):
        if op not in _compiled:
            _compiled[op] = compile_rlx("\n".join(case.function() for case in MATRICES[op]))
        return _compiled[op]

    return get


CASES = [pytest.param(op, case, id=str(case)) for op, matrix in MATRICES.items() for case in matrix]


def test_matrix_ids_are_unique():
    ids = [str(case) for matrix in MATRICES.values() for case in matrix]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]


@pytest.mark.parametrize(("op", "case"), CASES)
def test_forward_op_matches_pytorch(op, case, module_of):
    case.check(module_of(op))


# --------------------------------------------------------------------------------------
# IR size: the lowering emits the same ops whatever the tensor sizes
# --------------------------------------------------------------------------------------


def _lowered_op_names(text: str) -> list[str]:
    from rlx_mlir.ir import make_context, parse_module, verify_module
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass

    ctx = make_context()
    module = parse_module(ctx, text, "<ir-size>")
    ConvertRlxToLinalgPass().apply(ctx, module)
    verify_module(module)
    return [op.name for op in module.walk()]


SIZE_CASES = [
    Conv2d(c=4, f=8, groups=2, stride=(2, 2), padding=(1, 1)),
    ConvTranspose2d(c=4, f=6, groups=2, stride=(2, 2), padding=(1, 1), output_padding=(1, 1)),
    MaxPool2d(padding=(1, 1)),
    AvgPool2d(padding=(1, 1), count_include_pad=False),
    Im2col(padding=(1, 1)),
]


@pytest.mark.parametrize("case", SIZE_CASES, ids=lambda c: c.label().split("_c")[0])
def test_ir_size_does_not_depend_on_tensor_sizes(case):
    small = case.function()
    large = type(case)(**{**case.__dict__, "hw": (224, 224)}).function()
    small_ops, large_ops = _lowered_op_names(small), _lowered_op_names(large)
    assert not any(name.startswith("rlx.") for name in small_ops)
    assert small_ops == large_ops
