"""The input gradient's paths (`conv-input=direct`) against PyTorch's `torch.nn.grad.conv2d_input`.

`ConvBackwardInputDirect` splits dx into stride phases (one stride-1 conv of dy with a
sub-kernel per phase, phases without taps left zero), flattens 1x1 phases, and the conv
schedule splits the output width into 8-column chunks. Each configuration below names the
path or corner it exercises; all of them are built into one module (one native build).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch
from oracle import assert_matches, tensor_type

from rlx_mlir.geometry import Window, smallest_conv_input
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass


@dataclass(frozen=True)
class Case:
    """x [n, c, *hw], w [f, c/groups, *kernel]; `extra` input rows/columns past the smallest
    input that gives dy's size (the forward conv's last window fell short by that much)."""

    tag: str
    n: int
    c: int
    f: int
    dy_hw: tuple[int, int]
    kernel: tuple[int, int]
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    dilation: tuple[int, int] = (1, 1)
    extra: tuple[int, int] = (0, 0)
    groups: int = 1
    dtype: type = np.float32
    dynamic_batch: bool = False

    def __str__(self) -> str:
        return self.tag

    @property
    def hw(self) -> tuple[int, int]:
        return tuple(
            smallest_conv_input(o, k, s, p, d) + e
            for o, k, s, p, d, e in zip(self.dy_hw, self.kernel, self.stride, self.padding, self.dilation, self.extra)
        )

    @property
    def shapes(self):
        dy = (self.n, self.f, *self.dy_hw)
        w = (self.f, self.c // self.groups, *self.kernel)
        dx = (self.n, self.c, *self.hw)
        assert Window.of(self.kernel, self.stride, self.padding, self.dilation).output_size(self.hw) == self.dy_hw
        return dy, w, dx

    def function(self, name: str) -> str:
        dy, w, dx = self.shapes
        t = lambda shape, batched=True: tensor_type(shape, self.dtype, self.dynamic_batch and batched)
        attrs = (
            f"kernel_size [{self.kernel[0]}, {self.kernel[1]}] stride [{self.stride[0]}, {self.stride[1]}] "
            f"padding [{self.padding[0]}, {self.padding[1]}] dilation [{self.dilation[0]}, {self.dilation[1]}] "
            f"groups {self.groups}"
        )
        return (
            f"func.func @{name}(%dy: {t(dy)}, %w: {t(w, False)}) -> {t(dx)} {{\n"
            f"  %dx = rlx.conv2d_backward_input %dy, %w {attrs} : ({t(dy)}, {t(w, False)}) -> {t(dx)}\n"
            f"  return %dx : {t(dx)}\n}}\n"
        )

    def check(self, native, name: str) -> None:
        dy_shape, w_shape, dx_shape = self.shapes
        rng = np.random.default_rng(len(self.tag))
        dy = rng.standard_normal(dy_shape).astype(self.dtype)
        w = rng.standard_normal(w_shape).astype(self.dtype)

        def conv2d_input(dy, w):
            return torch.nn.grad.conv2d_input(
                dx_shape, w, dy, stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups
            )

        assert_matches(native[name](dy, w), conv2d_input, (dy, w))


F64, F16 = np.float64, np.float16
CASES = [
    # Stride 1: one phase, the whole adjoint conv; widths >= 8 take the scheduled path.
    Case("s1-pad1-width-multiple-of-8", 2, 16, 8, (6, 16), (3, 3), padding=(1, 1)),
    Case("s1-width-19-chunks-16-2-1", 3, 5, 9, (5, 19), (3, 3), padding=(1, 1)),
    Case("s1-width-28-chunks-24-4", 1, 8, 12, (4, 28), (3, 3), padding=(1, 1)),
    Case("s1-rect-kernel-dilated", 2, 6, 5, (7, 11), (3, 2), padding=(2, 0), dilation=(2, 3)),
    Case("s1-narrow-width", 3, 4, 3, (5, 5), (2, 3)),
    Case("s1-negative-adjoint-padding", 1, 3, 4, (9, 12), (2, 2), padding=(2, 2)),
    # 1x1 phases on flattened rows (the window is exactly dy).
    Case("1x1-s1-flattened", 2, 24, 16, (5, 7), (1, 1)),
    Case("1x1-s2-one-phase-of-four", 2, 8, 16, (4, 9), (1, 1), stride=(2, 2), extra=(1, 0)),
    Case("1x1-s1-padded-not-flattened", 2, 8, 8, (6, 10), (1, 1), padding=(1, 1)),
    # Stride > 1: s*s phases, sub-kernels of ceil/floor(k/s) taps.
    Case("stem-7x7-s2-p3", 2, 3, 16, (8, 12), (7, 7), stride=(2, 2), padding=(3, 3), extra=(1, 1)),
    Case("s2-3x3-p1-last-window-short", 3, 8, 8, (5, 9), (3, 3), stride=(2, 2), padding=(1, 1), extra=(1, 0)),
    Case("s3-2x2-stride-gt-kernel-empty-phases", 2, 4, 6, (3, 5), (2, 2), stride=(3, 3), extra=(2, 1)),
    Case("s3x2-rect-kernel-padding", 2, 4, 6, (4, 9), (2, 3), stride=(3, 2), padding=(2, 1), extra=(1, 1)),
    Case("s2-d2-gcd-2-taps-in-even-phases", 1, 5, 7, (6, 10), (3, 3), stride=(2, 2), padding=(1, 2), dilation=(2, 2)),
    Case("s2-d3-coprime-taps-every-phase", 2, 3, 4, (5, 9), (3, 3), stride=(2, 2), padding=(2, 1), dilation=(3, 3), extra=(1, 1)),
    Case("s3-d2-mixed-strides", 1, 4, 5, (4, 6), (3, 2), stride=(3, 1), padding=(1, 0), dilation=(2, 1), extra=(2, 0)),
    # Strided phases narrower than a vector on wrapped rows (one long row per image, the
    # columns past each row's end dropped): the kernel rows accumulate one 1-row conv each.
    Case("wrapped-4x4-s2-p1-critic", 2, 16, 32, (4, 4), (4, 4), stride=(2, 2), padding=(1, 1)),
    Case("wrapped-4x4-s2-p1-critic-f64", 2, 16, 32, (4, 4), (4, 4), stride=(2, 2), padding=(1, 1), dtype=F64),
    Case("wrapped-3x3-s2-p1-7-wide-even-input", 2, 32, 16, (7, 7), (3, 3), stride=(2, 2), padding=(1, 1), extra=(1, 1)),
    Case("wrapped-3x3-s2-p0-odd-f64", 1, 16, 24, (5, 6), (3, 3), stride=(2, 2), extra=(1, 0), dtype=F64),
    Case("wrapped-s3-d2-p2-rect", 2, 8, 16, (5, 4), (3, 4), stride=(3, 3), padding=(2, 1), dilation=(2, 2), extra=(2, 1)),
    # Groups, batch, dtypes.
    Case("groups2-s2", 2, 8, 12, (4, 9), (3, 3), stride=(2, 2), padding=(1, 1), groups=2),
    Case("batch1-s2-f64", 1, 6, 10, (5, 8), (3, 3), stride=(2, 2), padding=(1, 1), extra=(1, 1), dtype=F64),
    Case("dynamic-batch-s2-f64", 3, 4, 8, (4, 10), (3, 3), stride=(2, 2), padding=(1, 1), dtype=F64, dynamic_batch=True),
    Case("dynamic-batch-s1-width-16", 2, 8, 8, (4, 16), (3, 3), padding=(1, 1), dynamic_batch=True),
    Case("f16-s2", 2, 4, 8, (4, 9), (3, 3), stride=(2, 2), padding=(1, 1), dtype=F16),
    Case("f16-s1-width-16", 1, 8, 8, (3, 16), (3, 3), padding=(1, 1), dtype=F16),
]


@pytest.fixture(scope="module")
def native(compile_rlx):
    ctx = make_context()
    module = parse_module(ctx, "".join(case.function(f"f{i}") for i, case in enumerate(CASES)))
    DecomposeBackwardPass(conv_input="direct").apply(ctx, module)
    return compile_rlx(module)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[str(c) for c in CASES])
def test_input_gradient_path_matches_pytorch(index, native):
    CASES[index].check(native, f"f{index}")


def test_dynamic_batch_takes_other_batches(native):
    """The dynamic-batch functions, compiled once, called with batches 1 and 5."""
    for index, case in enumerate(CASES):
        if case.dynamic_batch:
            for n in (1, 5):
                Case(**{**case.__dict__, "n": n}).check(native, f"f{index}")
