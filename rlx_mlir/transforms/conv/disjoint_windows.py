"""A strided 2-D convolution whose windows read disjoint inputs as one matmul over its patches.

    y[n, f, o, p] = sum_{c, kh, kw} rows[(n, o, p), (c, kh, kw)] * w[f, (c, kh, kw)]
    rows[(n, o, p), (c, kh, kw)] = xpad[n, c, o*s + kh*d, p*s' + kw*d']

A ViT's patch embedding (a 16x16 kernel at stride 16) is the common case: every kernel
tap reads its own stride phase of the input (`geometry.StridePhase`: one tap per residue),
so no input element is read by two windows and the patches are at most a copy of the
padded input, never larger. `rows` is im2col's patches channels-last (one gather-form generic),
the product is the plain `linalg.matmul` rows [N*Ho*Wo, C*KH*KW] x w^T [C*KH*KW, F], and
its result [N, Ho, Wo, F] is transposed to NCHW. A dynamic batch stays the product's
dynamic M.

Why not the stride phases (`stride_phases`): with one tap per phase, each phase is a 1x1
conv whose contraction is only C deep, accumulated into the whole output, so the output is
read and written KH*KW times and the IR holds KH*KW phase copies and convs. For the ViT's
patch conv (C = 3, 256 phases) that was 3000 ops in one kernel, the long pole of its
training step's cold compile (mlir-opt 54 s of it on a loaded 2-core machine), and every
phase a pass over the 8x768x14x14 output: 44 ms, where the matmul takes 9 ms.

Only convs of more than one phase: a 1x1 strided kernel is one phase, one flat-row conv
(`stride_phases`' docstring), which needs no copy of its result.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.geometry import StridePhase, Window
from rlx_mlir.transforms.builders import TensorBuilder, is_dynamic, shape_of
from rlx_mlir.transforms.conv.im2col import patches


def has_disjoint_windows(window: Window, kernel: tuple[int, ...]) -> bool:
    """Whether every stride phase of `kernel` holds one tap, and there is more than one."""
    axes = [StridePhase.split(k, s, d) for k, s, d in zip(kernel, window.stride, window.dilation)]
    return math.prod(len(phases) for phases in axes) > 1 and all(
        len(phase.taps) == 1 for phases in axes for phase in phases
    )


def conv_as_row_matmul(b: TensorBuilder, xpad: SSAValue, w: SSAValue, window: Window, out: TensorType) -> SSAValue:
    """y = transpose(rows @ w_flat^T) for a one-group 2-D conv (the batch may be dynamic)."""
    n, f, ho, wo = out.get_shape()
    rows = b.collapse_shape(patches(b, xpad, window, shape_of(w)[2:], (ho, wo)), [[0, 1, 2], [3, 4, 5]])
    w_t = b.transpose(b.collapse_shape(w, [[0], [1, 2, 3]]), (1, 0))
    product = b.matmul(rows, w_t, b.full((shape_of(rows)[0], f), out.element_type, 0.0, like=rows))
    batch = [b.dim(xpad, 0)] if is_dynamic(n) else []
    cells = b.expand_shape(product, [[0, 1, 2], [3]], (n, ho, wo, f), sizes=batch)
    return b.transpose(cells, (0, 3, 1, 2))
