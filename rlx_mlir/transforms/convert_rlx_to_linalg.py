"""`convert-rlx-to-linalg`: every forward RLX op becomes linalg/tensor/arith.

One pattern per op family, each stating its formula once for 2-D and 3-D (1-D ops reach
it as 2-D ops with a unit height). Upstream named ops are used where MLIR (and xDSL) has
one (`linalg.conv_2d_nchw_fchw`, `linalg.conv_2d_ngchw_gfchw`, `linalg.pooling_nchw_max`,
`linalg.matmul`); the rest, the 3-D ops among them, are gather-form `linalg.generic`s,
whose outputs are indexed by loop dimensions only. Padding is an explicit `tensor.pad`
per side (zero for convs, avg pools and im2col, -inf for max pooling), high as far as the
last window reads (ceil mode may read past the op's padding). Groups are a loop dimension
(expand_shape in, collapse_shape out), never a Python loop, so the IR's size never depends
on tensor sizes, kernel sizes or group counts. A dynamic batch is carried through: every
new tensor reads its batch from an operand. The patterns live in the family packages
(`conv`, `pool`, `matmul`, `elementwise`, `activation`, `norm`, `loss`, `layout`); this
module holds the pass's options and the order in which they are populated.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.dialects.rlx import FORWARD_OPS
from rlx_mlir.transforms.conversion import apply_full_conversion
from rlx_mlir.transforms.empty_result import EmptyTensors
from rlx_mlir.transforms.families import FAMILIES
from rlx_mlir.transforms.options import CheckedOptions, LoweringOptions, StridedConv
from rlx_mlir.transforms.unit_height import OneDimensionalAsTwo


def forward_patterns(options: LoweringOptions = LoweringOptions()) -> list[RewritePattern]:
    """The pass's patterns in priority order: empty results and the 1-D ops first, then
    each family's."""
    patterns: list[RewritePattern] = [EmptyTensors(), OneDimensionalAsTwo()]
    for family in FAMILIES:
        family.populate_forward(patterns, options)
    return patterns


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvertRlxToLinalgPass(CheckedOptions):
    """Rewrite `rlx.conv{2,3}d`, `rlx.conv_transpose{2,3}d`, `rlx.{max,avg}_pool{2,3}d`,
    `rlx.adaptive_{max,avg}_pool{2,3}d`, `rlx.matmul` and `rlx.im2col{,3d}` into upstream
    ops (the 1-D ops once rewritten to 2-D).

    Legal after it: `linalg`, `tensor`, `arith` and `math` ops, plus any RLX
    backward op the input had (those are `decompose-backward`'s). A forward op it cannot
    rewrite fails the pass with a located error (`conversion.apply_full_conversion`).
    Element types and a dynamic batch are preserved; the emitted IR's size does not depend
    on tensor sizes, and each block it wrote into holds one constant per value.

    Option `strided-conv`: `direct` (a strided conv stays one strided named op) or `phases`
    (a 2-D strided conv of one group becomes a stride-1 conv per stride phase of its input,
    `conv.stride_phases`; the native backend's choice, as its schedules vectorize stride-1
    rows; with it, a strided one-group 2-D conv whose output rows are too narrow for them
    is one matmul over its patches, `conv.narrow_rows`).
    """

    name = "convert-rlx-to-linalg"

    strided_conv: StridedConv = "direct"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_full_conversion(op, forward_patterns(LoweringOptions(strided_conv=self.strided_conv)), FORWARD_OPS, self.name)

