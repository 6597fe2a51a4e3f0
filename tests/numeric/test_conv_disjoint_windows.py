"""Strided convs whose windows read disjoint inputs, lowered as one matmul over their patches, against PyTorch.

The native backend's lowering (`strided-conv=phases`) turns a one-group strided 2-D conv
whose every stride phase holds one kernel tap (a ViT's patch embedding: kernel = stride)
into patches [N*Ho*Wo, C*KH*KW] x w^T (`transforms/conv/disjoint_windows.py`). Compared
with `F.conv2d` in float64 within the error model of `tests/oracle.py`: a patch embedding
(f32 and f64 with a dynamic batch), a kernel below the stride with padding per side, a
dilation coprime with the stride, unequal strides and kernels per axis. Also: which convs
take this form, and that its size does not grow with the kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import compile_module
from rlx_mlir.backend.interface import module_text
from numeric.test_strided_conv_forms import assert_conv_matches_pytorch, conv2d_source

# (label, n, c, f, (h, w), (kh, kw), stride, padding (low h, low w, high h, high w), dilation)
CONFIGS = [
    ("patch_embedding_4x4s4", 2, 3, 8, (20, 24), (4, 4), (4, 4), (0, 0, 0, 0), (1, 1)),
    ("kernel_below_stride_padded", 2, 4, 6, (21, 23), (2, 3), (3, 4), (1, 0, 2, 3), (1, 1)),
    ("coprime_dilation", 1, 2, 5, (26, 25), (3, 3), (3, 3), (0, 0, 0, 0), (2, 2)),
    ("patches_2x8s2x8", 2, 3, 4, (12, 40), (2, 8), (2, 8), (0, 0, 0, 0), (1, 1)),
]


@pytest.mark.parametrize("dtype,dynamic", [(np.float32, False), (np.float64, True)], ids=["f32", "f64-dynamic"])
@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_disjoint_window_conv_matches_pytorch(config, dtype, dynamic):
    _, n, c, f, hw, k, s, p, d = config
    text, xs, ws = conv2d_source(n, c, f, hw, k, s, p, d, dtype, dynamic)
    lowered = lower_to_linalg(text)
    assert "linalg.matmul" in module_text(lowered) and "linalg.conv_2d" not in module_text(lowered)
    assert_conv_matches_pytorch(compile_module(lowered)["f"], xs, ws, s, p, d, dtype, "conv2d with disjoint windows as a matmul")


@pytest.mark.parametrize(
    "kernel,stride,dilation,matmul",
    [(4, 4, 1, True), (2, 3, 1, True), (3, 3, 2, True), (3, 2, 1, False), (1, 2, 1, False), (4, 4, 2, False)],
    ids=["kernel_is_stride", "kernel_below_stride", "coprime_dilation", "overlapping", "1x1_one_phase",
         "dilation_shares_stride"],
)
def test_only_convs_of_several_one_tap_phases_become_a_matmul(kernel, stride, dilation, matmul):
    text, _, _ = conv2d_source(2, 3, 8, (64, 64), (kernel, kernel), (stride, stride), (0, 0, 0, 0),
                               (dilation, dilation), np.float32, False)
    assert ("linalg.matmul" in module_text(lower_to_linalg(text))) == matmul


def test_the_form_does_not_grow_with_the_kernel():
    small, large = (module_text(lower_to_linalg(conv2d_source(2, 3, 8, (8 * k, 8 * k), (k, k), (k, k), (0, 0, 0, 0),
                                                              (1, 1), np.float32, False)[0])) for k in (2, 16))
    assert len(small.splitlines()) == len(large.splitlines())
