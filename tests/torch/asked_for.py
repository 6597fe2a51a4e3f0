"""Model tests that run only when asked for: `RLX_MLIR_MODEL_TESTS=1 pytest ...`.

CI runs the whole suite on 2 cores within 25 minutes, and one whole model's training step costs
20 s to several minutes to import and compile. The default run keeps, for every model, its f64
step (the 1e-9 check that catches any wrong formula), and one f32 step per kind of model (a CNN
and the GPT), which checks our f32 error against PyTorch's. The other f32 twins, and the models
too slow for the default run, run when model code changes, with this variable set.
"""

from __future__ import annotations

import os

import pytest
import torch

RUN_MODEL_TESTS = os.environ.get("RLX_MLIR_MODEL_TESTS") == "1"


def when_asked(why: str) -> pytest.MarkDecorator:
    """Skip unless RLX_MLIR_MODEL_TESTS=1; `why` says what it costs (measured)."""
    return pytest.mark.skipif(not RUN_MODEL_TESTS, reason=f"{why}: run with RLX_MLIR_MODEL_TESTS=1")


def f64_and_f32_when_asked(f32_cost: str) -> pytest.MarkDecorator:
    """`dtype` in f64 always, and in f32 when asked for (`f32_cost`: its measured time)."""
    return pytest.mark.parametrize("dtype", [
        pytest.param(torch.float64, id="f64"),
        pytest.param(torch.float32, id="f32", marks=when_asked(f"the f32 twin, {f32_cost}")),
    ])
