"""Forward convs over a dynamic batch whose channels 16 does not divide, against PyTorch.

The native conv schedule reduces over channels in steps of 16. A static batch pads such
channels to a multiple of 16 first; a dynamic batch cannot (its zero pads do not fold), so
the last, shorter step is peeled into its own loop (24 = 16 + 8), which vectorizes at its
static size where a dynamic-size step stayed scalar (MobileNetV2's 1x1 conv 24 -> 144 at
56x56: 3x slower than at a static batch). The configurations: a short last step after one
full step (24), after several (40), alone (8), a multiple of 16 (nothing peeled), a 3x3
window; each compiled once with a dynamic batch and called at two batches, in float32
(the schedule's case) and float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlx_mlir
from numeric.test_strided_conv_forms import assert_conv_matches_pytorch, conv2d_source

# (label, c, f, (h, w), (kh, kw), padding (low h, low w, high h, high w))
CONFIGS = [
    ("1x1-24-channels", 24, 40, (9, 20), (1, 1), (0, 0, 0, 0)),
    ("1x1-40-channels", 40, 16, (6, 17), (1, 1), (0, 0, 0, 0)),
    ("1x1-8-channels", 8, 24, (5, 16), (1, 1), (0, 0, 0, 0)),
    ("1x1-32-channels", 32, 16, (4, 16), (1, 1), (0, 0, 0, 0)),
    ("3x3-24-channels", 24, 16, (8, 18), (3, 3), (1, 1, 1, 1)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_dynamic_batch_conv_with_a_short_channel_step_matches_pytorch(config, dtype):
    _, c, f, hw, k, p = config
    text, _, _ = conv2d_source(1, c, f, hw, k, (1, 1), p, (1, 1), dtype, dynamic=True)
    fn = rlx_mlir.compile(text)["f"]
    for batch in (1, 3):
        xs, ws = (batch, c, *hw), (f, c, *k)
        assert_conv_matches_pytorch(fn, xs, ws, (1, 1), p, (1, 1), dtype, f"dynamic-batch conv2d at batch {batch}")
