"""Both forms of a strided forward conv (`convert-rlx-to-linalg`'s `strided-conv`) against PyTorch.

`phases` (the native backend's lowering: one stride-1 conv per stride phase of x,
`transforms/conv/stride_phases.py`) and `direct` (one strided named conv, `rlx-opt`'s
default) are each compiled and compared with `F.conv2d` in float64 within the error model
of `tests/oracle.py`. The configurations are the ones whose phase algebra differs
(`geometry.StridePhase`): taps spread over every residue, a dilation sharing a factor
with the stride (all taps in one residue), a kernel smaller than the stride (residues no
tap reads), a 1x1 kernel (flattened rows), unequal strides per axis, padding per side, and
outputs narrower than one vector (7 columns, which the conv schedule widens). Also: that
the phase form holds stride-1 convs only, and that its size does not grow with the
tensors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import compile_module
from rlx_mlir.backend.interface import module_text
from rlx_mlir.geometry import Window
from oracle import assert_matches, tensor_type

# (label, n, c, f, (h, w), (kh, kw), stride, padding (low h, low w, high h, high w), dilation)
CONFIGS = [
    ("resnet_downsample_3x3s2_to7", 2, 8, 16, (14, 14), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),
    ("stem_7x7s2p3", 2, 3, 8, (20, 21), (7, 7), (2, 2), (3, 3, 3, 3), (1, 1)),
    ("1x1s2_odd", 3, 8, 8, (9, 11), (1, 1), (2, 2), (0, 0, 0, 0), (1, 1)),
    ("dilation_equals_stride", 2, 4, 8, (13, 12), (3, 3), (2, 2), (1, 1, 1, 1), (2, 2)),
    ("coprime_dilation_unequal_strides", 2, 4, 8, (15, 16), (3, 2), (2, 3), (0, 2, 1, 0), (3, 2)),
    ("kernel_below_stride", 1, 4, 8, (12, 13), (2, 2), (3, 3), (1, 0, 0, 1), (1, 1)),
    ("stride_rows_only", 2, 4, 8, (10, 9), (3, 3), (2, 1), (1, 1, 1, 1), (1, 1)),
]


def conv2d_source(n, c, f, hw, k, s, p, d, dtype, dynamic=False) -> tuple[str, tuple, tuple]:
    """The text of `f(x, w) = rlx.conv2d(x, w)` and the shapes of x and w."""
    window = Window.of(k, s, p, d)
    out = window.output_size(hw)
    xs, ws, ys = (n, c, *hw), (f, c, *k), (n, f, *out)
    x, w, y = tensor_type(xs, dtype, dynamic), tensor_type(ws, dtype), tensor_type(ys, dtype, dynamic)
    text = (
        f"func.func @f(%x: {x}, %w: {w}) -> {y} {{\n"
        f"  %y = rlx.conv2d %x, %w stride {list(s)} padding {list(p)} dilation {list(d)} : ({x}, {w}) -> {y}\n"
        f"  return %y : {y}\n}}\n"
    )
    return text, xs, ws


@pytest.mark.parametrize("form", ["phases", "direct"])
@pytest.mark.parametrize("dtype,dynamic", [(np.float32, False), (np.float64, True)], ids=["f32", "f64-dynamic"])
@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_strided_conv_matches_pytorch(config, dtype, dynamic, form):
    _, n, c, f, hw, k, s, p, d = config
    text, xs, ws = conv2d_source(n, c, f, hw, k, s, p, d, dtype, dynamic)
    fn = compile_module(lower_to_linalg(text, strided_conv=form))["f"]
    assert_conv_matches_pytorch(fn, xs, ws, s, p, d, dtype, f"conv2d strided-conv={form}")


def assert_conv_matches_pytorch(fn, xs, ws, s, p, d, dtype, label: str) -> None:
    """`fn(x, w)` against `F.conv2d` of x padded per side, on seeded normal x and w."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)

    def conv(x_, w_):
        return F.conv2d(F.pad(x_, (p[1], p[3], p[0], p[2])), w_, stride=s, dilation=d)

    assert_matches(fn(x, w), conv, (x, w), label=label)


def _phase_form(hw: tuple[int, int], c: int, f: int) -> str:
    text, _, _ = conv2d_source(2, c, f, hw, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), np.float32, False)
    return module_text(lower_to_linalg(text, strided_conv="phases"))


def test_phase_form_holds_stride_one_convs_whose_count_does_not_grow_with_sizes():
    small, large = _phase_form((14, 14), 8, 16), _phase_form((112, 112), 64, 128)
    strides = re.findall(r"strides = dense<(\d+)>", small)
    assert strides == ["1"] * 4, "one stride-1 conv per phase of a 3x3 stride-2 kernel"
    assert len(small.splitlines()) == len(large.splitlines())
