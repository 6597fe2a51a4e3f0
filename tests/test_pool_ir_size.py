"""The decomposed max-pool gradient does not grow with the kernel.

Here the kernel grows with the input: global pools (kernel = stride = H = W, output 1x1)
and kernel = H at stride 1 (every cell in H x H windows), at H = 7, 28 and 56. With
pool-ties=first the argmax is a reduction over the window's cells and the gather a
reduction over the candidate windows, so `--decompose-backward` emits the same ops at
every size: at most `MAX_OPS` (the whole module, counted by walking it; today 96 for the
global pool and 98 at stride 1). Before, the cells and candidates were unrolled into the
bodies: 388 ops at 7, 5,533 at 28 and 21,997 at 56, and 37,718 at 56 with stride 1.

Small windows keep their unrolled fast paths (2x2 s2, 3x3 s2 p1, ...); those unroll at
most 16 cells and 16 stride phases (`max_pool_backward.unrolls_little`), so their size is
bounded too, by `MAX_OPS_UNROLLED`, whatever the kernel and stride.

Every output is also verified by upstream mlir-opt.
"""

from __future__ import annotations

import subprocess

import pytest

from rlx_mlir.backend.toolchain import find_tool
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

SIZES = (7, 28, 56)
# The reduction form, whatever the kernel: 96 ops (global), 98 (stride 1) today.
MAX_OPS = 120
# The unrolled fast paths (<= 16 cells, <= 16 phases): 676 ops at most over kernels and
# strides 1..6, paddings 0..k//2, measured on 24x24 and 25x23 inputs.
MAX_OPS_UNROLLED = 800


def max_pool_backward(h: int, w: int, kernel, stride, padding=(0, 0), n: int = 1, c: int = 2) -> str:
    oh = (h + 2 * padding[0] - kernel[0]) // stride[0] + 1
    ow = (w + 2 * padding[1] - kernel[1]) // stride[1] + 1
    x, dy = f"tensor<{n}x{c}x{h}x{w}xf32>", f"tensor<{n}x{c}x{oh}x{ow}xf32>"
    return (
        f"func.func @f(%x: {x}, %dy: {dy}) -> {x} {{\n"
        f"  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [{kernel[0]}, {kernel[1]}]"
        f" stride [{stride[0]}, {stride[1]}] padding [{padding[0]}, {padding[1]}] : ({x}, {dy}) -> {x}\n"
        f"  return %dx : {x}\n}}\n"
    )


def decomposed(text: str) -> tuple[int, str]:
    """(op count, printed module) of `--decompose-backward` (pool-ties=first) on `text`."""
    ctx = make_context()
    module = parse_module(ctx, text)
    DecomposeBackwardPass().apply(ctx, module)
    assert not [op.name for op in module.walk() if op.name.startswith("rlx.")]
    return sum(1 for _ in module.walk()), str(module)


def assert_upstream_verifies(text: str) -> None:
    done = subprocess.run([str(find_tool("mlir-opt").path), "-"], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"mlir-opt rejects the decomposed IR:\n{done.stderr}"


GROWING = {
    "global": lambda h: max_pool_backward(h, h, (h, h), (h, h)),
    "kernel-h-stride-1": lambda h: max_pool_backward(h, h, (h, h), (1, 1)),
}


@pytest.mark.parametrize("kind", list(GROWING))
def test_ir_size_does_not_grow_with_the_kernel(kind):
    counts = {}
    for h in SIZES:
        counts[h], text = decomposed(GROWING[kind](h))
        assert_upstream_verifies(text)
    assert max(counts.values()) <= MAX_OPS, counts
    assert len(set(counts.values())) == 1, f"the IR grows with the kernel: {counts}"


@pytest.mark.parametrize(
    "kernel, stride, padding",
    [((2, 2), (2, 2), (0, 0)), ((3, 3), (2, 2), (1, 1)), ((3, 3), (1, 1), (1, 1)), ((4, 4), (3, 5), (2, 2)),
     ((3, 5), (3, 5), (1, 1)), ((4, 4), (4, 4), (0, 0)), ((1, 1), (1, 2), (0, 0))],
    ids=str,
)
def test_unrolled_fast_paths_are_bounded(kernel, stride, padding):
    """The fast paths stay under MAX_OPS_UNROLLED on a small and a 4x larger input (a
    frame strip more or less may come and go with the remainders of the sizes)."""
    for h, w in [(24, 25), (96, 101)]:
        count, text = decomposed(max_pool_backward(h, w, kernel, stride, padding))
        assert count <= MAX_OPS_UNROLLED, (h, w, count)
        assert_upstream_verifies(text)


def test_past_the_fast_paths_the_ir_is_the_reduction_form():
    """A kernel one cell past 16 (17 = 1x17) or 17 stride phases: the bounded reduction form."""
    for kernel, stride in [((1, 17), (1, 1)), ((4, 5), (1, 1)), ((2, 2), (17, 1)), ((5, 5), (2, 2))]:
        count, text = decomposed(max_pool_backward(40, 40, kernel, stride))
        assert count <= MAX_OPS, (kernel, stride, count)
        assert_upstream_verifies(text)
