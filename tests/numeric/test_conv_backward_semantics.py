"""Conv and transposed-conv gradients in 2-D and 3-D against PyTorch autograd.

PyTorch's conv semantics: padding per side, groups and depthwise, dilation, stride,
dynamic batch, 3-D, and the transposed conv's two gradients for every valid
output_padding (each value in [0, max(s, d)) per axis), including output_padding (2, 3)
with stride (3, 2) and dilation 4, where dx = conv(dy, w) has more rows than x.

Oracles (PyTorch, float64, `torch.autograd.grad`):
- conv: `F.conv{2,3}d(F.pad(x, per-side padding), w, ...)`;
- conv_transpose: PyTorch has no per-side padding for transposed convs, so the output of
  the padding-0 `F.conv_transpose{2,3}d` (with the same output_padding) is cropped by
  `low` at the start and `high` at the end of each axis.

Each configuration is one function per gradient and formulation; the functions are
decomposed by `DecomposeBackwardPass` with their options and linked into one module,
compiled once. A dynamic-batch configuration runs with two batch sizes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from rlx_mlir.geometry import Window
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass
from oracle import assert_matches, tensor_type

F64 = np.float64
F32 = np.float32

# The formulations (pass options) of the 2-D conv gradients. 3-D has one form whatever the
# options say (`test_3d_options_give_the_one_form` shows that), so 3-D runs the default only.
WEIGHT_FORMS = {
    "direct": dict(conv_weight="direct"),
    "im2col": dict(conv_weight="im2col"),
    "im2col_chunked": dict(conv_weight="im2col", im2col_max_elements=16),
}
INPUT_FORMS = {"direct": dict(conv_input="direct"), "transpose": dict(conv_input="transpose")}
DEFAULT = {"default": {}}


def _xs(values) -> str:
    return "x".join(map(str, values))


def _arr(values) -> str:
    return f"[{', '.join(map(str, values))}]"


@dataclass(frozen=True)
class Case:
    """One forward conv (or transposed conv) whose two gradients are checked."""

    spatial: tuple[int, ...]
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    low: tuple[int, ...]
    high: tuple[int, ...]
    dilation: tuple[int, ...] | None = None
    c: int = 2
    f: int = 3
    groups: int = 1
    n: int = 2
    dtype: type = F32
    dynamic: bool = False
    transpose: bool = False
    output_padding: tuple[int, ...] | None = None  # transposed conv only
    tag: str = field(default="", compare=False)

    @property
    def rank(self) -> int:
        return len(self.spatial)

    @property
    def dil(self) -> tuple[int, ...]:
        return self.dilation or (1,) * self.rank

    @property
    def window(self) -> Window:
        return Window.of(self.kernel, self.stride, (*self.low, *self.high), self.dil)

    @property
    def op(self) -> tuple[int, ...]:
        return self.output_padding or (0,) * self.rank

    def __str__(self) -> str:
        parts = [
            f"{'conv_transpose' if self.transpose else 'conv'}{self.rank}d",
            f"n{self.n}{'dyn' if self.dynamic else ''}",
            f"c{self.c}f{self.f}g{self.groups}",
            f"in{_xs(self.spatial)}",
            f"k{_xs(self.kernel)}",
            f"s{_xs(self.stride)}",
            f"p{_xs(self.low)}_{_xs(self.high)}",
            f"d{_xs(self.dil)}",
        ]
        if self.transpose:
            parts.append(f"op{_xs(self.op)}")
        return "-".join([*parts, np.dtype(self.dtype).name]) + (f"-{self.tag}" if self.tag else "")

    # -- shapes: x is the forward op's input, y its output -------------------------------
    def x_shape(self, n):
        return (n, self.c, *self.spatial)

    def w_shape(self):
        if self.transpose:
            return (self.c, self.f // self.groups, *self.kernel)
        return (self.f, self.c // self.groups, *self.kernel)

    def y_shape(self, n):
        if self.transpose:
            return (n, self.f, *self.window.transpose_output_size(self.spatial, self.op))
        return (n, self.f, *self.window.output_size(self.spatial))

    def _type(self, shape, batched=True) -> str:
        return tensor_type(shape, self.dtype, self.dynamic and batched)

    def _padding(self) -> list[int]:
        return list(self.low) if self.low == self.high else [*self.low, *self.high]

    def _attrs(self, kernel_size: bool) -> str:
        text = f" stride {_arr(self.stride)} padding {_arr(self._padding())} dilation {_arr(self.dil)} groups {self.groups}"
        return (f" kernel_size {_arr(self.kernel)}" if kernel_size else "") + text

    def weight_function(self, name: str) -> str:
        x, dy, dw = self._type(self.x_shape(self.n)), self._type(self.y_shape(self.n)), self._type(self.w_shape(), False)
        op = f"rlx.conv_transpose{self.rank}d_backward_weight" if self.transpose else f"rlx.conv{self.rank}d_backward_weight"
        return (
            f"func.func @{name}(%x: {x}, %dy: {dy}) -> {dw} {{\n"
            f"  %dw = {op} %x, %dy{self._attrs(True)} : ({x}, {dy}) -> {dw}\n"
            f"  return %dw : {dw}\n}}\n"
        )

    def input_function(self, name: str) -> str:
        dy, w, dx = self._type(self.y_shape(self.n)), self._type(self.w_shape(), False), self._type(self.x_shape(self.n))
        if self.transpose:
            op, attrs = f"rlx.conv_transpose{self.rank}d_backward_input", self._attrs(False)
        else:
            op, attrs = f"rlx.conv{self.rank}d_backward_input", self._attrs(True)
        return (
            f"func.func @{name}(%dy: {dy}, %w: {w}) -> {dx} {{\n"
            f"  %dx = {op} %dy, %w{attrs} : ({dy}, {w}) -> {dx}\n"
            f"  return %dx : {dx}\n}}\n"
        )

    # -- the oracle ------------------------------------------------------------------------
    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """PyTorch's forward op, with the padding per side."""
        r = self.rank
        if self.transpose:
            conv_t = (F.conv_transpose2d, F.conv_transpose3d)[r - 2]
            full = conv_t(x, w, stride=self.stride, padding=0, output_padding=self.op, groups=self.groups, dilation=self.dil)
            crop = tuple(slice(lo, full.shape[2 + i] - hi) for i, (lo, hi) in enumerate(zip(self.low, self.high)))
            return full[(slice(None), slice(None), *crop)]
        conv = (F.conv2d, F.conv3d)[r - 2]
        pad = [v for i in reversed(range(r)) for v in (self.low[i], self.high[i])]
        return conv(F.pad(x, pad), w, stride=self.stride, dilation=self.dil, groups=self.groups)

    def weight_oracle(self):
        def grad_weight(x, dy):
            w = torch.zeros(self.w_shape(), dtype=x.dtype, requires_grad=True)
            (dw,) = torch.autograd.grad(self.forward(x, w), w, dy)
            return dw
        return grad_weight

    def input_oracle(self):
        def grad_input(dy, w):
            x = torch.zeros(self.x_shape(dy.shape[0]), dtype=dy.dtype, requires_grad=True)
            (dx,) = torch.autograd.grad(self.forward(x, w), x, dy)
            return dx
        return grad_input

    def batches(self) -> list[int]:
        return [self.n, self.n + 2] if self.dynamic else [self.n]

    def check(self, native, gradient: str, name: str) -> None:
        for n in self.batches():
            rng = np.random.default_rng(n)
            x, w, dy = (rng.standard_normal(s).astype(self.dtype) for s in (self.x_shape(n), self.w_shape(), self.y_shape(n)))
            if gradient == "weight":
                assert_matches(native[name](x, dy), self.weight_oracle(), (x, dy), label=f"{name} dw")
            else:
                assert_matches(native[name](dy, w), self.input_oracle(), (dy, w), label=f"{name} dx")


def lower(functions: dict[str, tuple[dict, str]]) -> ModuleOp:
    """`{name: (pass options, function text)}` -> one module; functions sharing options are
    decomposed together by one `DecomposeBackwardPass`."""
    ctx = make_context()
    merged = ModuleOp([])
    by_options: dict[tuple, str] = {}
    for options, text in functions.values():
        key = tuple(sorted(options.items()))
        by_options[key] = by_options.get(key, "") + text
    for key, text in by_options.items():
        module = parse_module(ctx, text)
        DecomposeBackwardPass(**dict(key)).apply(ctx, module)
        for op in list(module.body.block.ops):
            assert isinstance(op, func.FuncOp)
            op.detach()
            merged.body.block.add_op(op)
    return merged


# --------------------------------------------------------------------------------------
# The matrix
# --------------------------------------------------------------------------------------

CONV = [
    # 2-D, per-side padding: the fast paths (phases, im2col, grouped forms) read low/high.
    Case((7, 8), (3, 3), (1, 1), (2, 0), (0, 1), tag="per-side"),
    Case((9, 8), (3, 2), (2, 3), (1, 0), (0, 2), n=3, tag="per-side-strided"),
    # 10 + 0 + 1 - 3 = 8, stride 3: the last rows are in no window (x is larger than needed).
    Case((10, 9), (3, 3), (3, 2), (0, 2), (1, 0), dilation=(1, 2), tag="per-side-unreached"),
    Case((8, 9), (3, 3), (2, 1), (0, 1), (2, 1), dilation=(2, 1), c=4, f=6, groups=2),
    Case((8, 7), (3, 3), (2, 2), (1, 0), (0, 1), c=4, f=4, groups=4, tag="depthwise"),
    Case((7, 7), (2, 3), (1, 2), (0, 2), (1, 1), c=3, f=6, groups=3, dtype=F64, tag="depthwise-multiplier2"),
    # low padding beyond the dilated kernel's reach: dy is cropped, not padded.
    Case((5, 6), (2, 2), (1, 1), (3, 0), (0, 3), dtype=F64, tag="negative-adjoint-padding"),
    Case((7, 6), (2, 3), (2, 1), (1, 1), (0, 2), c=4, f=2, groups=2, dynamic=True, n=1),
    Case((6, 6), (3, 3), (3, 3), (0, 0), (0, 0), dtype=F64, dynamic=True, tag="stride-eq-kernel"),
    # 3-D
    Case((5, 6, 4), (3, 2, 2), (1, 1, 1), (1, 0, 1), (1, 0, 1), tag="symmetric"),
    Case((6, 7, 5), (3, 2, 2), (2, 1, 2), (1, 0, 0), (0, 1, 1), dilation=(1, 2, 1), c=4, f=6, groups=2),
    Case((5, 5, 6), (2, 3, 1), (2, 3, 2), (0, 2, 0), (1, 0, 0), dtype=F64, tag="per-side-unreached"),
    Case((4, 5, 6), (2, 2, 3), (1, 2, 1), (1, 1, 0), (0, 1, 2), c=3, f=3, groups=3, dynamic=True, tag="depthwise"),
    Case((5, 4, 4), (3, 1, 2), (2, 1, 3), (1, 0, 2), (1, 0, 0), dilation=(2, 1, 1), n=1, dtype=F64, dynamic=True),
    Case((3, 4, 3), (3, 4, 3), (1, 1, 1), (0, 0, 0), (0, 0, 0), tag="kernel-eq-input"),
]


def _all_output_paddings(case: Case) -> list[Case]:
    """`case` once per output_padding in [0, max(s, d)) on every axis."""
    bounds = [range(max(s, d)) for s, d in zip(case.stride, case.dil)]
    return [Case(**{**case.__dict__, "output_padding": op}) for op in itertools.product(*bounds)]


TRANSPOSE = [
    # The issue's case, output_padding (2, 3) with stride (3, 2) and dilation 4, among every
    # output_padding of that geometry: with output_padding >= stride, conv(dy, w) is longer than x.
    *_all_output_paddings(Case((4, 5), (2, 3), (3, 2), (1, 2), (1, 2), dilation=(4, 4), transpose=True)),
    *_all_output_paddings(
        Case((3, 4), (3, 2), (2, 3), (2, 0), (0, 1), c=4, f=6, groups=2, transpose=True, dtype=F64, tag="per-side")
    ),
    Case((4, 4), (3, 3), (2, 2), (1, 0), (0, 2), c=3, f=3, groups=3, output_padding=(1, 1), transpose=True,
         dynamic=True, tag="depthwise"),
    Case((4, 3), (2, 2), (1, 2), (2, 0), (0, 2), output_padding=(0, 1), transpose=True, dynamic=True, dtype=F64,
         tag="padding-beyond-reach"),
    Case((5, 4), (3, 3), (1, 1), (0, 0), (0, 0), dilation=(1, 2), output_padding=(0, 1), transpose=True),
    # 3-D
    *_all_output_paddings(
        Case((3, 3, 2), (2, 2, 3), (2, 1, 1), (1, 0, 1), (0, 1, 1), dilation=(1, 3, 1), c=4, f=2, groups=2,
             transpose=True)
    ),
    Case((3, 2, 4), (2, 3, 2), (3, 1, 2), (0, 1, 0), (1, 0, 1), dilation=(4, 1, 1), output_padding=(3, 0, 1),
         transpose=True, dynamic=True, dtype=F64),
]


def _functions():
    """{name: (case, gradient, options, text)}."""
    out = {}
    for i, case in enumerate(CONV):
        weight_forms, input_forms = (WEIGHT_FORMS, INPUT_FORMS) if case.rank == 2 else (DEFAULT, DEFAULT)
        if case.rank == 2 and not (case.dynamic or case.groups > 1):
            weight_forms = {k: v for k, v in weight_forms.items() if k != "im2col_chunked"}
        for form, options in weight_forms.items():
            out[f"conv{i}_w_{form}"] = (case, "weight", options, case.weight_function(f"conv{i}_w_{form}"))
        for form, options in input_forms.items():
            out[f"conv{i}_i_{form}"] = (case, "input", options, case.input_function(f"conv{i}_i_{form}"))
    for i, case in enumerate(TRANSPOSE):
        out[f"tr{i}_w"] = (case, "weight", {}, case.weight_function(f"tr{i}_w"))
        out[f"tr{i}_i"] = (case, "input", {}, case.input_function(f"tr{i}_i"))
    return out


FUNCTIONS = _functions()


@pytest.fixture(scope="module")
def native(compile_rlx):
    return compile_rlx(lower({name: (options, text) for name, (_, _, options, text) in FUNCTIONS.items()}))


def test_ids_are_unique():
    ids = [str(c) for c in CONV + TRANSPOSE]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]


def test_the_issue_case_has_more_conv_rows_than_x():
    """output_padding (2, 3), stride (3, 2), dilation 4: conv(dy, w) has more cells than x."""
    case = next(c for c in TRANSPOSE if c.op == (2, 3) and c.stride == (3, 2))
    out = case.y_shape(1)[2:]
    conv_of_dy = Window.of(case.kernel, case.stride, (*case.low, *case.high), case.dil).output_size(out)
    assert all(a >= b for a, b in zip(conv_of_dy, case.spatial)) and conv_of_dy != case.spatial


@pytest.mark.parametrize("name", list(FUNCTIONS), ids=[f"{n}-{FUNCTIONS[n][0]}" for n in FUNCTIONS])
def test_gradient_matches_pytorch(name, native):
    case, gradient, _, _ = FUNCTIONS[name]
    case.check(native, gradient, name)


# --------------------------------------------------------------------------------------
# The IR: every option value works in 3-D, and no pattern grows with the data
# --------------------------------------------------------------------------------------

OPTION_VALUES = [
    dict(conv_weight="im2col"),
    dict(conv_weight="im2col", im2col_max_elements=1),
    dict(conv_input="transpose"),
    dict(conv_weight="im2col", conv_input="transpose"),
]


def _decomposed(text: str, options: dict) -> list[str]:
    """The decomposed IR's ops (name and result types), verified by xDSL."""
    module = lower({"f": (options, text)})
    module.verify()
    names = [f"{op.name} {[str(r.type) for r in op.results]}" for op in module.walk()]
    assert not any(name.startswith("rlx.") for name in names)
    return names


@pytest.mark.parametrize("options", OPTION_VALUES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("index", [i for i, c in enumerate(CONV) if c.rank == 3])
def test_3d_options_give_the_one_form(index, options):
    """3-D conv gradients have one formulation: any option value decomposes them as the default does."""
    case = CONV[index]
    for text in (case.weight_function("f"), case.input_function("f")):
        assert _decomposed(text, options) == _decomposed(text, {})


def _grown(case: Case, cells: int) -> Case:
    """`case` with `cells` more input cells per axis (a multiple of every stride, so that the
    sizes' residues, and with them the choice between padding and cropping, stay) and a
    larger batch."""
    assert all(cells % s == 0 for s in case.stride)
    return Case(**{**case.__dict__, "spatial": tuple(s + cells for s in case.spatial), "n": case.n + cells})


@pytest.mark.parametrize(
    "case",
    [CONV[1], CONV[10], TRANSPOSE[11], TRANSPOSE[-1]],
    ids=lambda c: str(c),
)
def test_ir_size_does_not_depend_on_tensor_sizes(case):
    """The same ops for 12 more cells per axis, and for 240 more against 480 more (and a
    larger batch); only types change. (Two pairs: a strided input gradient whose phases are
    narrower than a vector takes another form, wrapped rows, than a wide one.)"""
    for text in (lambda c: c.weight_function("f"), lambda c: c.input_function("f")):
        for fewer, more in ((0, 12), (240, 480)):
            small = [name.split(" ")[0] for name in _decomposed(text(_grown(case, fewer)), {})]
            large = [name.split(" ")[0] for name in _decomposed(text(_grown(case, more)), {})]
            assert small == large


def _cli_module() -> str:
    """A 3-D conv's two gradients and a 2-D per-side one's, in one module for rlx-opt."""
    three, per_side = CONV[10], CONV[1]
    return "".join(
        [three.weight_function("w3"), three.input_function("i3"), per_side.weight_function("w2"), per_side.input_function("i2")]
    )


@pytest.mark.parametrize(
    "options",
    ["conv-weight=direct conv-input=direct", "conv-weight=im2col im2col-max-elements=1 conv-input=transpose"],
)
def test_every_option_value_works_on_3d_and_per_side(options):
    from test_rlx_opt_cli import rlx_opt

    done = rlx_opt(f"--decompose-backward={options}", input=_cli_module())
    assert done.returncode == 0, done.stderr
    assert "rlx." not in done.stdout


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("im2col-max-elements=x", r"option 'im2col-max-elements' must be an integer; got 'x'"),
        ("im2col-max-elements=0", r"option 'im2col-max-elements' must be positive, got 0"),
        ("conv-input=im2col", r"option 'conv-input' must be one of direct, transpose; got 'im2col'"),
    ],
)
def test_bad_option_values_fail_cleanly(options, message):
    from test_rlx_opt_cli import assert_clean_failure, rlx_opt

    assert_clean_failure(rlx_opt(f"--decompose-backward={options}", input=_cli_module()), message)
