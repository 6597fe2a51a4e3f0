"""`decompose-backward`: every RLX backward op becomes linalg/arith/tensor.

After this pass no `rlx.*_backward` op is left; forward RLX ops are untouched (they are
`convert-rlx-to-linalg`'s). Each pattern lives beside the math it implements, in its
family's package (`conv`, `pool`, `activation`, `norm`, `loss`, `layout`, `adjoint`); this
module holds the pass's options and the order in which they are populated.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.dialects.rlx import BACKWARD_OPS
from rlx_mlir.transforms.conversion import apply_full_conversion
from rlx_mlir.transforms.empty_result import EmptyTensors
from rlx_mlir.transforms.families import FAMILIES
from rlx_mlir.transforms.options import CheckedOptions, ConvInput, ConvWeight, LoweringOptions, PoolTies
from rlx_mlir.transforms.unit_height import OneDimensionalAsTwo


@dataclass(frozen=True)
class DecomposeBackwardPass(CheckedOptions):
    """Rewrite `rlx.conv2d_backward_{weight,input}` and `rlx.{max,avg}_pool2d_backward`.

    Options:
    - `conv-weight`: `direct` (one gather-form contraction) or `im2col` (RLX's im2col +
      matmul, chunked over rows above `im2col-max-elements`).
    - `conv-input`: `direct` (the adjoint conv in gather form) or `transpose` (RLX's route
      through `rlx.conv_transpose2d` with the solved output_padding, then lowered the way
      `convert-rlx-to-linalg` lowers it).
    - `pool-ties`: `first` (PyTorch: the first maximum of a window takes its gradient) or
      `all` (RLX's fast path: every tied maximum does).

    Legal after it: `linalg`, `tensor`, `arith` (and `math`) ops plus any forward RLX op
    the input had. A backward op it cannot rewrite fails the pass with a located error
    (`conversion.apply_full_conversion`); each block it wrote into holds one constant per
    value.
    """

    name = "decompose-backward"

    conv_weight: ConvWeight = "direct"
    im2col_max_elements: int = 4_194_304
    conv_input: ConvInput = "direct"
    pool_ties: PoolTies = "first"

    def __post_init__(self):
        super().__post_init__()
        if self.im2col_max_elements < 1:
            raise ValueError(
                f"{self.name}: option 'im2col-max-elements' must be positive, got {self.im2col_max_elements}"
            )

    def patterns(self) -> list[RewritePattern]:
        """The pass's patterns in priority order, for its options: empty results and the
        1-D ops first, then each family's."""
        options = LoweringOptions(
            conv_weight=self.conv_weight,
            conv_input=self.conv_input,
            im2col_max_elements=self.im2col_max_elements,
            pool_ties=self.pool_ties,
        )
        patterns: list[RewritePattern] = [EmptyTensors(), OneDimensionalAsTwo()]
        for family in FAMILIES:
            family.populate_backward(patterns, options)
        return patterns

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_full_conversion(op, self.patterns(), BACKWARD_OPS, self.name)
