"""IREE, the downstream toolchain users compare us with, compiles what we emit as it is.

Skipped unless the optional `bench` extra (iree-base-compiler) is installed.
"""

from __future__ import annotations

import pytest

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import emit

ireec = pytest.importorskip("iree.compiler")

MODULE = """
func.func @train_step(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %dy: tensor<2x6x4x4xf32>,
                      %p: tensor<2x4x4x4xf32>, %q: tensor<2x4x5x5xf32>)
    -> (tensor<6x2x3x3xf32>, tensor<2x4x9x9xf32>, tensor<2x4x9x9xf32>, tensor<2x4x9x9xf32>, tensor<2x6x4x4xf32>) {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [2, 2] padding [0, 0] groups 2
      : (tensor<2x4x9x9xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [0, 0] groups 2
      : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  %dmax = rlx.max_pool2d_backward %x, %p kernel_size [3, 3] stride [2, 2] padding [0, 0]
      : (tensor<2x4x9x9xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x9x9xf32>
  %davg = rlx.avg_pool2d_backward %q kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false
      : (tensor<2x4x5x5xf32>) -> tensor<2x4x9x9xf32>
  %y = rlx.conv2d %x, %w stride [2, 2] padding [0, 0] groups 2
      : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  return %dw, %dx, %dmax, %davg, %y
      : tensor<6x2x3x3xf32>, tensor<2x4x9x9xf32>, tensor<2x4x9x9xf32>, tensor<2x4x9x9xf32>, tensor<2x6x4x4xf32>
}

// ResNet's forms: padded max-pool (border strips), dense padded convs at stride 1 and 2.
func.func @resnet_like(%x: tensor<2x8x10x10xf32>, %p: tensor<2x8x5x5xf32>, %dy1: tensor<2x16x10x10xf32>,
                       %dy2: tensor<2x16x5x5xf32>, %w: tensor<16x8x3x3xf32>)
    -> (tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<2x8x10x10xf32>) {
  %dmax = rlx.max_pool2d_backward %x, %p kernel_size [3, 3] stride [2, 2] padding [1, 1]
      : (tensor<2x8x10x10xf32>, tensor<2x8x5x5xf32>) -> tensor<2x8x10x10xf32>
  %dw1 = rlx.conv2d_backward_weight %x, %dy1 kernel_size [3, 3] stride [1, 1] padding [1, 1]
      : (tensor<2x8x10x10xf32>, tensor<2x16x10x10xf32>) -> tensor<16x8x3x3xf32>
  %dx1 = rlx.conv2d_backward_input %dy1, %w kernel_size [3, 3] stride [1, 1] padding [1, 1]
      : (tensor<2x16x10x10xf32>, tensor<16x8x3x3xf32>) -> tensor<2x8x10x10xf32>
  %dw2 = rlx.conv2d_backward_weight %x, %dy2 kernel_size [3, 3] stride [2, 2] padding [1, 1]
      : (tensor<2x8x10x10xf32>, tensor<2x16x5x5xf32>) -> tensor<16x8x3x3xf32>
  %dx2 = rlx.conv2d_backward_input %dy2, %w kernel_size [3, 3] stride [2, 2] padding [1, 1]
      : (tensor<2x16x5x5xf32>, tensor<16x8x3x3xf32>) -> tensor<2x8x10x10xf32>
  return %dmax, %dw1, %dx1, %dw2, %dx2
      : tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<2x8x10x10xf32>
}
"""


def test_iree_compiles_the_emitted_linalg():
    linalg = emit(lower_to_linalg(MODULE), "linalg")
    ireec.compile_str(
        linalg,
        target_backends=["llvm-cpu"],
        extra_args=["--iree-llvmcpu-target-cpu=generic"],
    )
