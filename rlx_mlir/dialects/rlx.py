"""The RLX dialect: the forward and backward ML ops of RLX's training graphs.

Every conv and pool op works on ranked tensors in PyTorch's layout, [N, C, *spatial] with
1 to 3 spatial axes (its name says how many: `rlx.conv1d`, `rlx.max_pool3d_backward`), and
keeps its element type. Geometry is stored as properties: `i64` dense arrays with one
value per spatial axis (`padding`: one per axis, or low then high per axis), `i64`
integers for `groups` and `divisor_override`, bools for `ceil_mode` and `count_include_pad`. The generic form always carries every property,
so that the IRDL description upstream MLIR loads can require them all; the custom form
(each op's `assembly_format`) leaves out the properties at their PyTorch default:

    %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1]
            : (tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) -> tensor<64x64x3x3xf32>

Only the batch dimension may be dynamic. The ops live by family (`conv`, `pool`,
`matmul`), each family written once for every rank; this module gathers them into the
dialect.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from rlx_mlir.dialects import activation, conv, elementwise, layout, loss, norm, pool
from rlx_mlir.dialects.base import RlxOp, RlxOpBase
from rlx_mlir.dialects.matmul import MatmulOp
from rlx_mlir.dialects.properties import BOOL, FLOAT_TENSOR, I1, INT, SIZES, PropertyKind
from rlx_mlir.dialects.windows import SPATIAL_RANKS, SpatialOp

# Every op of the families, by name: `rlx.Conv2dOp`, `rlx.MaxPool3dBackwardOp`, ...
_FAMILY_OPS = {
    name: op
    for module in (conv, pool)
    for name, op in vars(module).items()
    if isinstance(op, type) and issubclass(op, SpatialOp) and getattr(op, "SPATIAL_RANK", 0) in SPATIAL_RANKS
    and "name" in vars(op)
}
globals().update(_FAMILY_OPS)

# The families of the PyTorch import each list their ops (`FORWARD_OPS`, `BACKWARD_OPS`).
_IMPORT_FAMILIES = (elementwise, activation, norm, loss, layout)
globals().update(
    {op.__name__: op for family in _IMPORT_FAMILIES for op in (*family.FORWARD_OPS, *family.BACKWARD_OPS)}
)


def _ranked(*families: str) -> tuple[type[RlxOp], ...]:
    """The ops of each family (`"Conv{}dOp"`), rank by rank."""
    return tuple(_FAMILY_OPS[family.format(rank)] for family in families for rank in SPATIAL_RANKS)


FORWARD_OPS = (
    *_ranked("Conv{}dOp", "ConvTranspose{}dOp", "MaxPool{}dOp", "AvgPool{}dOp"),
    *_ranked("AdaptiveAvgPool{}dOp", "AdaptiveMaxPool{}dOp"),
    MatmulOp,
    conv.Im2col1dOp,
    conv.Im2colOp,
    conv.Im2col3dOp,
    *(op for family in _IMPORT_FAMILIES for op in family.FORWARD_OPS),
)
BACKWARD_OPS = (
    *_ranked(
        "Conv{}dBackwardWeightOp",
        "Conv{}dBackwardInputOp",
        "ConvTranspose{}dBackwardInputOp",
        "ConvTranspose{}dBackwardWeightOp",
        "MaxPool{}dBackwardOp",
        "AvgPool{}dBackwardOp",
        "AdaptiveAvgPool{}dBackwardOp",
        "AdaptiveMaxPool{}dBackwardOp",
    ),
    *(op for family in _IMPORT_FAMILIES for op in family.BACKWARD_OPS),
)

RLX = Dialect("rlx", [*FORWARD_OPS, *BACKWARD_OPS], [])

__all__ = [
    "RLX",
    "FORWARD_OPS",
    "BACKWARD_OPS",
    "RlxOp",
    "RlxOpBase",
    "PropertyKind",
    "SIZES",
    "INT",
    "BOOL",
    "I1",
    "FLOAT_TENSOR",
    *(op.__name__ for op in (*FORWARD_OPS, *BACKWARD_OPS)),
]
