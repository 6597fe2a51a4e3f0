"""The channel-blocked conv kernels (rlx_mlir.transforms.layout_blocked) against PyTorch.

Oracle: torch's conv2d, conv2d_input and conv2d_weight in float64, within the error model
of tests/oracle.py. Each configuration compiles one module (its six functions) through the
blocked schedule and `optimizing-omp`. Channel counts that the block (the f32 lanes) does
not divide exercise the packs' zero padding; 18 columns are wider than one vector, so the
register-tiled schedule applies; the narrow configuration (6 columns) stays loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_matches
from rlx_mlir.backend.machine import machine_params
from rlx_mlir.transforms.layout_blocked import DIRECTIONS, BlockedConv
from rlx_mlir.transforms.layout_blocked import arrays as layout
from rlx_mlir.transforms.layout_blocked.compile import compile_blocked

BLOCK = machine_params().f32_lanes


@dataclass(frozen=True)
class Config:
    dtype: str
    batch: int
    dynamic: bool
    channels: int
    filters: int
    size: int
    kernel: int = 3
    pad: int = 1

    def __str__(self) -> str:
        n = f"?={self.batch}" if self.dynamic else str(self.batch)
        return f"{self.dtype}-n{n}-c{self.channels}-f{self.filters}-{self.size}x{self.size}-k{self.kernel}p{self.pad}"

    def conv(self) -> BlockedConv:
        return BlockedConv(
            None if self.dynamic else self.batch, self.channels, self.filters, self.size, self.kernel, self.pad,
            BLOCK, "f64" if self.dtype == "float64" else "f32",
        )

    def inputs(self, direction: str) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(0)
        out = self.size + 2 * self.pad - self.kernel + 1
        x = rng.standard_normal((self.batch, self.channels, self.size, self.size)).astype(self.dtype)
        w = rng.standard_normal((self.filters, self.channels, self.kernel, self.kernel)).astype(self.dtype)
        dy = rng.standard_normal((self.batch, self.filters, out, out)).astype(self.dtype)
        return {"forward": (x, w), "input": (dy, w), "weight": (x, dy)}[direction]

    def oracle(self, direction: str):
        p = self.pad
        if direction == "forward":
            return lambda x, w: F.conv2d(x, w, padding=p)
        if direction == "input":
            return lambda dy, w: torch.nn.grad.conv2d_input((self.batch, self.channels, self.size, self.size), w, dy, padding=p)
        return lambda x, dy: torch.nn.grad.conv2d_weight(x, (self.filters, self.channels, self.kernel, self.kernel), dy, padding=p)


CONFIGS = [
    Config("float32", 2, False, 20, 24, 18),
    Config("float64", 3, True, 20, 24, 18, kernel=3, pad=0),
    Config("float64", 1, False, 24, 20, 6),
]


@pytest.fixture(scope="module", params=CONFIGS, ids=str)
def compiled(request):
    config = request.param
    return config, compile_blocked(config.conv().module())


def _blocked(direction: str, arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    if direction == "forward":
        return layout.block_activation(arrays[0], BLOCK), layout.block_weight(arrays[1], BLOCK)
    if direction == "input":
        return layout.block_activation(arrays[0], BLOCK), layout.block_weight_for_input(arrays[1], BLOCK)
    return layout.block_activation(arrays[0], BLOCK), layout.block_activation(arrays[1], BLOCK)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_blocked_conv_matches_pytorch(compiled, direction):
    """NCHW in, NCHW out: the packs, the blocked kernel and the unpack."""
    config, module = compiled
    arrays = config.inputs(direction)
    assert_matches(module[direction](*arrays), config.oracle(direction), arrays)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_blocked_kernel_on_blocked_inputs_matches_pytorch(compiled, direction):
    """The kernel alone, on inputs blocked in NumPy: the layouts are the documented ones."""
    config, module = compiled
    arrays = config.inputs(direction)
    got = module[direction + "_blocked"](*_blocked(direction, arrays))
    if direction == "weight":
        got = layout.unblock_weight(got, config.filters, config.channels)
    else:
        got = layout.unblock_activation(got, config.filters if direction == "forward" else config.channels)
    assert_matches(got, config.oracle(direction), arrays)
