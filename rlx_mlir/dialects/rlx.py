"""The RLX dialect: the forward and backward ML ops of RLX's training graphs.

Every op works on ranked tensors in NCHW layout and keeps its element type. Geometry is
stored as properties: `i64` dense arrays for the 2-D values, an `i64` integer for
`groups`, a bool for `count_include_pad`. The generic form always carries every property,
so that the IRDL description upstream MLIR loads can require them all; the custom form
(each op's `assembly_format`) leaves out the properties at their PyTorch default:

    %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1]
            : (tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) -> tensor<64x64x3x3xf32>

Only the batch dimension may be dynamic. The ops live by family (`conv`, `pool`,
`matmul`); this module gathers them into the dialect.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from rlx_mlir.dialects.base import RlxOp
from rlx_mlir.dialects.conv import (
    Conv2dBackwardInputOp,
    Conv2dBackwardWeightOp,
    Conv2dOp,
    ConvTranspose2dOp,
    Im2colOp,
)
from rlx_mlir.dialects.matmul import MatmulOp
from rlx_mlir.dialects.pool import AvgPool2dBackwardOp, AvgPool2dOp, MaxPool2dBackwardOp, MaxPool2dOp
from rlx_mlir.dialects.properties import BOOL, FLOAT_TENSOR, I1, INT, PAIR, PropertyKind

FORWARD_OPS = (Conv2dOp, ConvTranspose2dOp, MaxPool2dOp, AvgPool2dOp, MatmulOp, Im2colOp)
BACKWARD_OPS = (Conv2dBackwardWeightOp, Conv2dBackwardInputOp, MaxPool2dBackwardOp, AvgPool2dBackwardOp)

RLX = Dialect("rlx", [*FORWARD_OPS, *BACKWARD_OPS], [])

__all__ = [
    "RLX",
    "FORWARD_OPS",
    "BACKWARD_OPS",
    "RlxOp",
    "PropertyKind",
    "PAIR",
    "INT",
    "BOOL",
    "I1",
    "FLOAT_TENSOR",
    *(op.__name__ for op in (*FORWARD_OPS, *BACKWARD_OPS)),
]
