"""Strided convolution input gradients against PyTorch's convolution_backward in one process.

    python -m benchmarks.conv_backward_input [--budget 2] [--cases PREFIX ...]

Each case compiles one `rlx.conv2d_backward_input` with the default pipeline (what
decompose-backward makes of it: one stride-1 conv per stride phase), checks it against
`torch.ops.aten.convolution_backward` with output_mask [True, False, False] (the input
gradient only), and times both in interleaved rounds on the same threads
(`benchmarks.harness.time_interleaved`). ratio = PyTorch time / our time (> 1: faster);
GFLOP/s counts the forward conv's 2*N*F*Ho*Wo*(C/G)*KH*KW multiply-adds, the work of the
gradient without the zeros a stride-spread dy would add.

The shapes are the downsampling convs of three networks: the WGAN-GP critic of
`benchmarks.higher_order` (a DCGAN critic, 4x4 stride 2 padding 1, 3 -> 64 -> 128 -> 256
at 32x32, batch 16), ResNet-18's stride-2 3x3 convs and their 1x1 shortcuts (batch 8,
224: 56 -> 28, 28 -> 14, 14 -> 7) and MobileNetV2's stride-2 depthwise 3x3 convs (batch
8). Results go to `benchmarks/results/conv_backward_input.json`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from benchmarks.harness import case_by_case_main, comparison_result, time_interleaved
from rlx_mlir.geometry import conv_output_size


@dataclass(frozen=True)
class ConvInputGradCase:
    """dx [N, C, H, W] of y = conv2d(x, w [F, C/G, K, K], stride, padding, groups)."""

    prefix: str
    n: int
    c: int
    f: int
    h: int
    k: int
    stride: int
    padding: int
    groups: int = 1
    dtype: str = "f32"

    @property
    def out(self) -> int:
        return conv_output_size(self.h, self.k, self.stride, self.padding, 1)

    @property
    def name(self) -> str:
        group = f"-g{self.groups}" if self.groups > 1 else ""
        return f"{self.prefix}-{self.c}x{self.h}-to-{self.f}x{self.out}-k{self.k}s{self.stride}p{self.padding}{group}"

    @property
    def weight_shape(self) -> tuple[int, int, int, int]:
        return self.f, self.c // self.groups, self.k, self.k

    @property
    def dy_shape(self) -> tuple[int, int, int, int]:
        return self.n, self.f, self.out, self.out

    @property
    def flop(self) -> int:
        return 2 * self.n * self.f * self.out * self.out * (self.c // self.groups) * self.k * self.k

    def source(self) -> str:
        def ty(shape):
            return "tensor<" + "x".join(map(str, shape)) + f"x{self.dtype}>"

        dy, w, dx = ty(self.dy_shape), ty(self.weight_shape), ty((self.n, self.c, self.h, self.h))
        groups = f" groups {self.groups}" if self.groups > 1 else ""
        return (
            f"func.func @f(%dy: {dy}, %w: {w}) -> {dx} {{\n"
            f"  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [{self.k}, {self.k}] stride [{self.stride}, {self.stride}]"
            f" padding [{self.padding}, {self.padding}]{groups} : ({dy}, {w}) -> {dx}\n"
            f"  return %dx : {dx}\n}}\n"
        )

    def reference(self, dy, w):
        import torch

        x_shape = (self.n, self.c, self.h, self.h)
        return torch.ops.aten.convolution_backward(
            dy, torch.empty(x_shape, dtype=dy.dtype), w, None, [self.stride] * 2, [self.padding] * 2,
            [1, 1], False, [0, 0], self.groups, [True, False, False],
        )[0]


def cases() -> list[ConvInputGradCase]:
    wgan = [ConvInputGradCase("wgan", 16, c, f, h, 4, 2, 1) for c, f, h in ((3, 64, 32), (64, 128, 16), (128, 256, 8))]
    resnet = [
        ConvInputGradCase("resnet18", 8, c, 2 * c, h, k, 2, k // 2)
        for c, h in ((64, 56), (128, 28), (256, 14))
        for k in (3, 1)
    ]
    mobilenet = [ConvInputGradCase("mobilenetv2", 8, c, c, h, 3, 2, 1, groups=c) for c, h in ((96, 112), (144, 56), (192, 28), (576, 14))]
    return wgan + resnet + mobilenet


def run(case: ConvInputGradCase, budget: float) -> dict:
    import torch

    from rlx_mlir import compile as compile_rlx

    start = time.perf_counter()
    fn = compile_rlx(case.source())["f"]
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    dy, w = (rng.standard_normal(shape, dtype=np.float32) for shape in (case.dy_shape, case.weight_shape))
    tdy, tw = torch.from_numpy(dy), torch.from_numpy(w)
    want = case.reference(tdy, tw).numpy()
    got = np.asarray(fn(dy, w))
    error = float(np.max(np.abs(got - want)))
    terms = case.f // case.groups * case.k * case.k
    # A sum of `terms` products in f32: about that many roundings (eps 1.2e-7), with a margin.
    correct = got.shape == want.shape and error <= 1e-6 * terms * max(1.0, float(np.max(np.abs(want))))
    medians, rounds = time_interleaved({"ours": lambda: fn(dy, w), "torch": lambda: case.reference(tdy, tw)}, budget_s=budget)
    return comparison_result(case.name, medians, rounds, error, correct, compile_s, flop=case.flop)


def main(argv: list[str] | None = None) -> int:
    return case_by_case_main(argv, __doc__.splitlines()[0], cases, run, "conv_backward_input.json")


if __name__ == "__main__":
    sys.exit(main())
