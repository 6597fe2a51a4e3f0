"""Strided convs with narrow output rows, lowered as one matmul over their patches, against PyTorch.

The native backend's lowering (`strided-conv=phases`) turns a one-group strided 2-D conv
whose output rows are at most `narrow_rows.NARROW_ROW` columns wide into w [F, C*KH*KW] x
patches [C*KH*KW, N*Ho*Wo] (`transforms/conv/narrow_rows.py`). Compared with `F.conv2d`
in float64 within the error model of `tests/oracle.py`, f32 and f64: DCGAN's last
stride-2 conv (small), stride with dilation, unequal strides and padding per side, a
kernel below the stride, a 1x1 stride-2 kernel, one-column rows. Also: which convs take
the matmul form.
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
    ("dcgan_4x4s2p1_to_4x4", 2, 8, 16, (8, 8), (4, 4), (2, 2), (1, 1, 1, 1), (1, 1)),
    ("strided_and_dilated", 3, 5, 6, (11, 10), (3, 3), (2, 2), (1, 1, 1, 1), (2, 2)),
    ("unequal_strides_padding_per_side", 2, 3, 5, (9, 11), (3, 2), (2, 3), (0, 2, 1, 0), (1, 1)),
    ("kernel_below_stride_odd", 1, 7, 3, (10, 9), (2, 2), (3, 3), (1, 0, 0, 1), (1, 1)),
    ("1x1s2_to_3_columns", 3, 4, 9, (7, 5), (1, 1), (2, 2), (0, 0, 0, 0), (1, 1)),
    ("one_column", 2, 3, 4, (7, 3), (3, 3), (2, 2), (0, 0, 0, 0), (1, 1)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_narrow_row_conv_matches_pytorch(config, dtype):
    _, n, c, f, hw, k, s, p, d = config
    text, xs, ws = conv2d_source(n, c, f, hw, k, s, p, d, dtype)
    lowered = lower_to_linalg(text)
    assert "linalg.matmul" in module_text(lowered) and "linalg.conv_2d" not in module_text(lowered)
    assert_conv_matches_pytorch(compile_module(lowered)["f"], xs, ws, s, p, d, dtype, "conv2d as a matmul")


@pytest.mark.parametrize(
    "hw,stride,dynamic,matmul",
    [((8, 8), 2, False, True), ((10, 10), 2, False, False), ((8, 8), 2, True, False), ((5, 5), 1, False, False)],
    ids=["4_columns", "5_columns", "dynamic_batch", "stride_1"],
)
def test_only_strided_static_rows_of_at_most_4_columns_become_a_matmul(hw, stride, dynamic, matmul):
    text, _, _ = conv2d_source(2, 4, 8, hw, (4, 4), (stride, stride), (1, 1, 1, 1), (1, 1), np.float32, dynamic)
    assert ("linalg.matmul" in module_text(lower_to_linalg(text))) == matmul
