"""The benchmark cases: RLX backward ops, their PyTorch reference and their cost.

Each :class:`Case` knows its RLX module (one function ``f``), random inputs, the PyTorch
call that computes the same gradient (only the backward is timed), and the work it does:
FLOPs for convolutions (``2*N*F*(C/g)*KH*KW*Ho*Wo``, the same for dw and dx) and bytes
moved for pools (every input read once plus the result written once).

Every case runs at the batches users run (:data:`BATCHES`): the friendly one, one image,
an odd batch, and a batch the module declares dynamic (``?``) and is called with at 8.
A schedule that needs static shapes shows up there as a cliff.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

BATCH = 8
BATCHES = ("8", "1", "7", "?")
"""Batch labels: a number is a static batch; ``?`` declares it dynamic and calls it with ``BATCH``."""


def _out(size: int, kernel: int, stride: int, pad: int) -> int:
    return (size + 2 * pad - kernel) // stride + 1


def _ttype(shape, dynamic_batch: bool = False) -> str:
    dims = ["?" if dynamic_batch and i == 0 else str(d) for i, d in enumerate(shape)]
    return f"tensor<{'x'.join(dims)}xf32>"


@dataclass(frozen=True)
class Case:
    """One benchmarked gradient.

    ``kind`` is ``conv_weight``, ``conv_input``, ``max_pool`` or ``avg_pool``. For convs
    ``channels``/``filters`` are C/F; for pools ``filters`` is unused.
    """

    name: str
    kind: str
    batch: int
    channels: int
    size: int
    kernel: int
    stride: int = 1
    pad: int = 0
    filters: int = 0
    groups: int = 1
    dynamic_batch: bool = False
    """The module declares the batch `?` (it is still called with `batch` images)."""

    def at_batch(self, label: str) -> Case:
        """This case at a batch of :data:`BATCHES` (``?``: dynamic, called with ``BATCH``)."""
        if label == "?":
            return dataclasses.replace(self, batch=BATCH, dynamic_batch=True)
        return dataclasses.replace(self, batch=int(label), dynamic_batch=False)

    @property
    def batch_label(self) -> str:
        return f"?={self.batch}" if self.dynamic_batch else str(self.batch)

    @property
    def out_size(self) -> int:
        return _out(self.size, self.kernel, self.stride, self.pad)

    @property
    def x_shape(self) -> tuple[int, ...]:
        return (self.batch, self.channels, self.size, self.size)

    @property
    def y_shape(self) -> tuple[int, ...]:
        f = self.filters if self.kind.startswith("conv") else self.channels
        return (self.batch, f, self.out_size, self.out_size)

    @property
    def w_shape(self) -> tuple[int, ...]:
        return (self.filters, self.channels // self.groups, self.kernel, self.kernel)

    @property
    def is_conv(self) -> bool:
        return self.kind.startswith("conv")

    def work(self) -> float:
        """FLOPs (convs) or bytes (pools) of one call."""
        if self.is_conv:
            n, f, ho, wo = self.y_shape
            return 2.0 * n * f * (self.channels // self.groups) * self.kernel**2 * ho * wo
        elements = np.prod(self.x_shape) * 2 + np.prod(self.y_shape)  # dx written + dy read
        if self.kind == "max_pool":
            elements += np.prod(self.x_shape)  # x read
        return 4.0 * float(elements)

    @property
    def unit(self) -> str:
        return "GFLOP/s" if self.is_conv else "GB/s"

    def window(self) -> str:
        k, s, p = self.kernel, self.stride, self.pad
        text = f"kernel_size [{k}, {k}] stride [{s}, {s}] padding [{p}, {p}]"
        return text + (f" groups {self.groups}" if self.groups != 1 else "")

    def rlx_module(self) -> str:
        """The RLX module: ``func.func @f(inputs...) -> gradient``."""
        dyn = self.dynamic_batch
        x, y, w = _ttype(self.x_shape, dyn), _ttype(self.y_shape, dyn), _ttype(self.w_shape)
        if self.kind == "conv_weight":
            args, op = f"%x: {x}, %dy: {y}", f"rlx.conv2d_backward_weight %x, %dy {self.window()} : ({x}, {y}) -> {w}"
            result = w
        elif self.kind == "conv_input":
            args, op = f"%dy: {y}, %w: {w}", f"rlx.conv2d_backward_input %dy, %w {self.window()} : ({y}, {w}) -> {x}"
            result = x
        elif self.kind == "max_pool":
            args, op = f"%x: {x}, %dy: {y}", f"rlx.max_pool2d_backward %x, %dy {self.window()} : ({x}, {y}) -> {x}"
            result = x
        elif self.kind == "avg_pool":
            args, op = f"%dy: {y}", f"rlx.avg_pool2d_backward %dy {self.window()} : ({y}) -> {x}"
            result = x
        else:
            raise ValueError(f"unknown case kind {self.kind!r}")
        return (
            f"func.func @f({args}) -> {result} {{\n"
            f"  %g = {op}\n"
            f"  return %g : {result}\n"
            "}\n"
        )

    def inputs(self, seed: int = 0) -> tuple[np.ndarray, ...]:
        """Random float32 inputs in the order of ``f``'s arguments."""
        rng = np.random.default_rng(seed)

        def rand(shape):
            return rng.standard_normal(shape, dtype=np.float32)

        if self.kind == "conv_weight":
            return rand(self.x_shape), rand(self.y_shape)
        if self.kind == "conv_input":
            return rand(self.y_shape), rand(self.w_shape)
        if self.kind == "max_pool":
            return rand(self.x_shape), rand(self.y_shape)
        return (rand(self.y_shape),)

    def torch_reference(self, arrays: tuple[np.ndarray, ...]) -> Callable[[], object]:
        """A no-argument callable computing the gradient with PyTorch (backward only)."""
        import torch
        import torch.nn.functional as F

        k, s, p, g = self.kernel, self.stride, self.pad, self.groups
        tensors = [torch.from_numpy(a) for a in arrays]
        if self.kind == "conv_weight":
            x, dy = tensors
            return lambda: torch.nn.grad.conv2d_weight(x, self.w_shape, dy, stride=s, padding=p, groups=g)
        if self.kind == "conv_input":
            dy, w = tensors
            return lambda: torch.nn.grad.conv2d_input(self.x_shape, w, dy, stride=s, padding=p, groups=g)
        if self.kind == "max_pool":
            x, dy = tensors
            x = x.clone().requires_grad_(True)
            y = F.max_pool2d(x, k, s, p)
        else:
            (dy,) = tensors
            x = torch.zeros(self.x_shape, requires_grad=True)
            y = F.avg_pool2d(x, k, s, p)
        return lambda: torch.autograd.grad(y, x, dy, retain_graph=True)[0]


def _conv(label: str, c: int, f: int, size: int, k: int, s: int = 1, p: int = 1, g: int = 1, batch: int = BATCH):
    return [
        Case(f"{label}-bw-weight", "conv_weight", batch, c, size, k, s, p, f, g),
        Case(f"{label}-bw-input", "conv_input", batch, c, size, k, s, p, f, g),
    ]


CASES: list[Case] = [
    *_conv("a-64x56-3x3", 64, 64, 56, 3),
    *_conv("b-128x28-3x3", 128, 128, 28, 3),
    *_conv("c-stem-3x224-7x7s2", 3, 64, 224, 7, 2, 3),
    *_conv("d-grouped-128x28-g32", 128, 128, 28, 3, g=32),
    *_conv("e-depthwise-64x56", 64, 64, 56, 3, g=64),
    *_conv("f-1x1-256to64x56", 256, 64, 56, 1, p=0),
    *_conv("g-depthwise-96x112-s2", 96, 96, 112, 3, 2, 1, g=96),  # MobileNetV2's widest stride-2 depthwise conv
    Case("maxpool-2x2s2-64x56", "max_pool", BATCH, 64, 56, 2, 2, 0),
    Case("maxpool-3x3s2p1-64x112", "max_pool", BATCH, 64, 112, 3, 2, 1),
    Case("avgpool-2x2s2-64x56", "avg_pool", BATCH, 64, 56, 2, 2, 0),
]

# Targets per case group (ratio = PyTorch time / our time).
DENSE = ("a-", "b-", "c-", "f-")


def case_by_name(name: str) -> Case:
    for case in CASES:
        if case.name == name or case.name.startswith(name):
            return case
    raise KeyError(f"no benchmark case {name!r}; cases: {', '.join(c.name for c in CASES)}")
