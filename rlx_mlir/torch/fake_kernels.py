"""Shape-only ("fake") kernels for the ATen ops our importer takes whole that PyTorch gives
none, registered only while we trace.

torch.export traces on fake tensors. For an ATen op without a Meta kernel, its fake mode
runs the real kernel on zeros when every size is concrete, and refuses the op when one is
symbolic: so `torch.fake_quantize_per_tensor_affine` on a dynamic batch (the hand-placed
fake quantization of a QAT model) cannot be traced at all, although its shapes are plain
(y like x, and the boolean mask of the values on the grid like x). `fake_kernels()`
registers those shapes for the duration of a trace and removes them after it, so that the
user's process sees PyTorch's dispatcher as it was. An op that has gained a Meta kernel in
the installed PyTorch keeps its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

QUANTIZE_WITH_MASK = (
    "aten::fake_quantize_per_tensor_affine_cachemask",
    "aten::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams",
    "aten::fake_quantize_per_channel_affine_cachemask",
)
"""(y, mask) = op(x, grid...): y has x's shape and dtype, the mask x's shape in bool."""


def _quantized_and_mask(x: torch.Tensor, *grid) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.empty_like(x), torch.empty_like(x, dtype=torch.bool)


@contextmanager
def fake_kernels() -> Iterator[None]:
    """The fake kernels of `QUANTIZE_WITH_MASK` while the block runs."""
    library = torch.library.Library("aten", "FRAGMENT")
    try:
        for name in QUANTIZE_WITH_MASK:
            try:
                torch.library.register_fake(name, _quantized_and_mask, lib=library, allow_override=False)
            except RuntimeError:  # PyTorch has a Meta kernel for it: its own is right
                continue
        yield
    finally:
        library._destroy()  # private, but what torch.library's own `_scoped_library` does on exit
